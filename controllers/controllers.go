// Package controllers is the chain's small controller manager: what kube-controller-manager and
// kube-scheduler would do in a cluster, each a package of its own (controllers/<name>), started
// from the chain's post-start hook "start-chain-controllers", each with the identity it has in a
// cluster (Credentials, credentials.go). They reach the chain only through client-go, never
// through storage. All of them run on one loop
// (controllers/internal/loop), which waits for their workers when they stop.
//
// The simulated kubelets are not controllers but the node side of the cluster, a top-level
// package of their own (kubelet); this manager starts them too, as "simulated-kubelet", so that
// --controllers turns them on and off like the rest.
//
// --controllers chooses them with kube-controller-manager's syntax ("*", "name", "-name"),
// using kube-controller-manager's names where the controller is one of its.
package controllers

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/clusterroleaggregation"
	"github.com/apichain/apichain/controllers/cronjob"
	"github.com/apichain/apichain/controllers/daemonset"
	"github.com/apichain/apichain/controllers/deployment"
	"github.com/apichain/apichain/controllers/garbagecollector"
	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/job"
	"github.com/apichain/apichain/controllers/namespace"
	"github.com/apichain/apichain/controllers/nodeipam"
	"github.com/apichain/apichain/controllers/nodelifecycle"
	"github.com/apichain/apichain/controllers/podgc"
	"github.com/apichain/apichain/controllers/replicaset"
	"github.com/apichain/apichain/controllers/rootcacertpublisher"
	"github.com/apichain/apichain/controllers/scheduler"
	"github.com/apichain/apichain/controllers/serviceaccount"
	"github.com/apichain/apichain/controllers/statefulset"
	"github.com/apichain/apichain/controllers/ttlafterfinished"
	"github.com/apichain/apichain/kubelet"
)

// Context is what every controller is started with. Make a new one for every Run: its
// informers stop, and its controllers are waited for, with the Run.
type Context struct {
	// Client and Metadata are the controller manager's own clients: its informers and discovery
	// use them, and, without Credentials, every controller acts through them.
	Client   kubernetes.Interface
	Metadata metadata.Interface
	// Credentials, when set, give each controller an identity of its own (credentials.go): the
	// controller manager's controllers act as their service accounts, the scheduler as
	// system:kube-scheduler, each simulated kubelet as its node.
	Credentials *Credentials
	// Informers is the one informer factory of the controllers, the scheduler and the simulated
	// kubelets (internal/sharedinformers: objects kept without their managedFields); Run starts
	// it after every Start, and shuts it down once every controller has returned.
	Informers informers.SharedInformerFactory

	// RootCA is the CA bundle that verifies the chain's serving certificate (the chain's server
	// CA, PEM), which the root CA publisher puts in every namespace as kube-root-ca.crt.
	RootCA []byte

	// For the node IPAM controller: the range pod addresses come from, cut into one range of
	// NodeCIDRMaskSize bits per node, and the Service range, whose addresses no node gets.
	ClusterCIDR, ServiceCIDR netip.Prefix
	NodeCIDRMaskSize         int

	// For the simulated kubelets: how many nodes beside the host, how often they post their
	// status when nothing changed, the endpoint's certificate (issued by the chain's server
	// CA), and the CA of the client certificates it accepts.
	Nodes                     int
	NodeStatusReportFrequency time.Duration
	KubeletCert, KubeletKey   []byte
	KubeletClientCA           []byte
	// KubeletTracerProvider traces the kubelets' side of Core's calls to them (nil: not).
	KubeletTracerProvider trace.TracerProvider

	// Set by Run before any Start, as kube-controller-manager's ControllerContext has it: a
	// REST mapper over discovery, reset every 30 s.
	RESTMapper *restmapper.DeferredDiscoveryRESTMapper

	// running counts the controllers' Run calls, which Wait waits for.
	running sync.WaitGroup
}

// Go runs f, a controller's Run, in its own goroutine, counted: Wait returns once it has
// returned.
func (c *Context) Go(f func()) {
	c.running.Go(f)
}

// Wait returns once every controller Run started has returned (they return once its ctx is
// done) and the shared informers have stopped.
func (c *Context) Wait() {
	c.running.Wait()
	c.Informers.Shutdown()
}

// Controller is one controller: its name for --controllers, and how it starts.
type Controller struct {
	Name string
	// Aliases are other names --controllers accepts for it (kube-controller-manager's).
	Aliases []string
	// Requires lists the resources the controller works on: when the chain does not serve one of
	// them, the controller is not started (its informers would never sync).
	Requires []schema.GroupVersionResource
	// ServiceAccount is the service account in kube-system that kube-controller-manager's
	// controller of the same name acts as with --use-service-account-credentials, and that the
	// bootstrap policy binds to its role system:controller:<ServiceAccount>.
	ServiceAccount string
	// Start sets the controller up on c's informers and runs it with c.Go, acting through as;
	// it stops when ctx is done.
	Start func(ctx context.Context, c *Context, as Clients) error
}

// Names of the controllers (kube-controller-manager's where it has the controller).
const (
	Namespace                  = "namespace-controller"
	GarbageCollector           = "garbage-collector-controller"
	ServiceAccount             = "serviceaccount-controller"
	RootCACertificatePublisher = "root-ca-certificate-publisher-controller"
	ClusterRoleAggregation     = "clusterrole-aggregation-controller"
	Deployment                 = "deployment-controller"
	ReplicaSet                 = "replicaset-controller"
	ReplicationController      = "replicationcontroller-controller"
	Job                        = "job-controller"
	TTLAfterFinished           = "ttl-after-finished-controller"
	StatefulSet                = "statefulset-controller"
	DaemonSet                  = "daemonset-controller"
	CronJob                    = "cronjob-controller"
	NodeLifecycle              = "node-lifecycle-controller"
	PodGarbageCollector        = "pod-garbage-collector-controller"
	NodeIPAM                   = "node-ipam-controller"
	SimulatedKubelet           = "simulated-kubelet"
	Scheduler                  = "scheduler"
)

// All lists every controller, in start order.
func All() []Controller {
	return []Controller{
		{Name: Namespace, Aliases: []string{"namespace"}, ServiceAccount: "namespace-controller", Start: startNamespace},
		{Name: GarbageCollector, Aliases: []string{"garbagecollector"}, ServiceAccount: "generic-garbage-collector", Start: startGarbageCollector},
		{Name: ServiceAccount, Aliases: []string{"serviceaccount"}, ServiceAccount: "service-account-controller", Start: startServiceAccount},
		{Name: RootCACertificatePublisher, Aliases: []string{"root-ca-cert-publisher"}, ServiceAccount: "root-ca-cert-publisher", Start: startRootCACertificatePublisher},
		{Name: ClusterRoleAggregation, Aliases: []string{"clusterrole-aggregation"}, ServiceAccount: "clusterrole-aggregation-controller", Start: startClusterRoleAggregation,
			Requires: []schema.GroupVersionResource{rbacv1.SchemeGroupVersion.WithResource("clusterroles")}},
		{Name: Deployment, Aliases: []string{"deployment"}, ServiceAccount: "deployment-controller", Start: startDeployment,
			Requires: []schema.GroupVersionResource{appsv1.SchemeGroupVersion.WithResource("deployments"), appsv1.SchemeGroupVersion.WithResource("replicasets")}},
		{Name: ReplicaSet, Aliases: []string{"replicaset"}, ServiceAccount: "replicaset-controller", Start: startReplicaSet,
			Requires: []schema.GroupVersionResource{appsv1.SchemeGroupVersion.WithResource("replicasets")}},
		{Name: ReplicationController, Aliases: []string{"replicationcontroller"}, ServiceAccount: "replication-controller", Start: startReplicationController},
		{Name: Job, Aliases: []string{"job"}, ServiceAccount: "job-controller", Start: startJob,
			Requires: []schema.GroupVersionResource{batchv1.SchemeGroupVersion.WithResource("jobs")}},
		{Name: TTLAfterFinished, Aliases: []string{"ttl-after-finished"}, ServiceAccount: "ttl-after-finished-controller", Start: startTTLAfterFinished,
			Requires: []schema.GroupVersionResource{batchv1.SchemeGroupVersion.WithResource("jobs")}},
		{Name: StatefulSet, Aliases: []string{"statefulset"}, ServiceAccount: "statefulset-controller", Start: startStatefulSet,
			Requires: []schema.GroupVersionResource{appsv1.SchemeGroupVersion.WithResource("statefulsets"), appsv1.SchemeGroupVersion.WithResource("controllerrevisions")}},
		{Name: DaemonSet, Aliases: []string{"daemonset"}, ServiceAccount: "daemon-set-controller", Start: startDaemonSet,
			Requires: []schema.GroupVersionResource{appsv1.SchemeGroupVersion.WithResource("daemonsets"), appsv1.SchemeGroupVersion.WithResource("controllerrevisions")}},
		{Name: CronJob, Aliases: []string{"cronjob"}, ServiceAccount: "cronjob-controller", Start: startCronJob,
			Requires: []schema.GroupVersionResource{batchv1.SchemeGroupVersion.WithResource("cronjobs"), batchv1.SchemeGroupVersion.WithResource("jobs")}},
		{Name: NodeLifecycle, Aliases: []string{"nodelifecycle"}, ServiceAccount: "node-controller", Start: startNodeLifecycle},
		{Name: PodGarbageCollector, Aliases: []string{"podgc"}, ServiceAccount: "pod-garbage-collector", Start: startPodGC},
		{Name: NodeIPAM, Aliases: []string{"nodeipam"}, ServiceAccount: "node-controller", Start: startNodeIPAM},
		{Name: Scheduler, Start: startScheduler},
		{Name: SimulatedKubelet, Start: startKubelets},
	}
}

// Names lists the names of All.
func Names() []string {
	var names []string
	for _, c := range All() {
		names = append(names, c.Name)
	}
	return names
}

// Canonical is the name of the controller that name is an alias of, or name itself.
func Canonical(name string) string {
	for _, c := range All() {
		if slices.Contains(c.Aliases, name) {
			return c.Name
		}
	}
	return name
}

// Run starts the controllers that enabled chooses, then the shared informers, and returns
// once they are started: it does not wait for ctx. When ctx is done the controllers stop;
// c.Wait waits for all of them to have returned, as kube-controller-manager waits for its
// controllers on shutdown. A start that fails leaves those started before it running until
// ctx is done.
func Run(ctx context.Context, c *Context, enabled func(name string) bool) error {
	// As kube-controller-manager's CreateControllerContext: one REST mapper over cached
	// discovery, reset every 30 s.
	c.RESTMapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Client.Discovery()))
	c.Go(func() { wait.Until(c.RESTMapper.Reset, 30*time.Second, ctx.Done()) })
	// One event broadcaster for all of them (loop.Events says why), stopped and waited for
	// like a controller. A context of its own, not ctx reassigned: the goroutine above reads ctx.
	events := loop.NewEvents(ctx)
	c.Go(func() {
		<-ctx.Done()
		events.Stop()
	})
	withEvents := loop.WithEvents(ctx, events)

	for _, ctrl := range All() {
		if !enabled(ctrl.Name) {
			continue
		}
		if missing := unserved(c, ctrl.Requires); len(missing) > 0 {
			klog.InfoS("not starting controller: the chain does not serve what it works on", "controller", ctrl.Name, "resources", missing)
			continue
		}
		as, err := c.clientsFor(ctrl)
		if err != nil {
			return fmt.Errorf("the clients of %s: %w", ctrl.Name, err)
		}
		if err := ctrl.Start(withEvents, c, as); err != nil {
			return fmt.Errorf("starting %s: %w", ctrl.Name, err)
		}
		klog.V(1).InfoS("started controller", "controller", ctrl.Name)
	}
	c.Informers.Start(ctx.Done())
	return nil
}

// unserved returns those of resources the chain does not serve. It asks each group version
// itself (the aggregator's merged discovery may not list a local group yet this early); when it
// cannot tell, it assumes the resource is served.
func unserved(c *Context, resources []schema.GroupVersionResource) []string {
	var missing []string
	for _, r := range resources {
		list, err := c.Client.Discovery().ServerResourcesForGroupVersion(r.GroupVersion().String())
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, r.String())
		case err != nil:
			klog.ErrorS(err, "discovery failed, assuming the resource is served", "resource", r)
		case !slices.ContainsFunc(list.APIResources, func(a metav1.APIResource) bool { return a.Name == r.Resource }):
			missing = append(missing, r.String())
		}
	}
	return missing
}

func startNamespace(ctx context.Context, c *Context, as Clients) error {
	nc, err := namespace.New(as.Client, as.Metadata, c.Informers.Core().V1().Namespaces())
	if err != nil {
		return err
	}
	c.Go(func() { nc.Run(ctx, 10) }) // kube-controller-manager's --concurrent-namespace-syncs
	return nil
}

// gcSyncPeriod is how often the garbage collector rereads discovery to monitor new resources
// (CRDs) and stop monitoring removed ones. kube-controller-manager uses 30 s; the chain, whose
// CRDs come and go with tests, 10 s.
const gcSyncPeriod = 10 * time.Second

func startGarbageCollector(ctx context.Context, c *Context, as Clients) error {
	gc := garbagecollector.New(as.Metadata, as.Client.Discovery(), c.RESTMapper, c.Informers)
	c.Go(func() { gc.Run(ctx, 20, gcSyncPeriod) }) // kube-controller-manager's --concurrent-gc-syncs
	return nil
}

func startServiceAccount(ctx context.Context, c *Context, as Clients) error {
	sac, err := serviceaccount.New(as.Client, c.Informers.Core().V1().Namespaces(), c.Informers.Core().V1().ServiceAccounts())
	if err != nil {
		return err
	}
	c.Go(func() { sac.Run(ctx, 1) })
	return nil
}

func startRootCACertificatePublisher(ctx context.Context, c *Context, as Clients) error {
	p, err := rootcacertpublisher.New(as.Client, c.RootCA, c.Informers.Core().V1().Namespaces(), c.Informers.Core().V1().ConfigMaps())
	if err != nil {
		return err
	}
	c.Go(func() { p.Run(ctx, 1) })
	return nil
}

func startClusterRoleAggregation(ctx context.Context, c *Context, as Clients) error {
	crac, err := clusterroleaggregation.New(as.Client.RbacV1(), c.Informers.Rbac().V1().ClusterRoles())
	if err != nil {
		return err
	}
	c.Go(func() { crac.Run(ctx, 5) })
	return nil
}

// The workload controllers run kube-controller-manager's default number of workers
// (--concurrent-deployment-syncs, --concurrent-replicaset-syncs, …: 5).

func startDeployment(ctx context.Context, c *Context, as Clients) error {
	dc, err := deployment.New(as.Client, c.Informers.Apps().V1().Deployments(), c.Informers.Apps().V1().ReplicaSets(), c.Informers.Core().V1().Pods())
	if err != nil {
		return err
	}
	c.Go(func() { dc.Run(ctx, 5) })
	return nil
}

func startReplicaSet(ctx context.Context, c *Context, as Clients) error {
	rsc, err := replicaset.NewForReplicaSets(as.Client, c.Informers.Apps().V1().ReplicaSets(), c.Informers.Core().V1().Pods())
	if err != nil {
		return err
	}
	c.Go(func() { rsc.Run(ctx, 5) })
	return nil
}

func startReplicationController(ctx context.Context, c *Context, as Clients) error {
	rcc, err := replicaset.NewForReplicationControllers(as.Client, c.Informers.Core().V1().ReplicationControllers(), c.Informers.Core().V1().Pods())
	if err != nil {
		return err
	}
	c.Go(func() { rcc.Run(ctx, 5) })
	return nil
}

func startJob(ctx context.Context, c *Context, as Clients) error {
	jc, err := job.New(as.Client, c.Informers.Batch().V1().Jobs(), c.Informers.Core().V1().Pods())
	if err != nil {
		return err
	}
	c.Go(func() { jc.Run(ctx, 5) })
	return nil
}

func startTTLAfterFinished(ctx context.Context, c *Context, as Clients) error {
	tc, err := ttlafterfinished.New(as.Client, c.Informers.Batch().V1().Jobs())
	if err != nil {
		return err
	}
	c.Go(func() { tc.Run(ctx, 5) })
	return nil
}

func startStatefulSet(ctx context.Context, c *Context, as Clients) error {
	sc, err := statefulset.New(as.Client, c.Informers.Apps().V1().StatefulSets(), c.Informers.Core().V1().Pods(),
		c.Informers.Core().V1().PersistentVolumeClaims(), c.Informers.Apps().V1().ControllerRevisions())
	if err != nil {
		return err
	}
	c.Go(func() { sc.Run(ctx, 5) })
	return nil
}

func startDaemonSet(ctx context.Context, c *Context, as Clients) error {
	dc, err := daemonset.New(as.Client, c.Informers.Apps().V1().DaemonSets(), c.Informers.Core().V1().Pods(),
		c.Informers.Core().V1().Nodes(), c.Informers.Apps().V1().ControllerRevisions())
	if err != nil {
		return err
	}
	c.Go(func() { dc.Run(ctx, 2) }) // kube-controller-manager's --concurrent-daemonset-syncs
	return nil
}

func startCronJob(ctx context.Context, c *Context, as Clients) error {
	cc, err := cronjob.New(as.Client, c.Informers.Batch().V1().CronJobs(), c.Informers.Batch().V1().Jobs())
	if err != nil {
		return err
	}
	c.Go(func() { cc.Run(ctx, 5) })
	return nil
}

func startNodeLifecycle(ctx context.Context, c *Context, as Clients) error {
	nlc, err := nodelifecycle.New(as.Client, c.Informers.Core().V1().Nodes())
	if err != nil {
		return err
	}
	c.Go(func() { nlc.Run(ctx, 1) })
	return nil
}

func startPodGC(ctx context.Context, c *Context, as Clients) error {
	gc, err := podgc.New(podgc.Config{Client: as.Client, Quarantine: podgc.Quarantine, Threshold: podgc.TerminatedPodThreshold},
		c.Informers.Core().V1().Pods(), c.Informers.Core().V1().Nodes())
	if err != nil {
		return err
	}
	c.Go(func() { gc.Run(ctx, 5) })
	return nil
}

func startScheduler(ctx context.Context, c *Context, as Clients) error {
	s, err := scheduler.New(as.Client, c.Informers.Core().V1().Pods(), c.Informers.Core().V1().Nodes())
	if err != nil {
		return err
	}
	c.Go(func() { s.Run(ctx) })
	return nil
}

func startNodeIPAM(ctx context.Context, c *Context, as Clients) error {
	ipam, err := nodeipam.New(as.Client, c.Informers.Core().V1().Nodes(), nodeipam.Config{
		ClusterCIDR: c.ClusterCIDR, NodeMaskSize: c.NodeCIDRMaskSize, ServiceCIDR: c.ServiceCIDR})
	if err != nil {
		return err
	}
	c.Go(func() { ipam.Run(ctx, 4) })
	return nil
}

func startKubelets(ctx context.Context, c *Context, as Clients) error {
	kc := kubelet.Config{Client: as.Client, Informers: c.Informers, Host: true, Nodes: c.Nodes,
		StatusReportFrequency: c.NodeStatusReportFrequency,
		ServingCert:           c.KubeletCert, ServingKey: c.KubeletKey, ClientCA: c.KubeletClientCA,
		TracerProvider: c.KubeletTracerProvider}
	if c.Credentials != nil {
		// Each node's kubelet acts as its node.
		kc.NodeClient = func(name string) (kubelet.NodeAPI, error) {
			cfg, err := c.Credentials.Node(name)
			if err != nil {
				return nil, err
			}
			return kubelet.NewNodeClient(cfg)
		}
	}
	sim, err := kubelet.New(kc)
	if err != nil {
		return err
	}
	c.Go(func() {
		if err := sim.Run(ctx); err != nil {
			klog.ErrorS(err, "controller stopped", "controller", SimulatedKubelet)
		}
	})
	return nil
}
