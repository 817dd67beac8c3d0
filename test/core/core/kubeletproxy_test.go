package core_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestCoreProxiesToTheKubelet follows `kubectl logs` and `kubectl get --raw
// /api/v1/nodes/<n>/proxy/...`: Core finds the pod's node, calls that node's (simulated)
// kubelet with its kubelet client certificate, and streams the answer back.
func TestCoreProxiesToTheKubelet(t *testing.T) {
	c, cs, kubectlPath := kubeletChain(t)
	ctx := context.Background()
	ns := newNamespaceOn(t, cs, "logs-")
	pods := cs.CoreV1().Pods(ns)
	kubectl := func(args ...string) (string, error) {
		cmd := exec.Command(kubectlPath, append([]string{"-n", ns}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	newPod := func(name, node string, containers ...string) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"apichain.io/log": "hello\nworld"}},
			Spec: corev1.PodSpec{NodeName: node}}
		for _, name := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: name, Image: "busybox"})
		}
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	newPod("web", "sim-node-1", "app")
	newPod("two", "sim-node-1", "a", "b")
	newPod("pending", "", "app") // no scheduler runs: it stays without a node
	testchain.WaitFor(t, func() bool {
		p, err := pods.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	})

	for _, tc := range []struct {
		args []string
		want string // the whole output
		fail bool
	}{
		{[]string{"logs", "web"}, "apichain: container app started (image busybox) on node sim-node-1\nhello\nworld\n", false},
		{[]string{"logs", "web", "--tail=1"}, "world\n", false},
		{[]string{"logs", "web", "--limit-bytes=5"}, "apich", false},
		{[]string{"logs", "web", "-c", "nope"}, "error: container nope is not valid for pod web\n", true}, // kubectl's own check
		{[]string{"logs", "two"}, "Defaulted container \"a\" out of: a, b\napichain: container a started (image busybox) on node sim-node-1\nhello\nworld\n", false},
		{[]string{"logs", "web", "--previous"}, "Error from server (BadRequest): previous terminated container \"app\" in pod \"web\" not found\n", true},
		{[]string{"logs", "nothere"}, "error: error from server (NotFound): pods \"nothere\" not found in namespace \"" + ns + "\"\n", true},
		{[]string{"get", "--raw", "/api/v1/nodes/sim-node-1/proxy/healthz"}, "ok", false},
		{[]string{"get", "--raw", "/api/v1/nodes/nope/proxy/healthz"}, "Error from server (NotFound): nodes \"nope\" not found\n", true},
	} {
		out, err := kubectl(tc.args...)
		if out != tc.want || (err != nil) != tc.fail {
			t.Errorf("kubectl %s: %v\n%s\nwant:\n%s", strings.Join(tc.args, " "), err, out, tc.want)
		}
	}
	if out, _ := kubectl("logs", "web", "-v", "8"); !strings.Contains(out, "X-Chain-Server: core>kubelet:sim-node-1") {
		t.Errorf("kubectl logs -v 8 does not show who answered:\n%s", out)
	}

	// client-go: the statuses kube-apiserver answers with.
	for _, tc := range []struct {
		pod  string
		opts corev1.PodLogOptions
		code int32
		msg  string
	}{
		{"two", corev1.PodLogOptions{}, http.StatusBadRequest, "a container name must be specified for pod two, choose one of: [a b]"},
		{"web", corev1.PodLogOptions{TailLines: ptr.To[int64](-1)}, http.StatusUnprocessableEntity, `PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{"web", corev1.PodLogOptions{Container: "nope"}, http.StatusBadRequest, "container nope is not valid for pod web"},
		{"web", corev1.PodLogOptions{Stream: ptr.To("Both")}, http.StatusUnprocessableEntity, `PodLogOptions "web" is invalid: stream: Unsupported value: "Both": supported values: "All", "Stderr", "Stdout"`},
		{"web", corev1.PodLogOptions{Stream: ptr.To("Stdout"), TailLines: ptr.To[int64](1)}, http.StatusUnprocessableEntity, "PodLogOptions \"web\" is invalid: []: Forbidden: `tailLines` and specific `stream` are mutually exclusive for now"},
	} {
		err := pods.GetLogs(tc.pod, &tc.opts).Do(ctx).Error()
		if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Code != tc.code || status.Status().Message != tc.msg {
			t.Errorf("logs of %s %+v: %v, want %d %q", tc.pod, tc.opts, err, tc.code, tc.msg)
		}
	}
	// The simulated containers write only to stdout.
	if body, err := pods.GetLogs("web", &corev1.PodLogOptions{Stream: ptr.To("Stderr")}).DoRaw(ctx); err != nil || len(body) != 0 {
		t.Errorf("stderr of web: %q %v", body, err)
	}
	// A pod on no node has no kubelet to ask: 204, nothing.
	if body, err := pods.GetLogs("pending", &corev1.PodLogOptions{}).DoRaw(ctx); err != nil || len(body) != 0 {
		t.Errorf("logs of a pod without a node: %q %v", body, err)
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/sim-node-1/proxy/pods").DoRaw(ctx)
	if err != nil || !strings.Contains(string(raw), `"kind":"PodList"`) || !strings.Contains(string(raw), `"name":"web"`) {
		t.Errorf("nodes/proxy/pods: %v %.200s", err, raw)
	}

	// Someone who may read pods but not their logs, nor nodes/proxy.
	nobody := rest.CopyConfig(c.Admin)
	nobody.Impersonate = rest.ImpersonationConfig{UserName: "nobody"}
	nc := kubernetes.NewForConfigOrDie(nobody)
	err = nc.CoreV1().Pods(ns).GetLogs("web", &corev1.PodLogOptions{}).Do(ctx).Error()
	if want := `pods "web" is forbidden: User "nobody" cannot get resource "pods/log" in API group "" in the namespace "` + ns + `"`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("logs as nobody: %v, want %s", err, want)
	}
	err = nc.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes/sim-node-1/proxy/healthz").Do(ctx).Error()
	if want := `nodes "sim-node-1" is forbidden: User "nobody" cannot get resource "nodes/proxy" in API group "" at the cluster scope`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("nodes/proxy as nobody: %v, want %s", err, want)
	}

	// kubectl logs -f: lines as the container writes them, the end when the pod is deleted.
	follow := exec.Command(kubectlPath, "-n", ns, "logs", "-f", "web")
	follow.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
	out, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer follow.Process.Kill() // if the test fails before it ends
	lines := bufio.NewReader(out)
	for _, want := range []string{"apichain: container app started", "hello", "world"} {
		if line, err := lines.ReadString('\n'); !strings.HasPrefix(line, want) {
			t.Fatalf("kubectl logs -f: %q %v, want %q", line, err, want)
		}
	}
	if err := pods.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tail, err := io.ReadAll(lines)
	if err != nil || string(tail) != "apichain: container app stopped: its pod was deleted\n" {
		t.Errorf("kubectl logs -f after the deletion: %q %v", tail, err)
	}
	if err := follow.Wait(); err != nil {
		t.Errorf("kubectl logs -f: %v", err)
	}
}

// TestExecThroughTheChain is `kubectl exec`: kubectl speaks WebSocket (v5.channel.k8s.io) to
// Core, which translates it to SPDY for the kubelet; client-go's SPDY executor is proxied as it
// is. The container's "programs" are the simulated kubelet's tiny shell.
func TestExecThroughTheChain(t *testing.T) {
	c, cs, kubectlPath := kubeletChain(t)
	ctx := context.Background()
	ns := newNamespaceOn(t, cs, "exec-")
	pods := cs.CoreV1().Pods(ns)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "box", Labels: map[string]string{"app": "demo"}},
		Spec: corev1.PodSpec{NodeName: "sim-node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Env: []corev1.EnvVar{{Name: "FOO", Value: "bar"}},
				VolumeMounts: []corev1.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}}},
			Volumes: []corev1.Volume{{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}}},
		},
	}
	runPod(t, pods, pod)

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
		code  int
	}{
		{"", []string{"box", "--", "sh", "-c", "echo hi"}, "hi\n", 0},
		{"", []string{"box", "--", "sh", "-c", "echo $FOO; hostname; cat /etc/podinfo/labels"}, "bar\nbox\napp=\"demo\"", 0},
		{"", []string{"box", "--", "sh", "-c", "exit 3"}, "command terminated with exit code 3\n", 3},
		{"echo one\nexit 4\n", []string{"-i", "box", "--", "sh"}, "one\ncommand terminated with exit code 4\n", 4},
		{"", []string{"box", "--", "ls"}, "exec: \"ls\": executable file not found in $PATH\ncommand terminated with exit code 127\n", 127},
	} {
		cmd := exec.Command(kubectlPath, append([]string{"-n", ns, "exec"}, tc.args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
		cmd.Stdin = strings.NewReader(tc.stdin)
		raw, err := cmd.CombinedOutput()
		out := withoutUnknownStreamLog(raw)
		code := 0
		if exitErr, ok := err.(*exec.ExitError); ok {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if out != tc.want || code != tc.code {
			t.Errorf("kubectl exec %s: exit %d\n%s\nwant exit %d\n%s", strings.Join(tc.args, " "), code, out, tc.code, tc.want)
		}
	}

	verbose := exec.Command(kubectlPath, "-n", ns, "exec", "-v", "8", "box", "--", "true")
	verbose.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
	if out, err := verbose.CombinedOutput(); err != nil || !strings.Contains(string(out), "v5.channel.k8s.io") {
		t.Errorf("kubectl exec -v 8 does not show the WebSocket v5 protocol: %v\n%s", err, out)
	}

	// client-go's SPDY executor: what kubectl falls back to.
	req := cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("box").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: []string{"echo", "over", "spdy"}, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(c.Admin, "POST", req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil || stdout.String() != "over spdy\n" {
		t.Errorf("SPDY exec: %v %q %q", err, stdout.String(), stderr.String())
	}

	// client-go's WebSocket executor with a terminal (`kubectl exec -it`), and attach, which joins
	// the container's shell.
	for _, tc := range []struct {
		sub   string
		opts  runtime.Object
		stdin string
		want  string
	}{
		{"exec", &corev1.PodExecOptions{Command: []string{"sh", "-c", "echo hi"}, Stdout: true, TTY: true}, "", "hi\r\n"},
		{"attach", &corev1.PodAttachOptions{Stdin: true, Stdout: true}, "echo attached\nexit\n", "attached\n"},
	} {
		req := cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("box").SubResource(tc.sub).
			VersionedParams(tc.opts, scheme.ParameterCodec)
		executor, err := remotecommand.NewWebSocketExecutor(c.Admin, "GET", req.URL().String())
		if err != nil {
			t.Fatal(err)
		}
		var stdout strings.Builder
		opts := remotecommand.StreamOptions{Stdout: &stdout, Tty: tc.sub == "exec"}
		if tc.stdin != "" {
			opts.Stdin = strings.NewReader(tc.stdin)
		}
		if err := executor.StreamWithContext(ctx, opts); err != nil || stdout.String() != tc.want {
			t.Errorf("WebSocket %s: %v %q, want %q", tc.sub, err, stdout.String(), tc.want)
		}
	}

	// Who may not, and a pod with no node.
	nobody := rest.CopyConfig(c.Admin)
	nobody.Impersonate = rest.ImpersonationConfig{UserName: "nobody"}
	nc := kubernetes.NewForConfigOrDie(nobody)
	err = nc.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("box").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: []string{"true"}, Stdout: true}, scheme.ParameterCodec).Do(ctx).Error()
	if want := `pods "box" is forbidden: User "nobody" cannot create resource "pods/exec" in API group "" in the namespace "` + ns + `"`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("exec as nobody: %v, want %s", err, want)
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("pending").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: []string{"true"}, Stdout: true}, scheme.ParameterCodec).Do(ctx).Error()
	if want := "pod pending does not have a host assigned"; !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("exec in a pod with no node: %v, want %s", err, want)
	}
}

// TestPortForwardThroughTheChain is `kubectl port-forward`: kubectl tunnels SPDY through a
// WebSocket to Core, which unwraps it for the kubelet; client-go's SPDY dialer goes as it is.
// Behind every port of a simulated pod is a TCP echo.
func TestPortForwardThroughTheChain(t *testing.T) {
	c, cs, kubectlPath := kubeletChain(t)
	pods := cs.CoreV1().Pods("default")
	runPod(t, pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "echo"},
		Spec: corev1.PodSpec{NodeName: "sim-node-1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	echoes := func(t *testing.T, addr string) {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("ping\n")); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(conn).ReadString('\n'); line != "ping\n" {
			t.Errorf("through %s: %q %v, want the echo", addr, line, err)
		}
	}

	// kubectl, over a WebSocket tunnel.
	pf := exec.Command(kubectlPath, "port-forward", "pod/echo", ":8080")
	pf.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
	out, err := pf.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := pf.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	local, ok := strings.CutPrefix(strings.TrimSpace(line), "Forwarding from ")
	local, _, _ = strings.Cut(local, " -> ")
	if err != nil || !ok {
		t.Fatalf("kubectl port-forward: %q %v", line, err)
	}
	echoes(t, local)

	// client-go, over SPDY.
	rt, upgrader, err := spdy.RoundTripperFor(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	url := cs.CoreV1().RESTClient().Post().Namespace("default").Resource("pods").Name("echo").SubResource("portforward").URL()
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	fw, err := portforward.NewOnAddresses(spdy.NewDialer(upgrader, &http.Client{Transport: rt}, "POST", url),
		[]string{"127.0.0.1"}, []string{"0:9000"}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = fw.ForwardPorts() }()
	<-ready
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		t.Fatalf("forwarded ports: %v %v", ports, err)
	}
	echoes(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local))))
}

// kubeletChain starts a chain with simulated kubelets (the host's and sim-node-1's), and returns
// it, an admin client and kubectl's path. It skips the test where kubectl is not installed.
func kubeletChain(t *testing.T) (*chain.Chain, kubernetes.Interface, string) {
	t.Helper()
	kubectlPath, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.SimulatedKubelet, controllers.NodeIPAM}
		o.Nodes = 1
	})
	return c, kubernetes.NewForConfigOrDie(c.Admin), kubectlPath
}

// newNamespaceOn creates a namespace named from prefix, and returns its name.
func newNamespaceOn(t *testing.T, cs kubernetes.Interface, prefix string) string {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// runPod creates pod and waits until the kubelet runs it.
func runPod(t *testing.T, pods corev1client.PodInterface, pod *corev1.Pod) {
	t.Helper()
	ctx := context.Background()
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.WaitFor(t, func() bool {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning
	})
}

// withoutUnknownStreamLog drops the line "Unknown stream id 1, discarding message" that kubectl up
// to v1.32 sometimes logs on exec over WebSocket. kube-apiserver's stream translator opens each
// output stream with an empty message, and those kubectl versions start reading before they have
// created their streams; the empty message is lost, nothing else. Newer client-go waits for its
// streams first. The real kube-apiserver gives the same line with the same kubectl.
func withoutUnknownStreamLog(out []byte) string {
	var kept []string
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if !strings.Contains(line, "Unknown stream id") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}
