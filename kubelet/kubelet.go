// Package kubelet simulates the kubelets of a cluster, so that a chain with no real nodes behaves
// like one with them: `kubectl run` gives a Running pod, `kubectl top` gives numbers.
//
// It is the node side of the cluster, beside the chain as kubelets sit beside kube-apiserver,
// not a controller: it talks to the chain only through client-go, and the chain talks back to
// it only over its HTTPS endpoints. Three parts of the chain call it:
//   - Core's kubelet proxy (servers/core/registry/core): pods/log, pods/exec, pods/attach,
//     pods/portforward and nodes/proxy are answered by the kubelet of the pod's node, at the
//     address and port its Node publishes;
//   - the metrics server (servers/metrics) scrapes every node's /metrics/resource for kubectl top;
//   - the scheduler (controllers/scheduler) binds pods to its nodes: a pod bound to one of them
//     runs there.
//
// The controller manager starts it, from its table, under the --controllers name
// "simulated-kubelet" (controllers.SimulatedKubelet), with the endpoint's certificate and the
// client CA the chain gives it; nothing else in the chain imports it.
//
// One Simulator plays every kubelet:
//   - the host node, registered with this machine's real capacity and reporting its real usage;
//   - the simulated nodes it registers itself (sim-node-1..N, --nodes), with synthetic usage;
//   - any Node that someone else creates for it to run, as kwok runs them: one annotated
//     kwok.x-k8s.io/node=fake (NodeAnnotation), or labelled apichain.io/node=simulated
//     (NodeLabel, which its own simulated nodes carry too).
//
// Deleting a Node ends its simulation: its endpoint closes and it is not registered again.
//
// Like a kubelet, for each of its nodes it registers the Node (the nodes it registers itself),
// renews its Lease every 10 s, posts its status when it changes and otherwise every
// StatusReportFrequency (the kubelet's nodeStatusReportFrequency, 5 min by default), turns the
// pods bound to it into Running pods (pods/status) with addresses from the node's
// spec.podCIDR (which the node-ipam-controller assigns), finishes their graceful deletion, and
// serves the kubelet's HTTPS endpoint on a port of its own (the one the Node publishes as
// status.daemonEndpoints.kubeletEndpoint.Port), to callers the chain authenticates and
// authorizes as a kubelet's webhook does (auth.go). The endpoint (endpoint.go) serves what
// kube-apiserver and the metrics server ask a kubelet for: /metrics/resource, /stats/summary,
// /pods, /healthz, container logs (logs.go), exec and attach (exec.go, over SPDY, into the
// tiny shell of shell.go) and port-forward (portforward.go, a TCP echo).
//
// Containers run until their pod is deleted, except in pods that ask to finish (restartPolicy
// Never or OnFailure with the annotations apichain.io/run-seconds and apichain.io/exit-code, see
// finish.go): they exit after that many seconds with that code, and the pod becomes Succeeded or
// Failed.
package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// Version is the kubelet version the nodes report.
const Version = "v1.37.2"

// How a Node asks to be run by the simulator, when the simulator did not register it.
const (
	// NodeAnnotation=fake is what kwok (kwokctl's --manage-nodes-with-annotation-selector)
	// runs; manifests and scripts written for kwok work unchanged.
	NodeAnnotation, NodeAnnotationValue = "kwok.x-k8s.io/node", "fake"
	// NodeLabel=simulated is the chain's own, on the nodes it registers too:
	// kubectl get nodes -l apichain.io/node=simulated lists them.
	NodeLabel, NodeLabelValue = "apichain.io/node", "simulated"
)

// Defaults of a kubelet (KubeletConfiguration).
const (
	// leaseRenewInterval is how often a node's Lease is renewed: a quarter of its 40 s
	// duration, the kubelet's.
	leaseRenewInterval = 10 * time.Second
	// DefaultStatusReportFrequency is the kubelet's nodeStatusReportFrequency: how often a
	// node posts its status when nothing in it changed.
	DefaultStatusReportFrequency = 5 * time.Minute
)

// Workers of the two queues: node registrations, leases and status; pod status. A node's sync
// is a request or two, mostly spent waiting for the server: 32 at once keep a burst of new
// nodes (1,000 created by a client) from queueing behind each other; the steady work is each
// node's Lease renewal every 10 s, 100 a second for 1,000 nodes.
const nodeWorkers, podWorkers = 32, 8

// Config says which kubelets to simulate and where their endpoint serves.
type Config struct {
	// Client is the simulator's client when NodeClient is nil, and for what no one node does.
	Client kubernetes.Interface
	// NodeClient, when set, gives each node's kubelet a client of its own, acting as that
	// node: user system:node:<name> in group system:nodes, as a kubelet's client certificate
	// says (NewNodeClient makes one from a rest.Config). Each node's registration, status,
	// Lease and pods go through its own client; the endpoints ask the chain who calls them
	// through the first node's (the host's). A node's client is made when the node is first
	// simulated and let go, its idle connection closed, when its simulation ends.
	NodeClient func(name string) (NodeAPI, error)
	// Informers is the shared informer factory (internal/sharedinformers) that the simulator
	// reads Nodes and Pods from; nil gives it one of its own. A shared one is started by its
	// owner (Run starts it too, which changes nothing) and shut down by its owner.
	Informers informers.SharedInformerFactory
	// Host registers this machine as a Node (name: the hostname, lower-cased and made a valid
	// DNS-1123 subdomain) with its real capacity and node info, reporting its real CPU and memory
	// usage from /proc.
	Host bool
	// Nodes adds this many simulated nodes (names sim-node-1..N) with synthetic, never-zero usage.
	Nodes int
	// StatusReportFrequency is how often a node posts its status when nothing in it changed
	// (default DefaultStatusReportFrequency); its Lease is renewed every 10 s regardless.
	StatusReportFrequency time.Duration
	// BindAddress for the kubelet HTTPS endpoints (default 127.0.0.1). Each node's endpoint
	// listens on a free port there, which the node publishes in its status.
	BindAddress string
	// ServingCert and ServingKey (PEM) are the endpoint's certificate, issued by the chain's
	// server CA (the metrics server verifies kubelets with that CA, as in a kubeadm cluster):
	// internal/pki's IssueServingCert makes one. It must name the address the nodes publish as
	// their InternalIP: BindAddress, or 127.0.0.1 when BindAddress is unspecified (0.0.0.0).
	ServingCert, ServingKey []byte
	// ClientCA (PEM) verifies the client certificates of callers, as a kubelet's
	// --client-ca-file: the chain's client CA. Callers are authorized by the chain
	// (SubjectAccessReview through Client), so they need get on nodes/metrics (the metrics
	// server) or nodes/proxy, as against a real kubelet (see auth.go).
	ClientCA []byte
	// TracerProvider, if set, gives each endpoint request that carries a trace (Core's hops
	// to the kubelet) a span of service kubelet in that trace (trace.go).
	TracerProvider trace.TracerProvider
}

// Simulator is every simulated kubelet. Build it with New, start it with Run.
type Simulator struct {
	client kubernetes.Interface
	// nodeClient makes a node's client (Config.NodeClient; nil: client for every node) and
	// nodeClients keeps those made.
	nodeClient  func(name string) (NodeAPI, error)
	clientsMu   sync.Mutex
	nodeClients map[string]NodeAPI
	bind        netip.Addr
	cert        tls.Certificate
	guard       *guard
	tracer      trace.TracerProvider
	usage       *usageModel
	logs        *logBook
	hostsys     *hostSystem // nil without a host node
	// registers are the nodes the simulator registers itself: the host first, if any, then
	// sim-node-1..N.
	registers []string
	// heartbeat is how often leases are renewed, statusReport how often an unchanged status is
	// posted; tests shorten them.
	heartbeat, statusReport time.Duration

	informers  informers.SharedInformerFactory
	ownFactory bool // informers is the simulator's own: Run shuts it down
	nodeLister corelisters.NodeLister
	pods       cache.Indexer
	synced     []cache.InformerSynced
	nodeQueue  workqueue.TypedRateLimitingInterface[string]
	podQueue   workqueue.TypedRateLimitingInterface[string]

	mu     sync.Mutex
	byName map[string]*node // the nodes simulated now
	gone   sets.Set[string] // registered nodes deleted in this run: not registered again

	// set by Run
	started  time.Time // when Run began: the kubelets' start, in /stats/summary
	nodeIP   netip.Addr
	runCtx   context.Context // the endpoints' streams end with it
	recorder record.EventRecorder
	serving  sync.WaitGroup // the endpoints, until they have shut down
}

// New checks c and prepares the simulator: it sets up its event handlers on the informers
// (which must not have started yet, for a shared factory) and reads the host's capacity (when
// c.Host), but starts nothing.
func New(c Config) (*Simulator, error) {
	if c.Client == nil {
		return nil, errors.New("kubelet simulator: a client is required")
	}
	if c.Nodes < 0 {
		return nil, fmt.Errorf("kubelet simulator: Nodes must not be negative, not %d", c.Nodes)
	}
	bind := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if c.BindAddress != "" {
		a, err := netip.ParseAddr(c.BindAddress)
		if err != nil {
			return nil, fmt.Errorf("kubelet simulator: bind address: %w", err)
		}
		bind = a
	}
	if len(c.ServingCert) == 0 || len(c.ServingKey) == 0 {
		return nil, errors.New("kubelet simulator: ServingCert and ServingKey are required")
	}
	cert, err := tls.X509KeyPair(c.ServingCert, c.ServingKey)
	if err != nil {
		return nil, fmt.Errorf("kubelet simulator: serving certificate: %w", err)
	}
	if len(c.ClientCA) == 0 {
		return nil, errors.New("kubelet simulator: ClientCA is required")
	}
	s := &Simulator{client: c.Client, nodeClient: c.NodeClient, nodeClients: map[string]NodeAPI{},
		bind: bind, cert: cert, tracer: c.TracerProvider, byName: map[string]*node{}, gone: sets.New[string](),
		usage: newUsageModel(), logs: newLogBook(), heartbeat: leaseRenewInterval, statusReport: c.StatusReportFrequency,
		informers: c.Informers}
	if s.statusReport <= 0 {
		s.statusReport = DefaultStatusReportFrequency
	}
	if c.Host {
		sys, err := readHostSystem()
		if err != nil {
			return nil, fmt.Errorf("kubelet simulator: reading the host: %w", err)
		}
		s.hostsys = sys
		s.registers = append(s.registers, sys.nodeName)
	}
	for i := 1; i <= c.Nodes; i++ {
		name := "sim-node-" + strconv.Itoa(i)
		if s.hostsys != nil && name == s.hostsys.nodeName {
			return nil, fmt.Errorf("kubelet simulator: the host is named %s, like a simulated node", name)
		}
		s.registers = append(s.registers, name)
	}
	// The endpoints' TokenReviews and SubjectAccessReviews, as a kubelet's webhook
	// authentication and authorization make them with its own credentials.
	var reviews NodeAPI = c.Client
	if len(s.registers) > 0 {
		var err error
		if reviews, err = s.clientOf(s.registers[0]); err != nil {
			return nil, fmt.Errorf("kubelet simulator: %w", err)
		}
	}
	if s.guard, err = newGuard(reviews, c.ClientCA); err != nil {
		return nil, fmt.Errorf("kubelet simulator: %w", err)
	}
	if s.informers == nil {
		s.informers, s.ownFactory = sharedinformers.New(c.Client), true
	}
	if err := s.watch(); err != nil {
		return nil, fmt.Errorf("kubelet simulator: %w", err)
	}
	return s, nil
}

// watch sets up the queues and the informers' event handlers.
func (s *Simulator) watch() error {
	s.nodeQueue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubelet-nodes"})
	s.podQueue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubelet-pods"})
	nodes := s.informers.Core().V1().Nodes()
	pods := s.informers.Core().V1().Pods()
	s.nodeLister, s.pods = nodes.Lister(), pods.Informer().GetIndexer()
	s.synced = []cache.InformerSynced{nodes.Informer().HasSynced, pods.Informer().HasSynced}
	// Every pod, where a real kubelet selects spec.nodeName=<itself>: one process plays all the
	// nodes, and the cache is the one the scheduler and the controllers read.
	if err := sharedinformers.ByNode(pods.Informer()); err != nil {
		return fmt.Errorf("indexing pods by node: %w", err)
	}
	if _, err := nodes.Informer().AddEventHandler(s.nodeHandler()); err != nil {
		return err
	}
	_, err := pods.Informer().AddEventHandler(s.podHandler())
	return err
}

// clientOf returns the client of the named node's kubelet (Config.NodeClient), made once. A
// client is made outside the lock (a new key and certificate), so that the node workers make
// theirs side by side; if two make one for the same node, the first kept wins.
func (s *Simulator) clientOf(name string) (NodeAPI, error) {
	if s.nodeClient == nil {
		return s.client, nil
	}
	s.clientsMu.Lock()
	c, ok := s.nodeClients[name]
	s.clientsMu.Unlock()
	if ok {
		return c, nil
	}
	made, err := s.nodeClient(name)
	if err != nil {
		return nil, fmt.Errorf("the client of node %s: %w", name, err)
	}
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	if c, ok := s.nodeClients[name]; ok {
		return c, nil
	}
	s.nodeClients[name] = made
	return made, nil
}

// forgetClient lets the client of a node no longer simulated go, closing its connection once
// idle. The endpoints' reviews keep the first node's client (New) whatever becomes of it.
func (s *Simulator) forgetClient(name string) {
	s.clientsMu.Lock()
	c := s.nodeClients[name]
	delete(s.nodeClients, name)
	s.clientsMu.Unlock()
	if closer, ok := c.(interface{ CloseIdleConnections() }); ok { // none kept: c is nil, not a closer
		closer.CloseIdleConnections()
	}
}

// Registers are the names of the nodes s registers itself, the host first.
func (s *Simulator) Registers() []string {
	return slices.Clone(s.registers)
}

// Run serves the kubelet endpoints, registers the nodes and keeps them Ready, and runs the pods
// bound to them, until ctx is done. It removes nothing it created: nodes and pods stay, as they
// do when real kubelets stop. Run once per Simulator.
func (s *Simulator) Run(ctx context.Context) error {
	s.started = time.Now()
	s.nodeIP = s.bind
	if s.bind.IsUnspecified() {
		// Listening everywhere: publish loopback, where this machine's clients reach it.
		s.nodeIP = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.runCtx = ctx
	var stopEvents func()
	s.recorder, stopEvents = recorder(ctx, s.client)
	defer stopEvents()

	defer s.nodeQueue.ShutDown()
	defer s.podQueue.ShutDown()
	s.informers.Start(ctx.Done())
	if s.ownFactory {
		defer s.informers.Shutdown()
	}
	if !cache.WaitForCacheSync(ctx.Done(), s.synced...) {
		return nil // ctx ended before the caches synced
	}
	// The nodes it registers itself; the others come from the informer's events.
	for _, name := range s.registers {
		s.nodeQueue.Add(name)
	}

	var wg sync.WaitGroup
	for range nodeWorkers {
		wg.Go(func() { s.work(ctx, s.nodeQueue, s.syncNode) })
	}
	for range podWorkers {
		wg.Go(func() { s.work(ctx, s.podQueue, s.syncPod) })
	}
	<-ctx.Done()
	s.nodeQueue.ShutDown()
	s.podQueue.ShutDown()
	wg.Wait()
	s.mu.Lock()
	for _, n := range s.byName {
		s.stopServing(n)
	}
	s.mu.Unlock()
	s.serving.Wait()
	return nil
}

// work processes keys from q with handle until q shuts down, retrying failures with backoff.
func (s *Simulator) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], handle func(context.Context, string) error) {
	for {
		key, quit := q.Get()
		if quit {
			return
		}
		if err := handle(ctx, key); err != nil {
			if ctx.Err() == nil && !apierrors.IsConflict(err) { // conflicts: the cache is behind, try again
				utilruntime.HandleErrorWithContext(ctx, err, "kubelet simulator: sync failed, retrying", "key", key)
			}
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

// recorder returns an event recorder reporting as the kubelet does, and the function that stops
// it, which Run calls before it returns, so that nothing of the simulator outlives Run.
func recorder(ctx context.Context, client kubernetes.Interface) (record.EventRecorder, func()) {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet"}), broadcaster.Shutdown
}

// tombstone unwraps what a DeleteFunc receives.
func tombstone[T any](obj any) (T, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	t, ok := obj.(T)
	return t, ok
}

// serverLog sends net/http's own complaints (a client that does not trust the CA, a reset
// connection) to klog at V(2): they are the client's problem, not the kubelet's.
func serverLog() *log.Logger {
	return log.New(klogWriter{}, "kubelet endpoint: ", 0)
}

type klogWriter struct{}

func (klogWriter) Write(p []byte) (int, error) {
	klog.V(2).Info(strings.TrimSpace(string(p)))
	return len(p), nil
}
