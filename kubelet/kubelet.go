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
//   - any number of simulated nodes (sim-node-1..N) with synthetic usage.
//
// Like a kubelet, for each of its nodes it registers the Node, posts its status and renews its
// Lease every 10 s, turns the pods bound to it into Running pods (pods/status), finishes their
// graceful deletion, and serves the kubelet's HTTPS endpoint on a port of its own (the one the
// Node publishes as status.daemonEndpoints.kubeletEndpoint.Port), to callers the chain
// authenticates and authorizes as a kubelet's webhook does (auth.go). The endpoint (endpoint.go)
// serves what kube-apiserver and the metrics server ask a kubelet for: /metrics/resource,
// /stats/summary, /pods, /healthz, container logs (logs.go), exec and attach (exec.go, over
// SPDY, into the tiny shell of shell.go) and port-forward (portforward.go, a TCP echo).
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
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Version is the kubelet version the nodes report.
const Version = "v1.37.2"

// heartbeat is how often each node's status is posted and its Lease renewed: the kubelet's
// node-status-update-frequency and its lease renew interval (a quarter of the 40 s lease).
const heartbeat = 10 * time.Second

// Config says which kubelets to simulate and where their endpoint serves.
type Config struct {
	Client kubernetes.Interface
	// Host registers this machine as a Node (name: the hostname, lower-cased and made a valid
	// DNS-1123 subdomain) with its real capacity and node info, reporting its real CPU and memory
	// usage from /proc.
	Host bool
	// Nodes adds this many simulated nodes (names sim-node-1..N) with synthetic, never-zero usage.
	Nodes int
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
}

// Simulator is every simulated kubelet. Build it with New, start it with Run.
type Simulator struct {
	client  kubernetes.Interface
	bind    netip.Addr
	cert    tls.Certificate
	guard   *guard
	nodes   []*node // the host first, if any, then sim-node-1..N
	byName  map[string]*node
	usage   *usageModel
	logs    *logBook
	hostsys *hostSystem // nil without a host node
	started time.Time   // when Run began: the kubelets' start, in /stats/summary
	// heartbeat is how often node status and leases are written; tests shorten it.
	heartbeat time.Duration

	// set by Run
	nodeIP     netip.Addr
	nodeLister corelisters.NodeLister
	pods       cache.Indexer
	podQueue   workqueue.TypedRateLimitingInterface[string]
}

// New checks c and prepares the simulator. It reads the host's capacity (when c.Host) but
// starts nothing.
func New(c Config) (*Simulator, error) {
	if c.Client == nil {
		return nil, errors.New("kubelet simulator: a client is required")
	}
	if !c.Host && c.Nodes <= 0 {
		return nil, errors.New("kubelet simulator: no nodes to simulate (Host is false and Nodes is 0)")
	}
	// Each node gets 10.244.<index>.0/24 for its pods; the host takes index 0.
	if c.Nodes < 0 || c.Nodes > 255 {
		return nil, fmt.Errorf("kubelet simulator: Nodes must be between 0 and 255, not %d", c.Nodes)
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
	g, err := newGuard(c.Client, c.ClientCA)
	if err != nil {
		return nil, fmt.Errorf("kubelet simulator: %w", err)
	}
	s := &Simulator{client: c.Client, bind: bind, cert: cert, guard: g, byName: map[string]*node{},
		usage: newUsageModel(), logs: newLogBook(), heartbeat: heartbeat}
	if c.Host {
		sys, err := readHostSystem()
		if err != nil {
			return nil, fmt.Errorf("kubelet simulator: reading the host: %w", err)
		}
		s.hostsys = sys
		s.add(newNode(sys.nodeName, 0, true))
	}
	for i := 1; i <= c.Nodes; i++ {
		name := "sim-node-" + strconv.Itoa(i)
		if _, taken := s.byName[name]; taken {
			return nil, fmt.Errorf("kubelet simulator: the host is named %s, like a simulated node", name)
		}
		s.add(newNode(name, i, false))
	}
	return s, nil
}

func (s *Simulator) add(n *node) {
	s.nodes = append(s.nodes, n)
	s.byName[n.name] = n
}

// NodeNames are the names of the nodes s runs, the host first.
func (s *Simulator) NodeNames() []string {
	names := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		names[i] = n.name
	}
	return names
}

// Run serves the kubelet endpoints, registers the nodes and keeps them Ready, and runs the pods
// bound to them, until ctx is done. It removes nothing it created: nodes and pods stay, as they
// do when real kubelets stop. Run once per Simulator.
func (s *Simulator) Run(ctx context.Context) error {
	// A listener per node, as every kubelet has its own: the port tells kube-apiserver and the
	// metrics server which node they reach.
	listeners := make([]net.Listener, len(s.nodes))
	for i, n := range s.nodes {
		ln, err := net.Listen("tcp", net.JoinHostPort(s.bind.String(), "0"))
		if err != nil {
			return fmt.Errorf("kubelet endpoint of %s: %w", n.name, err)
		}
		defer ln.Close() // in case Run returns before serving; closing twice is harmless
		listeners[i], n.port = ln, ln.Addr().(*net.TCPAddr).Port
	}
	s.started = time.Now()
	s.nodeIP = s.bind
	if s.bind.IsUnspecified() {
		// Listening everywhere: publish loopback, where this machine's clients reach it.
		s.nodeIP = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Nodes: all of them (a handful), to see ours deleted. Pods: every bound pod, one watch for
	// every node this process plays; a real kubelet would select spec.nodeName=<itself>.
	nodeFactory := informers.NewSharedInformerFactory(s.client, 0)
	podFactory := informers.NewSharedInformerFactoryWithOptions(s.client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName!=" }))
	nodeInformer := nodeFactory.Core().V1().Nodes().Informer()
	s.nodeLister = nodeFactory.Core().V1().Nodes().Lister()
	podInformer := podFactory.Core().V1().Pods().Informer()
	if err := podInformer.AddIndexers(cache.Indexers{byNodeName: indexByNodeName}); err != nil {
		return err
	}
	s.pods = podInformer.GetIndexer()

	nodeQueue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubelet-nodes"})
	s.podQueue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubelet-pods"})
	defer nodeQueue.ShutDown()
	defer s.podQueue.ShutDown()

	if _, err := nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		// A real kubelet whose Node is deleted registers it again; so do these.
		DeleteFunc: func(obj any) {
			if n, ok := tombstone[*corev1.Node](obj); ok && s.byName[n.Name] != nil {
				nodeQueue.Add(n.Name)
			}
		},
	}); err != nil {
		return err
	}
	if _, err := podInformer.AddEventHandler(s.podHandler()); err != nil {
		return err
	}
	nodeFactory.Start(ctx.Done())
	podFactory.Start(ctx.Done())
	defer nodeFactory.Shutdown()
	defer podFactory.Shutdown()

	serveErr := make(chan error, len(s.nodes))
	for i, n := range s.nodes {
		srv := &http.Server{
			Handler: s.guard.wrap(s.endpoint(ctx, n), n.name),
			// Asked for, not required: a caller without one may still bring a bearer token, and
			// gets a 401 rather than a failed handshake without either.
			TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.cert}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12},
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          serverLog(),
		}
		go func() { serveErr <- srv.ServeTLS(listeners[i], "", "") }()
		defer func() {
			// Streams (logs -f, exec, port-forward) end with ctx; Shutdown waits for them.
			shutdownCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
			defer done()
			_ = srv.Shutdown(shutdownCtx)
		}()
	}

	for _, synced := range []cache.InformerSynced{nodeInformer.HasSynced, podInformer.HasSynced} {
		if !cache.WaitForCacheSync(ctx.Done(), synced) {
			return nil // ctx ended before the caches synced
		}
	}
	// Pods that already run keep their addresses: claim them before anything new is placed.
	for _, obj := range s.pods.List() {
		s.claimIP(obj.(*corev1.Pod))
	}

	var wg sync.WaitGroup
	run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	run(func() {
		s.work(ctx, nodeQueue, s.syncNode)
	})
	for range 2 {
		run(func() { s.work(ctx, s.podQueue, s.syncPod) })
	}
	run(func() {
		wait.UntilWithContext(ctx, func(context.Context) {
			for _, n := range s.nodes {
				nodeQueue.Add(n.name)
			}
		}, s.heartbeat)
	})

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		runErr = fmt.Errorf("kubelet endpoint: %w", err)
	}
	cancel()
	nodeQueue.ShutDown()
	s.podQueue.ShutDown()
	wg.Wait()
	return runErr
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

const byNodeName = "spec.nodeName"

func indexByNodeName(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		return []string{p.Spec.NodeName}, nil
	}
	return nil, nil
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
