package chaintest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
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
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/chaintest"
	"github.com/apichain/apichain/servers/chain"
)

func TestZeroValueStartsAndStopsCleanly(t *testing.T) {
	var env chaintest.Environment
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	dir := env.DataDir
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("default namespace: %v", err)
	}
	// KubeConfig is a kubeconfig that works on its own.
	kc, err := clientcmd.RESTConfigFromKubeConfig(env.KubeConfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(kc).Discovery().ServerVersion(); err != nil {
		t.Errorf("with KubeConfig: %v", err)
	}
	host := env.URL()
	if err := env.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp data dir %s survived Stop: %v", dir, err)
	}
	u, _ := url.Parse(host)
	if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Stop", u.Host)
	}
}

func TestStartStopAgainAndAgain(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		env := &chaintest.Environment{}
		if _, err := env.Start(); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		if err := env.Stop(); err != nil {
			t.Fatalf("stop %d: %v", i, err)
		}
	}
	// Everything the environments started has stopped (a few library goroutines that live once
	// per process are allowed).
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return runtime.NumGoroutine() <= before+20, nil
	})
	if err != nil {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after three start/stop cycles\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

func TestEnvironmentsInParallel(t *testing.T) {
	for _, name := range []string{"a", "b", "c"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := &chaintest.Environment{}
			cfg := start(t, env)
			cs := kubernetes.NewForConfigOrDie(cfg)
			// Each environment is its own cluster: the same name in each.
			if _, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(),
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "same-name"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOpenAPIAlikeInEveryEnvironment: Environments in one process share Core's OpenAPI v3
// documents (servers/core/openapiv3.go), built by the first; what each serves is the same,
// the root document's hash of every group's document included, and so is /openapi/v2, which
// each builds itself.
func TestOpenAPIAlikeInEveryEnvironment(t *testing.T) {
	var docs [2]map[string][]byte
	for i := range docs {
		rc := kubernetes.NewForConfigOrDie(start(t, &chaintest.Environment{})).Discovery().RESTClient()
		docs[i] = map[string][]byte{}
		for _, path := range []string{"/openapi/v3", "/openapi/v2"} {
			body, err := rc.Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(context.Background())
			if err != nil {
				t.Fatalf("environment %d: GET %s: %v", i, path, err)
			}
			docs[i][path] = body
		}
	}
	var root struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(docs[0]["/openapi/v3"], &root); err != nil {
		t.Fatal(err)
	}
	for _, gv := range []string{"api/v1", "apis/apps/v1", "apis/apiextensions.k8s.io/v1", "apis/apiregistration.k8s.io/v1"} {
		if !strings.Contains(root.Paths[gv].URL, "?hash=") {
			t.Errorf("/openapi/v3 lists %s as %q, want a URL with its hash", gv, root.Paths[gv].URL)
		}
	}
	for path, first := range docs[0] {
		if second := docs[1][path]; !bytes.Equal(first, second) {
			t.Errorf("GET %s: %d bytes from the first Environment, %d differing from the second", path, len(first), len(second))
		}
	}
}

func TestCRDsAreInstalledAndServed(t *testing.T) {
	env := &chaintest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	if len(env.CRDs) != 1 || env.CRDs[0].Name != "widgets.example.apichain.io" {
		t.Fatalf("CRDs = %v", env.CRDs)
	}
	// Served as soon as Start returns.
	res, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerResourcesForGroupVersion("example.apichain.io/v1")
	if err != nil || len(res.APIResources) == 0 {
		t.Errorf("discovery for the CRD: %v %v", err, res)
	}

	missing := &chaintest.Environment{CRDDirectoryPaths: []string{"testdata/no-such-dir"}, ErrorIfCRDPathMissing: true}
	if _, err := missing.Start(); err == nil {
		missing.Stop()
		t.Error("Start with a missing CRD path succeeded")
	}
}

func TestAddUserAndKubeConfigPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	env := &chaintest.Environment{KubeConfigPath: path}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	if b, err := os.ReadFile(path); err != nil || string(b) != string(env.KubeConfig) {
		t.Errorf("KubeConfigPath: %v", err)
	}
	bob, err := env.AddUser(chaintest.User{Name: "bob", Groups: []string{"devs"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubernetes.NewForConfigOrDie(bob.Config()).CoreV1().Secrets("default").List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("bob lists secrets: %v, want Forbidden", err)
	}
	admin, err := env.AddUser(chaintest.User{Name: "root", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := admin.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Secrets("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("a system:masters user from AddUser: %v", err)
	}
}

// TestControllersCanBeChosen: by default the chain's controllers run (the readiness checks list
// their hook); an empty list runs none, as envtest's bare kube-apiserver.
func TestControllersCanBeChosen(t *testing.T) {
	hooks := func(env *chaintest.Environment) string {
		t.Helper()
		if _, err := env.Start(); err != nil {
			t.Fatal(err)
		}
		defer env.Stop()
		out, err := kubernetes.NewForConfigOrDie(env.Config).Discovery().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	const hook = "poststarthook/start-chain-controllers"
	if got := hooks(&chaintest.Environment{}); !strings.Contains(got, hook) {
		t.Errorf("default environment: /readyz does not list %s:\n%s", hook, got)
	}
	if got := hooks(&chaintest.Environment{Controllers: []string{}}); strings.Contains(got, hook) {
		t.Errorf("Controllers: []string{}: /readyz lists %s:\n%s", hook, got)
	}
}

// TestChainOptionsComeLast: ChainOptions sees the options every field has set and has the last
// word (here: no controllers, although Controllers is left to its default); Progress gets the
// start-up lines; Chain is the running chain. A child metrics server is refused before anything
// starts.
func TestChainOptionsComeLast(t *testing.T) {
	var progress strings.Builder
	env := &chaintest.Environment{Progress: &progress, ChainOptions: func(o *chain.Options) {
		if len(o.Controllers) == 0 {
			t.Errorf("ChainOptions ran before the default controllers were set")
		}
		o.Controllers = nil
	}}
	start(t, env)
	out, err := kubernetes.NewForConfigOrDie(env.Config).Discovery().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(context.Background())
	if err != nil || strings.Contains(string(out), "poststarthook/start-chain-controllers") {
		t.Errorf("ChainOptions turned the controllers off, yet /readyz (%v) lists them:\n%s", err, out)
	}
	if !strings.Contains(progress.String(), "ready: /readyz ok") {
		t.Errorf("Progress got no ready line:\n%s", progress.String())
	}
	if c := env.Chain(); c == nil || c.URL != env.URL() {
		t.Errorf("Chain() = %v, want the chain serving %s", c, env.URL())
	}

	child := &chaintest.Environment{ChainOptions: func(o *chain.Options) { o.Metrics = chain.MetricsChild }}
	if _, err := child.Start(); err == nil || !strings.Contains(err.Error(), "metrics=child") {
		child.Stop()
		t.Errorf("Start with --metrics=child: %v, want it refused", err)
	}
}

// BenchmarkEnvironmentStartStop is a zero-value Environment started and stopped, as a test
// suite does; it reports the two halves too. "no-controllers" is envtest's equivalent, a bare
// kube-apiserver (Controllers: []string{}). Both start from the bootstrap snapshot that the
// process's first Environment leaves (the benchmark's first run, of one iteration, leaves it);
// "no-snapshot" is "default" without it, every start writing the bootstrap objects itself.
func BenchmarkEnvironmentStartStop(b *testing.B) {
	b.Run("default", func(b *testing.B) {
		benchmarkStartStop(b, func() *chaintest.Environment { return &chaintest.Environment{} })
	})
	b.Run("no-controllers", func(b *testing.B) {
		benchmarkStartStop(b, func() *chaintest.Environment { return &chaintest.Environment{Controllers: []string{}} })
	})
	b.Run("no-snapshot", func(b *testing.B) {
		chaintest.SetSnapshots(false)
		defer chaintest.SetSnapshots(true)
		benchmarkStartStop(b, func() *chaintest.Environment { return &chaintest.Environment{} })
	})
}

func benchmarkStartStop(b *testing.B, newEnv func() *chaintest.Environment) {
	var start, stop time.Duration
	// The process's CPU time too: on a shared machine it moves far less with the load than
	// the wall-clock time does.
	cpu0 := processCPU(b)
	for i := 0; i < b.N; i++ {
		env := newEnv()
		t0 := time.Now()
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
		start, stop = start+t1.Sub(t0), stop+time.Since(t1)
	}
	b.ReportMetric(start.Seconds()/float64(b.N), "s-start")
	b.ReportMetric(stop.Seconds()/float64(b.N), "s-stop")
	b.ReportMetric((processCPU(b)-cpu0).Seconds()/float64(b.N), "s-cpu")
}

// processCPU is the CPU time (user and system) this process has used so far.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// TestNamespaceWithPodOfMissingNodeGoes: by default an Environment runs the pod garbage
// collector, so a namespace holding a pod bound to a node that does not exist (no kubelet will
// ever finish it) is deleted all the same.
func TestNamespaceWithPodOfMissingNodeGoes(t *testing.T) {
	env := &chaintest.Environment{}
	cfg := start(t, env)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "orphans"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "stuck"},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.CoreV1().Pods("orphans").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "orphans", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "orphans", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		ns, _ := cs.CoreV1().Namespaces().Get(ctx, "orphans", metav1.GetOptions{})
		t.Fatalf("the namespace is still there: %v\n%+v", err, ns.Status)
	}
}

// start starts env and stops it when the test ends, failing the test if either fails.
func start(t *testing.T, env *chaintest.Environment) *rest.Config {
	t.Helper()
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	return cfg
}
