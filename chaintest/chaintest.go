// Package chaintest starts a whole apichain control plane inside a Go test process, the way
// controller-runtime's envtest starts etcd and kube-apiserver, but with nothing to download:
// embedded etcd and the Aggregator → Core → ApiExtensions chain run in-process, each
// Environment on its own ports and etcd, so several can run at once (t.Parallel()).
//
// It is a drop-in for envtest: the fields that mean the same have envtest's names and types
// (CRD and webhook installation are envtest's own code), Start returns a *rest.Config for an
// admin in system:masters, Stop tears everything down. Beyond envtest: a metrics server
// (Metrics), simulated nodes (Nodes), a kubeconfig file for debugging (KubeConfigPath), the
// chain's controllers, so that namespaces really go away and owners' dependents are
// collected, and Reset, which returns a running Environment to its state after Start so that
// a suite's tests can share one.
//
// What every new chain writes alike at its first start (the bootstrap RBAC policy, the API
// Priority and Fairness configuration, the built-in groups' APIServices) the first
// Environment of a test process leaves in memory once ready, and later Environments' etcd
// starts with it, so their start-up hooks find it in place (snapshot.go).
//
// Where it sits: outside the chain, like cmd/chain — it builds servers/chain and nothing else.
package chaintest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
)

// CRDInstallOptions and WebhookInstallOptions are envtest's: the same fields, the same code
// installs them.
type (
	CRDInstallOptions     = envtest.CRDInstallOptions
	WebhookInstallOptions = envtest.WebhookInstallOptions
	// User is a user to add with AddUser: a name and groups.
	User = envtest.User
)

// Environment is a control plane for tests. The zero value works.
type Environment struct {
	// Scheme decides, as in envtest, which CRDs get conversion webhooks. nil means client-go's.
	Scheme *runtime.Scheme
	// Config is set by Start: an admin (group system:masters) client configuration.
	Config *rest.Config
	// KubeConfig is set by Start: the same admin as a kubeconfig file's contents.
	KubeConfig []byte

	CRDInstallOptions     CRDInstallOptions
	WebhookInstallOptions WebhookInstallOptions
	// ErrorIfCRDPathMissing fails Start when a CRD path does not exist.
	ErrorIfCRDPathMissing bool
	// CRDs and CRDDirectoryPaths are installed by Start, merged with CRDInstallOptions'.
	CRDs              []*apiextensionsv1.CustomResourceDefinition
	CRDDirectoryPaths []string

	// ControlPlaneStartTimeout bounds Start (default: $KUBEBUILDER_CONTROLPLANE_START_TIMEOUT or
	// 20 s, as envtest); ControlPlaneStopTimeout bounds Stop (same, _STOP_TIMEOUT).
	ControlPlaneStartTimeout time.Duration
	ControlPlaneStopTimeout  time.Duration
	// AttachControlPlaneOutput prints the chain's start-up progress on stdout and what the
	// libraries it is built from log (klog) on stderr, as envtest attaches kube-apiserver's
	// output ($KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true does the same). Without it nothing
	// is printed, unless the test has raised klog's verbosity itself (-v=1 or more).
	AttachControlPlaneOutput bool

	// Metrics runs the metrics server (in-process) with simulated kubelets and a scheduler, so
	// that metrics.k8s.io answers and pods run.
	Metrics bool
	// Nodes adds this many simulated nodes (and turns on the kubelets and the scheduler).
	Nodes int
	// KubeConfigPath, if set, is where Start also writes KubeConfig.
	KubeConfigPath string
	// DataDir holds the PKI and etcd's data; empty means a temp dir that Stop removes.
	DataDir string
	// Controllers, if set, replaces the default choice of controllers, in the chain's
	// --controllers syntax ("*", "name", "-name"; controllers.Names() lists them). The default
	// runs the namespace, garbage-collector, pod-garbage-collector (pods bound to a node that
	// does not exist are deleted after 5 s), clusterrole-aggregation, serviceaccount and
	// root-ca-certificate-publisher controllers (plus the kubelets, node lifecycle and scheduler
	// with Metrics or Nodes). An empty, non-nil slice runs none, as envtest's bare
	// kube-apiserver: then no `default` ServiceAccount or `kube-root-ca.crt` ConfigMap appears in
	// new namespaces, and deleted namespaces stay Terminating.
	Controllers []string

	// RecordTraces keeps the most recent requests' traces in the chain's memory, as the chain
	// command does by default, for `chain trace` and /debug/apichain/traces. Off by default: a
	// test suite's control plane spends nothing on it unless asked. Every request is recorded,
	// however fast they come (the chain command's rate, --record-traces-per-second, does not
	// apply): a test looks for the traces of its own.
	RecordTraces bool

	// Progress, if set, receives the chain's start-up progress, one line per stage, as the
	// chain command prints it; otherwise it goes to stdout with AttachControlPlaneOutput, and
	// nowhere without.
	Progress io.Writer
	// ChainOptions, if set, changes the chain's options after every field above has been
	// applied to them: for the chain's own tests, and for users who need a flag of the chain
	// command that no field offers. Options that would run a child process (--metrics=child:
	// the child would be the test binary) fail Start.
	ChainOptions func(*chain.Options)

	chain     *chain.Chain
	removeDir string
	// resetter knows what existed when Start returned: what Reset keeps (reset.go).
	resetter *resetter
	// holdsLogs says Start took klogGate; logsAttached is what to give back (logs.go).
	holdsLogs, logsAttached bool
}

// Environment variables envtest reads, read the same way.
const (
	envStartTimeout  = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"
	envStopTimeout   = "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT"
	envAttachOutput  = "KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT"
	defaultTimeout   = 20 * time.Second
	defaultNamespace = metav1.NamespaceDefault
)

// Start starts the control plane and returns once it is ready, the CRDs are installed and
// served, the webhooks are installed, and the default namespace exists.
func (e *Environment) Start() (*rest.Config, error) {
	if e.chain != nil {
		return nil, errors.New("chaintest: Start called twice without Stop")
	}
	if err := e.defaultTimeouts(); err != nil {
		return nil, err
	}
	attach := e.AttachControlPlaneOutput || os.Getenv(envAttachOutput) == "true"
	e.logsAttached, e.holdsLogs = klogGate.hold(attach), true
	if e.DataDir == "" {
		dir, err := os.MkdirTemp("", "chaintest-")
		if err != nil {
			return nil, e.fail(err)
		}
		e.DataDir, e.removeDir = dir, dir
	}
	o := e.options()
	// made is not nil when this Environment makes the bootstrap snapshot (snapshot.go).
	made := e.seed(o)
	if made != nil {
		defer made()
	}
	completed, err := o.Complete()
	if err != nil {
		return nil, e.fail(err)
	}
	if errs := completed.Validate(); len(errs) > 0 {
		return nil, e.fail(errors.Join(errs...))
	}
	if completed.Metrics == chain.MetricsChild {
		return nil, e.fail(errors.New("chaintest: --metrics=child would run the test binary as the metrics server; use in-process"))
	}
	out := e.Progress
	if out == nil {
		out = io.Discard
		if attach {
			out = os.Stdout
		}
	}
	c, err := chain.Start(context.Background(), completed, out)
	if err != nil {
		return nil, e.fail(fmt.Errorf("unable to start control plane itself: %w", err))
	}
	e.chain = c

	e.Config = rest.CopyConfig(c.Admin)
	// As envtest: tests should not wait on client-side rate limits.
	e.Config.QPS, e.Config.Burst = 1000, 2000
	if e.KubeConfig, err = os.ReadFile(c.KubeconfigPath); err != nil {
		return nil, e.stopAfter(err)
	}
	if e.KubeConfigPath != "" {
		if err := os.WriteFile(e.KubeConfigPath, e.KubeConfig, 0o600); err != nil {
			return nil, e.stopAfter(err)
		}
	}
	if e.Scheme == nil {
		e.Scheme = scheme.Scheme
	}
	if err := waitForNamespace(e.Config, defaultNamespace); err != nil {
		return nil, e.stopAfter(fmt.Errorf("default namespace didn't register within deadline: %w", err))
	}

	// From here on, envtest's own code: certificates for the local webhook server first, so that
	// CRD conversion webhooks can point at it, then the CRDs, then the webhook configurations.
	if err := e.WebhookInstallOptions.PrepWithoutInstalling(); err != nil {
		return nil, e.stopAfter(err)
	}
	if e.CRDInstallOptions.Scheme == nil {
		e.CRDInstallOptions.Scheme = e.Scheme
	}
	e.CRDInstallOptions.CRDs = mergeCRDs(e.CRDInstallOptions.CRDs, e.CRDs)
	e.CRDInstallOptions.Paths = mergePaths(e.CRDInstallOptions.Paths, e.CRDDirectoryPaths)
	e.CRDInstallOptions.ErrorIfPathMissing = e.ErrorIfCRDPathMissing
	e.CRDInstallOptions.WebhookOptions = e.WebhookInstallOptions
	// With nothing to install, envtest's calls are skipped: each makes a controller-runtime
	// client, which, unless the test has called log.SetLogger, prints a warning and a stack
	// trace on stderr once the process is 30 s old.
	if len(e.CRDInstallOptions.CRDs)+len(e.CRDInstallOptions.Paths) > 0 {
		crds, err := envtest.InstallCRDs(e.Config, e.CRDInstallOptions)
		if err != nil {
			return nil, e.stopAfter(fmt.Errorf("unable to install CRDs onto control plane: %w", err))
		}
		e.CRDs = crds
	}
	if w := e.WebhookInstallOptions; len(w.MutatingWebhooks)+len(w.ValidatingWebhooks) > 0 {
		if err := e.WebhookInstallOptions.Install(e.Config); err != nil {
			return nil, e.stopAfter(fmt.Errorf("unable to install webhooks onto control plane: %w", err))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.ControlPlaneStartTimeout)
	defer cancel()
	if e.resetter, err = e.newResetter(ctx); err != nil {
		return nil, e.stopAfter(fmt.Errorf("recording the keys in etcd, for Reset: %w", err))
	}
	// Leave the copy for the Environments after this one (and those waiting for it).
	if made != nil {
		if err := leaveSnapshot(ctx, e.resetter.etcd, snapshotKind(completed.EnablePriorityAndFairness)); err != nil {
			return nil, e.stopAfter(fmt.Errorf("keeping the bootstrap objects for later Environments: %w", err))
		}
	}
	return e.Config, nil
}

// options are the chain's options for this Environment: its fields, then ChainOptions.
func (e *Environment) options() *chain.Options {
	o := chain.NewOptions()
	o.DataDir = e.DataDir
	o.SecurePort = 0
	o.UnsafeNoFsync = true // a test control plane, as envtest runs etcd
	o.StartTimeout = e.ControlPlaneStartTimeout
	o.Metrics = chain.MetricsOff
	o.RecordTraces, o.RecordTracesPerSecond = e.RecordTraces, 0
	// A stop ends every watch cleanly either way; spreading their ends, so that the clients of
	// one of several instances re-watch the others gradually, is for clusters. Here it only
	// made a Stop wait (at 200 watches a second: the servers' own informers' watches, 5 ms
	// each). Watches whose answers are not out yet are still waited for: the chain closes a
	// connection only once its answers are (servers/chain/departures).
	o.ShutdownWatchTerminationGracePeriod = time.Millisecond
	// What envtest users lack and expect from a cluster: namespaces that really go away. What
	// would touch their workloads (kubelets, scheduler) runs only when asked for.
	o.Controllers = []string{controllers.Namespace, controllers.GarbageCollector, controllers.PodGarbageCollector, controllers.ClusterRoleAggregation, controllers.ServiceAccount, controllers.RootCACertificatePublisher}
	if e.Metrics {
		o.Metrics = chain.MetricsInProcess
		o.MetricResolution = time.Second
	}
	if e.Metrics || e.Nodes > 0 {
		o.Nodes = e.Nodes
		o.Controllers = append(o.Controllers, controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.NodeLifecycle, controllers.Scheduler)
	}
	if e.Controllers != nil {
		o.Controllers = e.Controllers
	}
	if e.ChainOptions != nil {
		e.ChainOptions(o)
	}
	return o
}

// seed gives o the copy of the bootstrap objects of its kind (snapshot.go), unless its options
// name keys of their own. An Environment that could leave the copy (a new data dir of its own,
// embedded etcd) and finds none waits for one that another Environment is making, or makes it
// itself: then seed returns made, which Start calls once it is done, whatever the outcome.
func (e *Environment) seed(o *chain.Options) (made func()) {
	if o.EtcdSeed != nil {
		return nil
	}
	kind := snapshotKind(o.EnablePriorityAndFairness)
	if e.removeDir == "" || len(o.EtcdServers) > 0 {
		o.EtcdSeed = snapshotFor(kind)
		return nil
	}
	o.EtcdSeed, made = awaitSnapshot(kind, e.ControlPlaneStartTimeout)
	return made
}

// Stop stops everything Start started and removes the temp dir it made. It waits at most
// ControlPlaneStopTimeout for the chain to shut down.
func (e *Environment) Stop() error {
	var errs []error
	if e.chain != nil && e.CRDInstallOptions.CleanUpAfterUse && len(e.CRDInstallOptions.CRDs)+len(e.CRDInstallOptions.Paths) > 0 {
		errs = append(errs, envtest.UninstallCRDs(e.Config, e.CRDInstallOptions))
	}
	errs = append(errs, e.WebhookInstallOptions.Cleanup())
	if e.resetter != nil {
		errs = append(errs, e.resetter.close())
		e.resetter = nil
	}
	if e.chain != nil {
		stopped := make(chan error, 1)
		go func() { stopped <- e.chain.Stop() }()
		timeout := e.ControlPlaneStopTimeout
		if timeout == 0 {
			timeout = defaultTimeout
		}
		select {
		case err := <-stopped:
			errs = append(errs, err)
		case <-time.After(timeout):
			errs = append(errs, fmt.Errorf("the control plane did not stop within %v", timeout))
		}
		e.chain = nil
	}
	if e.removeDir != "" {
		errs = append(errs, os.RemoveAll(e.removeDir))
		e.DataDir, e.removeDir = "", ""
	}
	e.releaseLogs()
	return errors.Join(errs...)
}

func (e *Environment) releaseLogs() {
	if e.holdsLogs {
		klogGate.release(e.logsAttached)
		e.holdsLogs = false
	}
}

// Chain is the running chain, valid after Start: for tests of the chain itself, which reach
// into what a *rest.Config does not show (its PKI, its data dir's files).
func (e *Environment) Chain() *chain.Chain { return e.chain }

// URL is where the control plane serves (https://127.0.0.1:<port>), valid after Start.
func (e *Environment) URL() string {
	if e.chain == nil {
		return ""
	}
	return e.chain.URL
}

func (e *Environment) defaultTimeouts() error {
	for _, d := range []struct {
		field *time.Duration
		env   string
	}{{&e.ControlPlaneStartTimeout, envStartTimeout}, {&e.ControlPlaneStopTimeout, envStopTimeout}} {
		if *d.field != 0 {
			continue
		}
		*d.field = defaultTimeout
		if v := os.Getenv(d.env); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("%s: %w", d.env, err)
			}
			*d.field = t
		}
	}
	return nil
}

// fail cleans up what Start made before the chain ran.
func (e *Environment) fail(err error) error {
	if e.removeDir != "" {
		os.RemoveAll(e.removeDir)
		e.DataDir, e.removeDir = "", ""
	}
	e.releaseLogs()
	return err
}

// stopAfter stops the running chain after a failure later in Start.
func (e *Environment) stopAfter(err error) error {
	return errors.Join(err, e.Stop())
}

func waitForNamespace(cfg *rest.Config, name string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		return err == nil, nil
	})
}

// mergePaths and mergeCRDs follow envtest's helpers: the union, in order, without duplicates.
func mergePaths(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range append(append([]string{}, a...), b...) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func mergeCRDs(a, b []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	seen := map[string]bool{}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range append(append([]*apiextensionsv1.CustomResourceDefinition{}, a...), b...) {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	return out
}
