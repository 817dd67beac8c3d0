package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/collector"
	"github.com/apichain/apichain/test/testchain"
)

// TestTraceMetricsChild: the metrics server runs as the chain's child process and reports its
// spans to the chain's ring. `kubectl top node` as admin is then one trace: the chain's proxy
// hop, and below it the metrics server's own server span, its delegated authentication (the
// front proxy it trusted), its authorization and its storage read. For a user outside
// system:masters, the metrics server starts a trace of its own, linked to the chain's call, and
// its SubjectAccessReview back to the chain is a trace of the chain's, linked to that one.
func TestTraceMetricsChild(t *testing.T) {
	r := startBinary(t, "--nodes", "1", "--metric-resolution", "1s")
	defer r.stop(t)
	kubeconfig := filepath.Join(r.dir, "admin.kubeconfig")
	admin, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mc := metricsclient.NewForConfigOrDie(admin)
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 2, nil
	}); err != nil {
		t.Fatalf("no node metrics: %v", err)
	}

	t.Run("kubectl top node", func(t *testing.T) {
		const path = "/apis/metrics.k8s.io/v1beta1/nodes"
		if kubectl, err := exec.LookPath("kubectl"); err == nil {
			if out, err := exec.Command(kubectl, "top", "node", "--kubeconfig", kubeconfig).CombinedOutput(); err != nil {
				t.Fatalf("kubectl top node: %v\n%s", err, out)
			}
		} else if _, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err) // what kubectl top node sends
		}
		tr := waitTrace(t, kubeconfig, "kubectl top node's trace with the metrics server's hops", path, func(tr *tracing.Trace) bool {
			return tr.Request.Path == path && tr.Request.User == "admin" && findSpan(tr.Spans, metricsServerSpan(path)) != nil
		})
		proxy := findSpan(tr.Spans, named(tracing.SpanProxy))
		if proxy == nil {
			t.Fatalf("no proxy span:\n%s", dump(tr))
		}
		remote := findSpan(proxy.Children, metricsServerSpan(path))
		if remote == nil {
			t.Fatalf("the metrics server's span is not below the proxy's:\n%s", dump(tr))
		}
		if remote.Attributes["http.response.status_code"] != "200" {
			t.Errorf("the metrics server's span: %v", remote.Attributes)
		}
		authn := child(remote, tracing.SpanAuthentication)
		if authn == nil || authn.Service != "metrics-server" {
			t.Fatalf("no authentication in the metrics server's span:\n%s", dump(tr))
		}
		if a := authn.Attributes; a[tracing.AttrAuthenticator] != "front-proxy" || a[tracing.AttrUser] != "admin" ||
			!strings.Contains(a[tracing.AttrGroups], "system:masters") || a[tracing.AttrFrontProxyClient] == "" ||
			!strings.Contains(a[tracing.AttrFrontProxyHeaders], "X-Remote-User") {
			t.Errorf("the metrics server's authentication: %v", a)
		}
		if authz := child(remote, tracing.SpanAuthorization); authz == nil || authz.Attributes[tracing.AttrDecision] != "allow" {
			t.Errorf("the metrics server's authorization: %+v", authz)
		}
		read := findSpan(remote.Children, named(tracing.StorageSpanName("read")))
		if read == nil || read.Service != "metrics-server" || read.Attributes[tracing.AttrMetricsAsked] != "2" || read.Attributes[tracing.AttrMetricsFound] != "2" {
			t.Errorf("the metrics server's storage read: %+v\n%s", read, dump(tr))
		}
	})

	t.Run("a user the metrics server asks the chain about", func(t *testing.T) {
		cs := kubernetes.NewForConfigOrDie(admin)
		role := &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "test-node-metrics-reader"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"nodes"}, Verbs: []string{"list"}}},
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "metrics-viewer"}},
		}
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// admin acting as metrics-viewer: the Aggregator names metrics-viewer to the metrics
		// server, which, for a user outside system:masters, asks the chain.
		viewer := rest.CopyConfig(admin)
		viewer.Impersonate = rest.ImpersonationConfig{UserName: "metrics-viewer"}
		vc := metricsclient.NewForConfigOrDie(viewer)
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := vc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
			return err == nil, nil
		}); err != nil {
			t.Fatalf("metrics-viewer listing node metrics: %v", err)
		}
		const path = "/apis/metrics.k8s.io/v1beta1/nodes"
		var chainSide, remote, review *tracing.Trace
		waitTraces(t, kubeconfig, "the chain's, the metrics server's and the SubjectAccessReview's traces, linked", []string{path, "/apis/authorization.k8s.io/v1/subjectaccessreviews"}, func(trs []*tracing.Trace) bool {
			chainSide, remote, review = nil, nil, nil
			// The metrics server's trace of metrics-viewer's request, and the chain's that it
			// links to (the chain's user is admin, who acts as metrics-viewer).
			for _, tr := range trs {
				if tr.Request.Path == path && tr.Request.User == "metrics-viewer" && len(tr.Spans) > 0 && tr.Spans[0].Service == "metrics-server" {
					remote = tr
				}
			}
			if remote == nil {
				return false
			}
			for _, tr := range trs {
				if len(tr.Spans) == 0 || tr.Spans[0].Service != tracing.ServiceName || tr.Request.Path != path {
					continue
				}
				if call := findSpan(tr.Spans, named("HTTP GET")); call != nil && linkedTo(remote.Spans[0], tr.TraceID, call.SpanID) {
					chainSide = tr
				}
			}
			if chainSide == nil {
				return false
			}
			for _, tr := range trs {
				if tr.Request.Path == "/apis/authorization.k8s.io/v1/subjectaccessreviews" && tr.Request.User == "system:metrics-server" &&
					len(tr.Spans) > 0 && linkedTo(tr.Spans[0], remote.TraceID, "") {
					review = tr
				}
			}
			return review != nil
		})
		if findSpan(chainSide.Spans, named(tracing.SpanProxy)) == nil {
			t.Errorf("the chain's trace that the metrics server's links to has no proxy hop:\n%s", dump(chainSide))
		}
		authz := findSpan(remote.Spans, named(tracing.SpanAuthorization))
		if authz == nil || authz.Attributes[tracing.AttrDecision] != "allow" {
			t.Fatalf("the metrics server's authorization:\n%s", dump(remote))
		}
		// The review's call is below the metrics server's authorization, and the chain's trace
		// of the review links to that call.
		sar := findSpan(authz.Children, func(s *tracing.Span) bool { return s.Kind == "client" && strings.HasPrefix(s.Name, "HTTP POST") })
		if sar == nil || !linkedTo(review.Spans[0], remote.TraceID, sar.SpanID) {
			t.Errorf("the SubjectAccessReview's call below the metrics server's authorization, and the chain's review linked to it:\n%s\n%s", dump(remote), dump(review))
		}
		if a := findSpan(review.Spans, named(tracing.SpanAuthorization)); a == nil || a.Attributes[tracing.AttrDecision] != "allow" {
			t.Errorf("the chain's authorization of the review:\n%s", dump(review))
		}
	})
}

// TestTraceKubeletHop: each kubectl command that Core passes on to a kubelet is one trace:
// Core's client span to the node's kubelet, which names the endpoint it dialled and the status
// code of the answer, and below it the kubelet's own span (service kubelet), which says how the
// kubelet knew the caller, what the chain's SubjectAccessReview allowed and what it answered.
// exec and attach switch protocols: their code is 101, and their trace context must reach the
// kubelet whether kubectl speaks WebSocket (which Core translates to a request of its own) or
// SPDY (which Core proxies as it is).
func TestTraceKubeletHop(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	r := startBinary(t, "--nodes", "1", "--metrics", "off")
	defer r.stop(t)
	kubeconfig := filepath.Join(r.dir, "admin.kubeconfig")
	admin, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(admin)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "greeter", Annotations: map[string]string{"apichain.io/log": "hello from the chain"}},
		Spec: corev1.PodSpec{NodeName: "sim-node-1", Containers: []corev1.Container{
			{Name: "greeter", Image: "busybox", Stdin: true}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "greeter", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, nil
	}); err != nil {
		t.Fatalf("the pod does not run: %v", err)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, "sim-node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	endpoints := map[string]bool{}
	for _, a := range node.Status.Addresses {
		endpoints[net.JoinHostPort(a.Address, strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)))] = true
	}

	seen := map[string]bool{} // traces an earlier subtest checked: exec's two look alike
	for _, c := range []struct {
		name        string
		args        []string
		env         []string
		stdin       string
		want        string // in kubectl's output
		path        string // of the chain request
		kubeletPath string
		kubeletSpan string
		code        string
	}{
		{name: "logs", args: []string{"logs", "greeter"}, want: "hello from the chain",
			path: "/api/v1/namespaces/default/pods/greeter/log", kubeletPath: "/containerLogs/default/greeter/greeter",
			kubeletSpan: "GET /containerLogs", code: "200"},
		{name: "exec over WebSocket", args: []string{"exec", "greeter", "--", "echo", "over websocket"}, want: "over websocket",
			path: "/api/v1/namespaces/default/pods/greeter/exec", kubeletPath: "/exec/default/greeter/greeter",
			kubeletSpan: "POST /exec", code: "101"},
		{name: "exec over SPDY", args: []string{"exec", "greeter", "--", "echo", "over spdy"}, want: "over spdy",
			env:  []string{"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"},
			path: "/api/v1/namespaces/default/pods/greeter/exec", kubeletPath: "/exec/default/greeter/greeter",
			kubeletSpan: "POST /exec", code: "101"},
		{name: "attach", args: []string{"attach", "-i", "greeter"}, stdin: "echo attached\nexit\n", want: "attached",
			path: "/api/v1/namespaces/default/pods/greeter/attach", kubeletPath: "/attach/default/greeter/greeter",
			kubeletSpan: "POST /attach", code: "101"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, c.args...)...)
			cmd.Env = append(os.Environ(), c.env...)
			cmd.Stdin = strings.NewReader(c.stdin)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(c.args, " "), err, out)
			}
			tr := waitTrace(t, kubeconfig, "the trace with the kubelet's span", c.path, func(tr *tracing.Trace) bool {
				return !seen[tr.TraceID] && tr.Request.Path == c.path &&
					findSpan(tr.Spans, func(s *tracing.Span) bool { return s.Service == tracing.KubeletService }) != nil
			})
			seen[tr.TraceID] = true
			if tr.Request.Server != "core>kubelet:sim-node-1" {
				t.Errorf("request: %+v", tr.Request)
			}
			core := findSpan(tr.Spans, named("core"))
			if core == nil {
				t.Fatalf("no core span:\n%s", dump(tr))
			}
			hop := findSpan(core.Children, named(tracing.SpanKubelet))
			if hop == nil || hop.Kind != "client" || hop.Service != tracing.ServiceName {
				t.Fatalf("no client span of Core's hop to the kubelet below core:\n%s", dump(tr))
			}
			if a := hop.Attributes; a[tracing.AttrNode] != "sim-node-1" || a[tracing.AttrKubeletPath] != c.kubeletPath ||
				!endpoints[a[tracing.AttrEndpoint]] || a[tracing.AttrStatusCode] != c.code {
				t.Errorf("Core's hop: %v; want endpoint one of %v and status code %s", a, endpoints, c.code)
			}
			var kubelet *tracing.Span
			for _, s := range hop.Children {
				if s.Service == tracing.KubeletService && s.Kind == "server" {
					kubelet = s
				}
			}
			if kubelet == nil {
				t.Fatalf("the kubelet's span is not below Core's hop:\n%s", dump(tr))
			}
			if a := kubelet.Attributes; kubelet.Name != c.kubeletSpan || a[tracing.AttrNode] != "sim-node-1" ||
				a[tracing.AttrAuthenticator] != "x509" || a[tracing.AttrUser] != "kube-apiserver-kubelet-client" ||
				a[tracing.AttrDecision] != "allow" || a[tracing.AttrStatusCode] != c.code {
				t.Errorf("the kubelet's span %q: %v", kubelet.Name, a)
			}
		})
	}
}

// TestTraceExportBothServices: with --tracing-config-file, the chain passes the file to its
// metrics-server child, and both export to the collector it names (a real OTLP/gRPC receiver
// here): one trace of kubectl top node holds spans of service apichain and of service
// metrics-server, the latter below the chain's call to it.
func TestTraceExportBothServices(t *testing.T) {
	col, endpoint := collector.Start(t)
	config := testchain.TracingConfigFile(t, endpoint)
	r := startBinary(t, "--nodes", "1", "--metric-resolution", "1s", "--tracing-config-file", config)
	defer r.stop(t)
	admin, err := clientcmd.BuildConfigFromFlags("", filepath.Join(r.dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(admin)
	const path = "/apis/metrics.k8s.io/v1beta1/nodes"
	var chainSpans, remoteSpans []*collector.Span
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		// What kubectl top node sends; again until a trace shows both (the first ones may
		// find no metrics server yet, and the exporters send in batches).
		_, _ = mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		got := col.Received()
		byTrace := map[string][]*collector.Span{}
		for _, s := range got {
			byTrace[string(s.TraceId)] = append(byTrace[string(s.TraceId)], s)
		}
		for _, s := range got {
			if s.Service != tracing.ServiceName || s.Kind != tracepb.Span_SPAN_KIND_SERVER || collector.Attr(s.Span, "url.path") != path {
				continue
			}
			var remote []*collector.Span
			for _, o := range byTrace[string(s.TraceId)] {
				if o.Service == "metrics-server" {
					remote = append(remote, o)
				}
			}
			if len(remote) > 0 {
				chainSpans, remoteSpans = byTrace[string(s.TraceId)], remote
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		services := map[string]int{}
		for _, s := range col.Received() {
			services[s.Service]++
		}
		t.Fatalf("no trace of %s with spans of both apichain and metrics-server: %v; spans received by service: %v", path, err, services)
	}
	// The metrics server's server span is a child of the chain's client span to it.
	calls := map[string]bool{}
	for _, s := range chainSpans {
		if s.Service == tracing.ServiceName && s.Kind == tracepb.Span_SPAN_KIND_CLIENT {
			calls[string(s.SpanId)] = true
		}
	}
	var server *collector.Span
	for _, s := range remoteSpans {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			server = s
		}
	}
	if server == nil || !calls[string(server.ParentSpanId)] {
		t.Errorf("the metrics server's server span is not a child of the chain's call: %v", server)
	}
}

// waitTrace polls `chain trace -o json` for path until a trace satisfies cond, and returns it.
func waitTrace(t *testing.T, kubeconfig, what, path string, cond func(*tracing.Trace) bool) *tracing.Trace {
	t.Helper()
	var found *tracing.Trace
	waitTraces(t, kubeconfig, what, []string{path}, func(trs []*tracing.Trace) bool {
		for _, tr := range trs {
			if cond(tr) {
				found = tr
			}
		}
		return found != nil
	})
	return found
}

// waitTraces polls the 50 most recent traces of each path, as `chain trace -o json --path`
// prints them, until cond holds for them.
func waitTraces(t *testing.T, kubeconfig, what string, paths []string, cond func([]*tracing.Trace) bool) {
	t.Helper()
	var last []*tracing.Trace
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		last = nil
		for _, path := range paths {
			out, err := exec.Command(build(t), "trace", "--kubeconfig", kubeconfig, "-o", "json", "--last", "50", "--path", path).Output()
			if err != nil {
				return false, fmt.Errorf("chain trace: %w", err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if line == "" {
					continue
				}
				var tr tracing.Trace
				if err := json.Unmarshal([]byte(line), &tr); err != nil {
					return false, fmt.Errorf("a line of chain trace -o json: %w\n%s", err, line)
				}
				last = append(last, &tr)
			}
		}
		return cond(last), nil
	})
	if err != nil {
		var b strings.Builder
		for _, tr := range last {
			b.WriteString(dump(tr) + "\n")
		}
		t.Fatalf("waiting for %s: %v\nthe last traces read:\n%s", what, err, b.String())
	}
}

// findSpan is the first span in spans' trees for which match holds, depth first, or nil.
func findSpan(spans []*tracing.Span, match func(*tracing.Span) bool) *tracing.Span {
	for _, s := range spans {
		if match(s) {
			return s
		}
		if f := findSpan(s.Children, match); f != nil {
			return f
		}
	}
	return nil
}

func named(name string) func(*tracing.Span) bool {
	return func(s *tracing.Span) bool { return s.Name == name }
}

// metricsServerSpan matches the metrics server's server span of a request for path.
func metricsServerSpan(path string) func(*tracing.Span) bool {
	return func(s *tracing.Span) bool {
		return s.Service == "metrics-server" && s.Kind == "server" && strings.HasSuffix(s.Name, path)
	}
}

// linkedTo says whether s links to a span of trace traceID (spanID too, unless empty).
func linkedTo(s *tracing.Span, traceID, spanID string) bool {
	for _, l := range s.Links {
		if l.TraceID == traceID && (spanID == "" || l.SpanID == spanID) {
			return true
		}
	}
	return false
}

// dump is a trace as a tree of span names, services, kinds and attributes, for a failure.
func dump(tr *tracing.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "trace %s: %+v\n", tr.TraceID, tr.Request)
	var walk func(spans []*tracing.Span, depth int)
	walk = func(spans []*tracing.Span, depth int) {
		for _, s := range spans {
			fmt.Fprintf(&b, "%s%s [%s %s] %s links=%v attrs=%v\n", strings.Repeat("  ", depth+1), s.Name, s.Service, s.Kind, s.SpanID, s.Links, s.Attributes)
			walk(s.Children, depth+1)
		}
	}
	walk(tr.Spans, 0)
	return b.String()
}
