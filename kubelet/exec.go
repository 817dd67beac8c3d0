package kubelet

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cri-streaming/pkg/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// exec and attach: the kubelet's /exec and /attach, over SPDY (kube-apiserver translates
// kubectl's WebSocket to it), served by k8s.io/cri-streaming's remotecommand as a kubelet's
// streaming server serves them. What runs is the tiny shell of shell.go: exec runs the command
// given, attach joins the container's "main process", an interactive shell.

// streamTimeout is how long the streams may take to be created, and may stay idle (the
// kubelet's --streaming-connection-idle-timeout is 4 h; a simulated shell needs less).
const streamTimeout = 30 * time.Second

// serveExec is /exec/<namespace>/<pod>/<container>?command=…&stdin=1… (attach when command is nil).
func (s *Simulator) serveExec(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, container string, attach bool) {
	opts, err := remotecommand.NewOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !s.logs.running(pod.UID, container) { // the book hears of a run first (see containerLogFor)
		http.Error(w, fmt.Sprintf("container %s is not running", container), http.StatusBadRequest)
		return
	}
	run := shellRunner{pod: pod, container: containerOf(pod, container)}
	if attach {
		remotecommand.ServeAttach(w, r, run, pod.Name, string(pod.UID), container, opts, streamTimeout, streamTimeout, remotecommand.SupportedStreamingProtocols)
		return
	}
	remotecommand.ServeExec(w, r, run, pod.Name, string(pod.UID), container, r.URL.Query()["command"], opts, streamTimeout, streamTimeout, remotecommand.SupportedStreamingProtocols)
}

// shellRunner runs the shell in a container of pod: remotecommand's Executor and Attacher.
type shellRunner struct {
	pod       *corev1.Pod
	container *corev1.Container
}

func (run shellRunner) ExecInContainer(ctx context.Context, _, _, _ string, cmd []string, in io.Reader, out, errOut io.WriteCloser, tty bool, _ <-chan remotecommand.TerminalSize, _ time.Duration) error {
	sh := run.shell(in, out, errOut, tty)
	code, err := sh.start(ctx, cmd)
	if err != nil {
		// What a container runtime answers for a program it cannot find: exit code 127 and a
		// message on stderr, as `kubectl exec` shows it.
		fmt.Fprintln(sh.stderr, err)
		code = 127
	}
	if code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", code), Code: code}
	}
	return nil
}

func (run shellRunner) AttachContainer(ctx context.Context, _, _, _ string, in io.Reader, out, errOut io.WriteCloser, tty bool, _ <-chan remotecommand.TerminalSize) error {
	sh := run.shell(in, out, errOut, tty)
	sh.interactive(ctx)
	return nil
}

// shell is the container's shell: its environment, hostname and files.
func (run shellRunner) shell(in io.Reader, out, errOut io.Writer, tty bool) *shell {
	pod := run.pod
	sh := &shell{
		env:      []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME=" + pod.Name},
		hostname: pod.Name,
		files: map[string]string{
			"/etc/hostname": pod.Name + "\n",
			"/etc/hosts":    "127.0.0.1\tlocalhost\n" + pod.Status.PodIP + "\t" + pod.Name + "\n",
		},
		stdin: in, stdout: out, stderr: errOut, tty: tty,
	}
	if out == nil {
		sh.stdout = io.Discard
	}
	if errOut == nil {
		sh.stderr = sh.stdout
	}
	if tty { // a terminal turns \n into \r\n
		sh.stdout, sh.stderr = crlf{sh.stdout}, crlf{sh.stderr}
	}
	if run.container != nil {
		for _, e := range run.container.Env {
			if v, ok := envValue(pod, e); ok {
				sh.env = append(sh.env, e.Name+"="+v)
			}
		}
		downwardFiles(pod, run.container, sh.files)
	}
	return sh
}

// envValue is a variable's value: literal, or of the downward API's pod fields.
func envValue(pod *corev1.Pod, e corev1.EnvVar) (string, bool) {
	if e.ValueFrom == nil {
		return e.Value, true
	}
	if f := e.ValueFrom.FieldRef; f != nil {
		return podField(pod, f.FieldPath)
	}
	return "", false
}

// podField is the value of a downward API field path.
func podField(pod *corev1.Pod, fieldPath string) (string, bool) {
	pairs := func(m map[string]string) string {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&b, "%s=%q\n", k, m[k])
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	switch fieldPath {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), true
	case "metadata.labels":
		return pairs(pod.Labels), true
	case "metadata.annotations":
		return pairs(pod.Annotations), true
	case "spec.nodeName":
		return pod.Spec.NodeName, true
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	case "status.podIP":
		return pod.Status.PodIP, true
	case "status.hostIP":
		return pod.Status.HostIP, true
	}
	if key, ok := strings.CutPrefix(fieldPath, "metadata.labels['"); ok {
		return pod.Labels[strings.TrimSuffix(key, "']")], true
	}
	if key, ok := strings.CutPrefix(fieldPath, "metadata.annotations['"); ok {
		return pod.Annotations[strings.TrimSuffix(key, "']")], true
	}
	return "", false
}

// downwardFiles adds the files of c's downward API volumes to files, at their mount paths.
func downwardFiles(pod *corev1.Pod, c *corev1.Container, files map[string]string) {
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name != m.Name || v.DownwardAPI == nil {
				continue
			}
			for _, item := range v.DownwardAPI.Items {
				if item.FieldRef == nil {
					continue
				}
				if value, ok := podField(pod, item.FieldRef.FieldPath); ok {
					files[path.Join("/", m.MountPath, item.Path)] = value
				}
			}
		}
	}
}
