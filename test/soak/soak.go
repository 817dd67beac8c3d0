package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config says how long and how hard the soak runs, and against what.
type Config struct {
	Duration time.Duration
	// Binary is the chain binary to run, with Env added to its environment.
	Binary string
	Env    []string
	// Rate is the workload's operations per second (at most), shared by Workers.
	Rate    float64
	Workers int
	// Nodes are the chain's simulated nodes (--nodes); Compaction its --etcd-compaction-interval.
	Nodes      int
	Compaction time.Duration
	// EventTTL is the chain's --event-ttl. Like Compaction it is shortened for the soak: the
	// workload's Deployments make hundreds of Events a minute, and with kube-apiserver's hour
	// they would pile up for the whole run, data that expires by design, not a leak. 0 keeps
	// the chain's default.
	EventTTL time.Duration
	// NoFsync runs the chain's etcd with --unsafe-no-fsync, as the anchor's etcd runs: for
	// latency beside it, not for what users run.
	NoFsync bool
	// MemoryLimit, if set, is the chain process's GOMEMLIMIT (e.g. "300MiB"): the Go runtime's
	// soft memory limit, which a user who keeps the chain running sets the same way. Without
	// one, the runtime keeps the pages of the largest heap it has had (its goal is twice the
	// live heap), and resident memory settles only tens of minutes after a start.
	MemoryLimit string
	// Kills is how many times the chain is killed with SIGKILL and restarted.
	Kills int
	// ReportDir receives the report, the samples, the events and the chain's output.
	ReportDir string
	// Logf shows progress (a test's Logf).
	Logf func(format string, args ...any)
	// HeapProfiles, if set, saves the chain's heap profile into ReportDir at about this interval.
	HeapProfiles time.Duration
	// JudgeTargets makes the targets on resources and latency (Analysis.Missed) part of the
	// verdict, as they are for runs long enough to measure them; otherwise they are reported only.
	JudgeTargets bool
	// Anchor, if set, is a running kube-apiserver + etcd to put the same workload and watchers
	// on instead of the chain: no chain process, no disruptions, no kubelets, no kubectl.
	Anchor *rest.Config
}

// Event is something that happened to the chain during the soak, deliberately or not.
type Event struct {
	At   time.Duration
	What string
}

// soak is one run.
type soak struct {
	cfg     Config
	start   time.Time
	proc    *Process
	rest    *rest.Config // the admin's, without the recorder
	rec     *Recorder
	model   *Model
	gate    sync.RWMutex
	dyn     dynamic.Interface // recorded
	sampler *Sampler
	// compactions carries the compactions the sampler sees to the timeline.
	compactions chan int64

	mu       sync.Mutex
	events   []Event
	starts   int
	up       bool
	excused  []time.Duration // when a deliberate restart (chain or metrics server) ended
	result   *Result
	watchers []Watcher
}

// Run runs the soak and returns its result; an error means it could not run to the end.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	s := &soak{cfg: cfg, start: time.Now(), compactions: make(chan int64, 1), result: &Result{Config: cfg, checks: map[string]*WatcherResult{}}}
	s.rec = NewRecorder(s.start)
	s.model = NewModel(ConfigMaps.Resource, Secrets.Resource, Widgets.Resource)
	if err := os.MkdirAll(cfg.ReportDir, 0o755); err != nil {
		return nil, err
	}
	if cfg.Anchor != nil {
		s.rest = rest.CopyConfig(cfg.Anchor)
	} else {
		stop, err := s.startChain(ctx)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	s.rest.QPS, s.rest.Burst = -1, 0
	recorded := rest.CopyConfig(s.rest)
	s.rec.Wrap(recorded, nil)
	s.dyn = dynamic.NewForConfigOrDie(recorded)
	if err := s.setUp(ctx); err != nil {
		return nil, fmt.Errorf("setting up: %w", err)
	}
	return s.run(ctx)
}

// startChain starts the chain binary on a new data dir; stop kills whatever is left of it.
func (s *soak) startChain(ctx context.Context) (stop func(), err error) {
	tmp, err := os.MkdirTemp("", "soak-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	port, err := FreePort()
	if err != nil {
		cleanup()
		return nil, err
	}
	out, err := os.Create(filepath.Join(s.cfg.ReportDir, "chain.out"))
	if err != nil {
		cleanup()
		return nil, err
	}
	args := []string{fmt.Sprintf("--nodes=%d", s.cfg.Nodes), fmt.Sprintf("--etcd-compaction-interval=%v", s.cfg.Compaction)}
	if s.cfg.EventTTL > 0 {
		args = append(args, fmt.Sprintf("--event-ttl=%v", s.cfg.EventTTL))
	}
	if s.cfg.NoFsync {
		args = append(args, "--unsafe-no-fsync")
	}
	env := s.cfg.Env
	if s.cfg.MemoryLimit != "" {
		env = append(slices.Clone(env), "GOMEMLIMIT="+s.cfg.MemoryLimit)
	}
	s.proc = &Process{Bin: s.cfg.Binary, Env: env, DataDir: filepath.Join(tmp, "data"), Port: port, Log: out,
		Args: args}
	stop = func() {
		s.proc.Kill()
		out.Close()
		// Keep the chain's own log beside the report, then remove the data dir.
		if b, err := os.ReadFile(filepath.Join(s.proc.DataDir, "chain.log")); err == nil {
			_ = os.WriteFile(filepath.Join(s.cfg.ReportDir, "chain.log"), b, 0o644)
		}
		cleanup()
	}
	s.logf("starting %s --data-dir %s --secure-port %d %s", s.cfg.Binary, s.proc.DataDir, port, strings.Join(s.proc.Args, " "))
	if err := s.proc.Start(ctx); err != nil {
		stop()
		return nil, err
	}
	s.markUp(true)
	if s.rest, err = clientcmd.BuildConfigFromFlags("", s.proc.Kubeconfig()); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// setUp makes the namespaces and the custom resource definition the workload writes to.
func (s *soak) setUp(ctx context.Context) error {
	cs := kubernetes.NewForConfigOrDie(s.rest)
	for _, ns := range Namespaces {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: Widgets.Resource + "." + Widgets.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: Widgets.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: Widgets.Resource, Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: Widgets.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"size": {Type: "integer"}, "payload": {Type: "string"},
					}}},
				}},
			}},
		},
	}
	ext := apiextensionsclient.NewForConfigOrDie(s.rest)
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// Served once a list of widgets works.
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := s.dyn.Resource(Widgets).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
}

// run runs the workload, the watchers, the readers and the sampler, disrupts the chain on
// schedule, checks after each disruption and at the end, and stops everything.
func (s *soak) run(ctx context.Context) (*Result, error) {
	// The soak's clock starts now, with nothing recorded of the build, the start and the set-up.
	s.rec.Reset(time.Now())
	s.mu.Lock()
	s.excused = []time.Duration{0} // the first start: the metrics server's first scrapes
	s.mu.Unlock()
	background, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	var bg sync.WaitGroup
	goRun := func(f func(context.Context)) { bg.Go(func() { f(background) }) }

	s.watchers = s.newWatchers()
	for _, w := range s.watchers {
		goRun(w.Run)
	}
	s.sampler = &Sampler{Every: 10 * time.Second, Recorder: s.rec, Metrics: kubernetes.NewForConfigOrDie(s.rest).Discovery().RESTClient(),
		Process: s.process, OnCompaction: s.compacted, HeapProfiles: s.cfg.HeapProfiles, ProfileDir: s.cfg.ReportDir}
	if s.proc != nil {
		s.sampler.DataDir = s.proc.DataDir
	}
	goRun(s.sampler.Run)
	lister := &Lister{Client: s.dyn, Every: 3 * time.Second}
	goRun(lister.Run)
	var kubectl *Kubectl
	if _, err := exec.LookPath("kubectl"); err != nil && s.proc != nil {
		s.event("kubectl is not installed: no kubectl top, logs or exec in this run")
	} else if s.proc != nil {
		kubectl = &Kubectl{Kubeconfig: s.proc.Kubeconfig(), Client: s.dyn, Every: min(max(s.cfg.Duration/8, 4*time.Second), 20*time.Second), Since: s.rec.Since, Excused: s.excusedAt}
		goRun(kubectl.Run)
	}
	workload := &Workload{Client: s.dyn, Model: s.model, Workers: s.cfg.Workers, Rate: s.cfg.Rate, Gate: &s.gate}
	workCtx, stopWork := context.WithCancel(ctx)
	var work sync.WaitGroup
	work.Go(func() { workload.Run(workCtx) })

	// The watchers' first lists, before anything is held against them.
	sleep(ctx, 5*time.Second)
	s.timeline(ctx)

	stopWork()
	work.Wait()
	s.event("workload stopped; final checks")
	s.checkModel(ctx, "end")
	s.checkWatchers(ctx, "end", s.watchers)
	s.sampler.Once(ctx)
	stopBackground()
	bg.Wait()
	if s.proc != nil {
		if err := s.proc.Stop(); err != nil {
			s.result.StopErr = err.Error()
		}
		s.event("chain stopped with SIGTERM")
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	r := s.result
	r.Samples, r.Totals, r.Workload, r.Lister = s.sampler.Samples(), s.rec.Totals(), workload.Figures(), lister.Figures()
	if kubectl != nil {
		r.Kubectl = kubectl.Runs()
	}
	r.Acked, r.Resolved, r.Objects = s.model.Counts()
	s.mu.Lock()
	r.Events = append([]Event(nil), s.events...)
	s.mu.Unlock()
	for _, w := range s.watchers {
		c := r.checks[w.Name()]
		if c == nil {
			c = &WatcherResult{}
		}
		c.Name, c.Target, c.Stats = w.Name(), w.Target().String(), w.Stats()
		r.Watchers = append(r.Watchers, *c)
	}
	return r, nil
}

// disruption is one planned disruption.
type disruption struct {
	at   time.Duration
	what string // "kill chain", "kill metrics server", "cut watches"
}

// plan spreads the disruptions over the run: the chain's kills in its first half (the first
// quarter in runs of 20 minutes or more, so that the last chain process runs long enough to
// show a leak), the metrics server's kills and watch cuts all along, none within gap of a kill
// (20 s, less in short runs) nor in the last gap of the run. A run of 30 s still gets each kind.
func plan(d time.Duration, kills int) []disruption {
	var out []disruption
	span := d / 2
	if d >= 20*time.Minute {
		span = d / 4
	}
	for i := 1; i <= kills; i++ {
		out = append(out, disruption{span * time.Duration(i) / time.Duration(kills), "kill chain"})
	}
	gap := min(20*time.Second, d/8)
	every := max(d/8, min(30*time.Second, d/4))
	near := func(t time.Duration) bool {
		for _, k := range out[:kills] {
			if t > k.at-gap && t < k.at+gap {
				return true
			}
		}
		return false
	}
	for t := every / 2; t < d-gap; t += every {
		if !near(t) {
			out = append(out, disruption{t, "cut watches"})
		}
		if m := t + every/2; m < d-gap && !near(m) {
			out = append(out, disruption{m, "kill metrics server"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// timeline disrupts the chain on plan, and checks the watchers after each compaction, until
// the run's duration has passed.
func (s *soak) timeline(ctx context.Context) {
	var planned []disruption
	if s.proc != nil {
		planned = plan(s.cfg.Duration, s.cfg.Kills)
	}
	cut := 0
	for ctx.Err() == nil {
		next := s.cfg.Duration
		if len(planned) > 0 {
			next = planned[0].at
		}
		select {
		case <-ctx.Done():
			return
		case rev := <-s.compactions:
			s.event(fmt.Sprintf("etcd compacted to revision %d", rev))
			s.checkWatchers(ctx, fmt.Sprintf("compaction to %d", rev), s.watchers)
			continue
		case <-time.After(next - s.rec.Since()):
		}
		if len(planned) == 0 {
			return
		}
		d := planned[0]
		planned = planned[1:]
		switch d.what {
		case "kill chain":
			s.killChain(ctx)
		case "kill metrics server":
			s.killMetricsServer(ctx)
		case "cut watches":
			// A third of the watchers each time, in turn.
			var which []Watcher
			var names []string
			conns := 0
			for i, w := range s.watchers {
				if i%3 == cut%3 {
					which = append(which, w)
					names = append(names, w.Name())
					conns += w.Cutter().Cut()
				}
			}
			cut++
			s.event(fmt.Sprintf("cut %d connections of %s", conns, strings.Join(names, ", ")))
			s.checkWatchers(ctx, "cut", which)
		}
	}
}

// killChain kills the chain with SIGKILL while the workload writes, restarts it on the same
// data dir, and checks that every acknowledged write is there and nothing else changed.
func (s *soak) killChain(ctx context.Context) {
	s.rec.BeginQuiet()
	pid := s.proc.Pid()
	s.markUp(false)
	s.proc.Kill()
	s.event(fmt.Sprintf("SIGKILL chain (pid %d)", pid))
	// No new writes until the restarted chain has been checked; those in flight have failed.
	s.gate.Lock()
	began := time.Now()
	if err := s.proc.Start(ctx); err != nil {
		s.gate.Unlock()
		s.event(fmt.Sprintf("restart failed: %v", err))
		s.result.Fatal = append(s.result.Fatal, "restart after SIGKILL failed: "+err.Error())
		return
	}
	s.markUp(true)
	s.rec.EndQuiet(10 * time.Second)
	s.event(fmt.Sprintf("chain restarted on the same data dir (pid %d), ready after %.1f s", s.proc.Pid(), time.Since(began).Seconds()))
	s.result.Restarts = append(s.result.Restarts, time.Since(began))
	s.gate.Unlock()
	s.checkModel(ctx, "restart")
	s.checkWatchers(ctx, "restart", s.watchers)
}

// markUp records the chain going down, or up (started or restarted).
func (s *soak) markUp(up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.up = up
	if up {
		s.starts++
		s.excused = append(s.excused, s.rec.Since())
	}
}

// killMetricsServer kills the metrics server child with SIGKILL; the chain restarts it.
func (s *soak) killMetricsServer(ctx context.Context) {
	child := s.proc.ChildPid()
	if child == 0 {
		s.event("no metrics server child to kill")
		return
	}
	_ = syscall.Kill(child, syscall.SIGKILL)
	s.event(fmt.Sprintf("SIGKILL metrics server (pid %d)", child))
	began := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, false, func(context.Context) (bool, error) {
		c := s.proc.ChildPid()
		return c != 0 && c != child, nil
	})
	if err != nil {
		s.event("the metrics server was not restarted within 2 minutes")
		s.result.Fatal = append(s.result.Fatal, "metrics server not restarted after SIGKILL")
		return
	}
	s.mu.Lock()
	s.excused = append(s.excused, s.rec.Since())
	s.mu.Unlock()
	s.event(fmt.Sprintf("metrics server restarted by the chain (pid %d) after %.1f s", s.proc.ChildPid(), time.Since(began).Seconds()))
	s.checkWatchers(ctx, "metrics server kill", s.watchers)
}

// excusedAt says whether a kubectl failure at time at follows a deliberate restart closely
// enough (2 minutes: the metrics server scrapes twice, the APIService is found available).
func (s *soak) excusedAt(at time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.up {
		return true
	}
	for _, e := range s.excused {
		if at >= e-30*time.Second && at <= e+2*time.Minute {
			return true
		}
	}
	return false
}

// process is the chain's start count and pid (0 while it is down), for the sampler.
func (s *soak) process() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || !s.up {
		return s.starts, 0
	}
	return s.starts, s.proc.Pid()
}

// compacted is told by the sampler of a compaction; the timeline checks the watchers after
// it (one pending is enough).
func (s *soak) compacted(rev int64) {
	select {
	case s.compactions <- rev:
	default:
	}
}

func (s *soak) event(what string) {
	at := s.rec.Since()
	s.mu.Lock()
	s.events = append(s.events, Event{At: at, What: what})
	s.mu.Unlock()
	s.logf("%s %s", fmtDur(at), what)
}

func (s *soak) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}
