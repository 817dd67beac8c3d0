package scale

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/test/anchor"
	"github.com/apichain/apichain/test/soak"
)

var (
	nodes     = flag.Int("scale.nodes", 50, "nodes the client creates (annotated kwok.x-k8s.io/node=fake)")
	pods      = flag.Int("scale.pods", 500, "pods the client creates, spread over the nodes round-robin by spec.nodeName")
	parallel  = flag.Int("scale.parallel", 8, "creates in flight at once")
	idle      = flag.Duration("scale.idle", 30*time.Second, "how long each server is left alone after its pods run, for its idle CPU")
	replicas  = flag.Int("scale.replicas", 0, "if set, a Deployment of this many replicas is timed until rolled out (the chain only: the reference has no controllers)")
	deleteNS  = flag.Bool("scale.delete", true, "time the deletion of the namespace holding the pods (the chain only)")
	topFlag   = flag.Bool("scale.top", true, "time kubectl top node and kubectl top pod -A (the chain only; skipped without kubectl)")
	anchorOn  = flag.Bool("scale.anchor", true, "run the same workload against kube-apiserver + etcd + kwok, where they are built")
	kwokLease = flag.Int("scale.kwok-lease-seconds", 40, "kwok's --node-lease-duration-seconds: 40, a kubelet's, renews every 10 s as the chain's kubelets do; kwokctl's default is 200 (40 × its heartbeat factor 5)")
	chainArgs = flag.String("scale.chain-args", "--record-traces=false", "more flags for the chain (space-separated); by default it records no traces, like for like with kube-apiserver")
	binary    = flag.String("scale.bin", "", "a chain binary (go build -o /tmp/chain ./cmd/chain); default this test binary, run as the chain")
	timeout   = flag.Duration("scale.timeout", time.Hour, "the longest one side may take")
	profiles  = flag.String("scale.profiles", "", "a directory to save the chain's CPU profiles over the nodes-Ready and pods-Running steps (5 s chunks) and its heap profile once the pods run; profiling perturbs the figures")
)

func TestMain(m *testing.M) {
	soak.ServeAsChainIfAsked()
	os.Exit(m.Run())
}

// BenchmarkScale puts -scale.nodes nodes and -scale.pods pods on the chain binary and, where it
// is built, on kube-apiserver + etcd + kwok, one after the other, and reports both sides'
// figures and their ratios (chain / reference). One run is one iteration: use -benchtime 1x.
func BenchmarkScale(b *testing.B) {
	w := Workload{Nodes: *nodes, Pods: *pods, Parallel: *parallel, Idle: *idle, Logf: b.Logf}
	chain := w
	chain.Replicas, chain.DeleteNamespace = *replicas, *deleteNS
	chain.Profiles = profilesIn(*profiles)
	var c Figures
	err := runChain(b, chain, *topFlag, &c)
	report(b, "", c)
	if err != nil {
		b.Fatal(err)
	}

	if !*anchorOn {
		b.Logf("the chain only: -scale.anchor=false")
		return
	}
	if ok, why := anchor.Available(); !ok {
		b.Logf("the chain only: %s", why)
		return
	}
	var a Figures
	err = runAnchor(b, w, &a)
	report(b, "anchor-", a)
	if err != nil {
		b.Fatal(err)
	}
	ratio := func(name string, chain, ref float64) {
		if chain > 0 && ref > 0 {
			b.ReportMetric(chain/ref, "ratio-"+name)
		}
	}
	ratio("nodes-ready", c.NodesReady.Seconds(), a.NodesReady.Seconds())
	ratio("pods-running", c.PodsRunning.Seconds(), a.PodsRunning.Seconds())
	ratio("cpu", c.CPUSeconds, a.CPUSeconds)
	ratio("idle-cpu", c.IdleCPU, a.IdleCPU)
	ratio("rss", c.RSSMiB, a.RSSMiB)
}

// TestScale runs the benchmark's workload, small, against the chain: nodes created with kwok's
// annotation become Ready, pods bound to them run, kubectl top answers for them, a Deployment
// rolls out and the namespace goes, each within its step's bound.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the chain binary")
	}
	w := Workload{Nodes: 3, Pods: 12, Parallel: 4, Replicas: 3, DeleteNamespace: true, Logf: t.Logf}
	dir := t.TempDir()
	w.Profiles = profilesIn(dir)
	_, err := exec.LookPath("kubectl")
	withTop := err == nil
	var f Figures
	if err := runChain(t, w, withTop, &f, "--metric-resolution=1s"); err != nil {
		t.Fatal(err)
	}
	report(t, "", f)
	if f.CPUSeconds <= 0 || f.RSSMiB <= 0 {
		t.Errorf("no CPU time or memory read for the chain's processes: %+v", f)
	}
	if !withTop {
		t.Logf("kubectl top not timed: no kubectl")
	}
	for _, name := range []string{"cpu-nodes-ready-00.pb.gz", "cpu-pods-running-00.pb.gz", "heap-pods-running.pb.gz"} {
		if err := isProfile(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// profilesIn is where the chain's profiles go, or nil for none.
func profilesIn(dir string) *Profiles {
	if dir == "" {
		return nil
	}
	return &Profiles{Dir: dir}
}

// runChain starts the chain binary with no simulated nodes of its own and puts w on it, with
// kubectl top if top says so. Flags given add to -scale.chain-args.
func runChain(tb testing.TB, w Workload, top bool, f *Figures, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	port, err := soak.FreePort()
	if err != nil {
		return err
	}
	log := &anchor.LockedBuffer{}
	p := &soak.Process{Bin: *binary, DataDir: filepath.Join(tb.TempDir(), "data"), Port: port, Log: log,
		Args: append(append([]string{"--nodes=0", "--unsafe-no-fsync"}, strings.Fields(*chainArgs)...), args...)}
	if p.Bin == "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		p.Bin, p.Env = self, []string{soak.RunAsChainEnv + "=1"}
	}
	if err := p.Start(ctx); err != nil {
		tb.Logf("the chain's output:\n%s", log)
		return err
	}
	defer func() {
		if err := p.Stop(); err != nil {
			tb.Errorf("%v; its output:\n%s", err, log)
		}
	}()
	cfg, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig())
	if err != nil {
		return err
	}
	w.ServiceAccounts = true
	if w.Profiles != nil {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		prof := *w.Profiles
		prof.Client = cs.Discovery().RESTClient()
		w.Profiles = &prof
	}
	w.Processes = func() []int { return tree(p.Pid()) }
	if top {
		w.Kubeconfig = p.Kubeconfig()
	}
	w.Logf("the chain: %s %s", p.Bin, strings.Join(p.Args, " "))
	if err := Run(ctx, cfg, w, f); err != nil {
		tb.Logf("the chain's output (last 4 KiB):\n%s", tail(log.String(), 4096))
		return err
	}
	return nil
}

// runAnchor starts kube-apiserver + etcd as test/anchor does, kwok beside them, and puts w on
// them: no metrics API, no controllers, so no kubectl top, Deployment or namespace deletion.
func runAnchor(tb testing.TB, w Workload, f *Figures) error {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	dir := tb.TempDir()
	bin, err := KwokBinary(ctx, dir)
	if err != nil {
		return err
	}
	ref := anchor.Start(tb, time.Second)
	defer ref.Stop()
	k, err := StartKwok(ctx, bin, ref.Config, *kwokLease, dir)
	if err != nil {
		return err
	}
	defer k.Stop()
	w.Processes = func() []int {
		return append(named(tree(ref.Pid()), "etcd", "kube-apiserver"), k.Pid())
	}
	w.Logf("the reference: kube-apiserver + etcd from %s, kwok %s (lease %d s)", anchor.Bin(), kwokVersion, *kwokLease)
	if err := Run(ctx, ref.Config, w, f); err != nil {
		tb.Logf("kwok's output (last 4 KiB):\n%s", tail(k.Log(), 4096))
		return err
	}
	return nil
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// report reports f's figures as the benchmark's metrics, each name after prefix; in a test
// it logs them.
func report(tb testing.TB, prefix string, f Figures) {
	metric := func(v float64, unit string) {
		if v == 0 {
			return
		}
		if b, ok := tb.(*testing.B); ok {
			b.ReportMetric(v, prefix+unit)
		} else {
			tb.Logf("%s%s %.3f", prefix, unit, v)
		}
	}
	metric(f.NodesReady.Seconds(), "nodes-ready-s")
	metric(f.PodsRunning.Seconds(), "pods-running-s")
	metric(f.CPUSeconds, "cpu-s")
	metric(f.IdleCPU, "idle-cpu-%")
	metric(f.RSSMiB, "rss-MiB")
	metric(f.TopNode.Seconds(), "top-node-s")
	metric(f.TopPod.Seconds(), "top-pod-s")
	metric(f.Rollout.Seconds(), "rollout-s")
	metric(f.NamespaceDeleted.Seconds(), "ns-delete-s")
}
