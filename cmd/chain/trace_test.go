package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/chaintest"
	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/anchor"
	"github.com/apichain/apichain/test/testchain"
)

// TestTraceWithoutChain: `chain trace` with no chain to follow says so and exits 1, whether no
// kubeconfig names one or the one named does not answer.
func TestTraceWithoutChain(t *testing.T) {
	bin := build(t)

	// A port that was free a moment ago and is closed now: nothing answers there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://%s", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`, addr)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	home := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"no kubeconfig", nil, []string{"KUBECONFIG=", "HOME=" + home}, "no kubeconfig names a chain"},
		{"no chain at the kubeconfig's server", []string{"--kubeconfig", kubeconfig}, nil, "no chain answers at https://" + addr + ": connection refused"},
		{"KUBECONFIG as kubectl reads it", nil, []string{"KUBECONFIG=" + kubeconfig}, "no chain answers at https://" + addr},
		{"-o json, without a chain too", []string{"--kubeconfig", kubeconfig, "-o", "json"}, nil, "no chain answers at https://" + addr},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"trace"}, c.args...)...)
			cmd.Env = append(os.Environ(), c.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("chain trace %v: %v, want exit 1; output:\n%s", c.args, err, out)
			}
			if !strings.HasPrefix(string(out), "error: ") || !strings.Contains(string(out), c.want) {
				t.Errorf("chain trace %v said:\n%s\nwant an error that says %q", c.args, out, c.want)
			}
		})
	}
}

// traceChain is a chain that records traces, for `chain trace` to follow, with its admin's
// kubeconfig and a user without rights.
type traceChain struct {
	*chain.Chain
	client   kubernetes.Interface
	nobody   string // kubeconfig of user "nobody", who may read nothing
	nobodyCS kubernetes.Interface
}

func startTraceChain(t *testing.T, mods ...func(*chain.Options)) *traceChain {
	t.Helper()
	env := testchain.Environment(append([]func(*chain.Options){func(o *chain.Options) {
		o.RecordTraces = true
		o.Metrics = chain.MetricsOff
		o.Nodes = 0
	}}, mods...)...)
	if _, err := env.Start(); err != nil {
		t.Fatalf("starting chain: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping chain: %v", err)
		}
	})
	c := env.Chain()
	client, err := kubernetes.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	nobody, err := env.AddUser(chaintest.User{Name: "nobody"}, c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := nobody.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nobody.kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	nobodyCS, err := kubernetes.NewForConfig(nobody.Config())
	if err != nil {
		t.Fatal(err)
	}
	return &traceChain{Chain: c, client: client, nobody: path, nobodyCS: nobodyCS}
}

// follower is `chain trace` following a chain, its output collected as it comes.
type follower struct {
	cmd         *exec.Cmd
	out, stderr *anchor.LockedBuffer
	done        chan error
}

// follow starts `chain trace args...` and waits until it says it follows the chain (from then
// on, every request the chain completes reaches it).
func follow(t *testing.T, kubeconfig string, args ...string) *follower {
	t.Helper()
	cmd := exec.Command(build(t), append([]string{"trace", "--kubeconfig", kubeconfig}, args...)...)
	f := &follower{cmd: cmd, out: &anchor.LockedBuffer{}, stderr: &anchor.LockedBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = f.out, f.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { f.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-f.done
	})
	f.waitFor(t, "chain trace to follow the chain", func(_, stderr string) bool {
		return strings.Contains(stderr, "following the requests") || strings.Contains(stderr, "the page is at") ||
			strings.Contains(f.out.String(), "the page is at")
	})
	return f
}

// waitFor polls f's output until cond holds, and fails t if f exits first or cond does not
// hold within two minutes.
func (f *follower) waitFor(t *testing.T, what string, cond func(out, stderr string) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		if cond(f.out.String(), f.stderr.String()) {
			return true, nil
		}
		select {
		case err := <-f.done:
			f.done <- err
			return false, fmt.Errorf("chain trace exited: %v", err)
		default:
			return false, nil
		}
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v\nstdout:\n%s\nstderr:\n%s", what, err, f.out, f.stderr)
	}
}

// interrupt is Ctrl-C: chain trace stops, exit 0.
func (f *follower) interrupt(t *testing.T) {
	t.Helper()
	if err := f.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.done:
		f.done <- err
		if err != nil {
			t.Errorf("chain trace after Ctrl-C: %v, want exit 0; stderr:\n%s", err, f.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("chain trace did not stop within a minute of Ctrl-C")
	}
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
}

// TestTrace follows a real chain with the real binary: the tree of each request as it
// completes, the filters, -o json, a reader without rights, and the page (trace_web_test.go).
func TestTrace(t *testing.T) {
	c := startTraceChain(t)
	ctx := context.Background()
	for _, ns := range []string{"trace-a", "trace-b"} {
		if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("tree and filters", func(t *testing.T) {
		f := follow(t, c.KubeconfigPath, "--path", "/api/v1/namespaces/*/configmaps", "--verb", "create,delete")
		cms := c.client.CoreV1().ConfigMaps("trace-a")
		if _, err := cms.Create(ctx, configMap("one"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Get(ctx, "one", metav1.GetOptions{}); err != nil { // not a filtered verb
			t.Fatal(err)
		}
		if _, err := c.client.CoreV1().Secrets("trace-a").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil { // not the path
			t.Fatal(err)
		}
		if _, err := c.client.CoreV1().ConfigMaps("trace-b").Create(ctx, configMap("two"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, "the second create", func(out, _ string) bool {
			return strings.Contains(out, "create /api/v1/namespaces/trace-b/configmaps")
		})
		f.interrupt(t)
		out := f.out.String()
		// Each request: its summary line, then its hops as an indented tree with when each
		// started and how long it took.
		summary := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3}  create /api/v1/namespaces/trace-a/configmaps  user=admin  201  answered by core  [\d.]+m?s$`)
		if !summary.MatchString(out) {
			t.Errorf("no summary line of the first create in:\n%s", out)
		}
		for _, hop := range []string{
			`(?m)^  ├─ authentication +[-+][\d.]+ms +[\d.]+ms  authenticator=x509 user=admin groups=system:masters,system:authenticated$`,
			`(?m)^  ├─ authorization +\+[\d.]+ms +[\d.]+ms  verb=create decision=allow `,
			`(?m)^  └─ aggregator +\+[\d.]+ms +[\d.]+ms  handed_on_because=".+" answered_by=core$`,
			`(?m)^     └─ core +\+[\d.]+ms +[\d.]+ms  answered=true$`,
			`(?m)^ +[├└]─ validating admission +\+[\d.]+ms +[\d.]+ms  admission.operation=CREATE$`,
			`(?m)^ +│ +[├└]─ ValidatingAdmissionWebhook +\+[\d.]+ms +[\d.]+ms$`, // each plugin a step of its phase
			`(?m)^ +[├└]─ storage create +\+[\d.]+ms +[\d.]+ms  storage.operation=create storage.key=/registry/configmaps/trace-a/one storage.revision=\d+`,
		} {
			if !regexp.MustCompile(hop).MatchString(out) {
				t.Errorf("no hop matching %s in:\n%s", hop, out)
			}
		}
		for _, not := range []string{"get /api/v1/namespaces/trace-a/configmaps/one", "/secrets", "/debug/apichain/traces"} {
			if strings.Contains(out, not) {
				t.Errorf("%q passed the filters:\n%s", not, out)
			}
		}
		if n := len(summaryLines(out)); n != 2 {
			t.Errorf("%d requests printed, want the 2 creates of configmaps:\n%s", n, out)
		}
	})

	t.Run("user and slower-than", func(t *testing.T) {
		// nobody's request is denied, and traced; admin's are not nobody's.
		_, err := c.nobodyCS.CoreV1().ConfigMaps("trace-a").Get(ctx, "one", metav1.GetOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("nobody reading a configmap: %v, want 403", err)
		}
		out := runTrace(t, c.KubeconfigPath, "--last", "1", "--user", "nobody")
		if !strings.Contains(out, "get /api/v1/namespaces/trace-a/configmaps/one  user=nobody  403") ||
			!regexp.MustCompile(`(?m)authorization .* decision=deny`).MatchString(out) {
			t.Errorf("chain trace --user nobody --last 1:\n%s\nwant nobody's GET, 403, with its denial", out)
		}
		if n := len(summaryLines(out)); n != 1 {
			t.Errorf("%d requests printed, want 1:\n%s", n, out)
		}
		if out := runTrace(t, c.KubeconfigPath, "--last", "50", "--slower-than", "1h"); out != "" {
			t.Errorf("chain trace --slower-than 1h printed requests:\n%s", out)
		}
		if n := len(summaryLines(runTrace(t, c.KubeconfigPath, "--last", "3", "--slower-than", "1ns"))); n != 3 {
			t.Errorf("chain trace --last 3 --slower-than 1ns printed %d requests, want 3", n)
		}
	})

	t.Run("json", func(t *testing.T) {
		out := runTrace(t, c.KubeconfigPath, "-o", "json", "--last", "2", "--path", "/api/v1/namespaces/trace-", "--verb", "create")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			t.Fatalf("chain trace -o json --last 2: %d lines, want 2:\n%s", len(lines), out)
		}
		var last tracing.Trace
		for i, line := range lines {
			if err := json.Unmarshal([]byte(line), &last); err != nil {
				t.Fatalf("line %d is not a trace: %v\n%s", i+1, err, line)
			}
		}
		if r := last.Request; r.Verb != "create" || r.Path != "/api/v1/namespaces/trace-b/configmaps" || r.User != "admin" || r.Code != 201 || r.Server != "core" {
			t.Errorf("the last trace's request: %+v", r)
		}
		if last.TraceID == "" || last.Seq == 0 || last.DurationMs <= 0 || len(last.Spans) != 1 {
			t.Fatalf("the last trace: %s", lines[1])
		}
		// The path through the chain: the head's span → aggregator → core → Create → storage.
		path := []string{"aggregator", "core", "Create", "storage create"}
		s := last.Spans[0]
		for _, name := range path {
			s = child(s, name)
			if s == nil {
				t.Fatalf("no %q on the path %v in:\n%s", name, path, lines[1])
			}
			if s.Service != tracing.ServiceName || s.SpanID == "" || s.ParentID == "" || s.Start.IsZero() {
				t.Errorf("span %q: %+v", name, s)
			}
		}
		if s.Attributes[tracing.AttrStorageKey] != "/registry/configmaps/trace-b/two" {
			t.Errorf("storage create's attributes: %v", s.Attributes)
		}
	})

	t.Run("a reader without rights", func(t *testing.T) {
		cmd := exec.Command(build(t), "trace", "--kubeconfig", c.nobody, "--last", "1")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("chain trace as nobody: %v, want exit 1; output:\n%s", err, out)
		}
		for _, want := range []string{"403 Forbidden", `user "nobody"`, "apichain:trace-reader", "kubectl create clusterrolebinding"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("chain trace as nobody said:\n%s\nwant it to say %q", out, want)
			}
		}
	})

	t.Run("page", func(t *testing.T) { testTracePage(t, c) })
}

// TestTraceUnderLoad: a started chain records at most --record-traces-per-second new requests a
// second (and a burst of as many), and `chain trace` says how many it passed over.
func TestTraceUnderLoad(t *testing.T) {
	c := startTraceChain(t, func(o *chain.Options) { o.RecordTracesPerSecond = 5 })
	cfg := rest.CopyConfig(c.Admin)
	cfg.QPS = -1 // no client-side rate limit: the requests must come faster than the chain records them
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	requests := make(chan struct{})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range requests {
				if _, err := client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 1200 {
		requests <- struct{}{}
	}
	close(requests)
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

	// A request of its own, again until the chain has room to record one (at 5 a second, soon).
	const path = "/api/v1/namespaces/default/configmaps/under-load"
	var out string
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		if _, err := client.CoreV1().ConfigMaps("default").Get(ctx, "under-load", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("get under-load: %v, want NotFound", err)
		}
		out = runTrace(t, c.KubeconfigPath, "--last", "1", "--path", path)
		return strings.Contains(out, "get "+path), nil
	}); err != nil {
		t.Fatalf("no trace of %s: %v; last output:\n%s", path, err, out)
	}
	m := regexp.MustCompile(`(?m)^… (\d+) requests not recorded \(under load, the chain records at most --record-traces-per-second\)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no note of the requests not recorded before the request:\n%s", out)
	}
	// Of 1,200 requests and more (the chain's own controllers make some), the chain recorded a
	// burst of 5 and 5 a second.
	if n, _ := strconv.Atoi(m[1]); n < 1000 {
		t.Errorf("%d requests not recorded, want nearly all of the 1,200", n)
	}
	if !strings.HasPrefix(out, m[0]) {
		t.Errorf("the note does not come before the request:\n%s", out)
	}
}

// runTrace runs `chain trace args...` to its end and returns its standard output.
func runTrace(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	cmd := exec.Command(build(t), append([]string{"trace", "--kubeconfig", kubeconfig}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chain trace %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// summaryLines are the lines of a tree that begin a request.
func summaryLines(out string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3}  `).MatchString(sc.Text()) {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// child is s's child named name, or nil.
func child(s *tracing.Span, name string) *tracing.Span {
	for _, c := range s.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}
