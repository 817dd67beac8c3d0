// Package controllers is the chain's small controller manager: what kube-controller-manager,
// kube-scheduler and the kubelets would do in a cluster, each a package of its own
// (controllers/<name>), started from the chain's post-start hook "start-chain-controllers" with
// the loopback client. They reach the chain only through client-go, never through storage.
//
// --controllers chooses them with kube-controller-manager's syntax ("*", "name", "-name"),
// using kube-controller-manager's names where the controller is one of its.
package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/kubelet"
	"github.com/apichain/apichain/controllers/namespace"
	"github.com/apichain/apichain/controllers/scheduler"
)

// Context is what every controller is started with.
type Context struct {
	Client   kubernetes.Interface
	Metadata metadata.Interface
	// Informers is shared by the controllers; the manager starts it after every Start.
	Informers informers.SharedInformerFactory

	// For the simulated kubelets: how many nodes beside the host, and the endpoint's
	// certificate (issued by the chain's server CA).
	Nodes                   int
	KubeletCert, KubeletKey []byte
}

// Controller is one controller: its name for --controllers, and how it starts.
type Controller struct {
	Name string
	// Start starts the controller's goroutines, which stop when ctx is done.
	Start func(ctx context.Context, c *Context) error
}

// Names of the controllers (kube-controller-manager's where it has the controller).
const (
	Namespace        = "namespace-controller"
	SimulatedKubelet = "simulated-kubelet"
	Scheduler        = "scheduler"
)

// All lists every controller, in start order.
func All() []Controller {
	return []Controller{
		{Name: Namespace, Start: startNamespace},
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

// Run starts the controllers that enabled chooses, then the shared informers.
func Run(ctx context.Context, c *Context, enabled func(name string) bool) error {
	for _, ctrl := range All() {
		if !enabled(ctrl.Name) {
			continue
		}
		if err := ctrl.Start(ctx, c); err != nil {
			return err
		}
		klog.V(1).InfoS("started controller", "controller", ctrl.Name)
	}
	c.Informers.Start(ctx.Done())
	return nil
}

func startNamespace(ctx context.Context, c *Context) error {
	nc := namespace.NewNamespaceController(ctx, c.Client, c.Metadata,
		c.Client.Discovery().ServerPreferredNamespacedResources,
		c.Informers.Core().V1().Namespaces(), 5*time.Minute, corev1.FinalizerKubernetes)
	go nc.Run(ctx, 10) // kube-controller-manager's --concurrent-namespace-syncs
	return nil
}

func startScheduler(ctx context.Context, c *Context) error {
	go logFailure("scheduler", func() error { return scheduler.New(c.Client).Run(ctx) })
	return nil
}

func startKubelets(ctx context.Context, c *Context) error {
	sim, err := kubelet.New(kubelet.Config{Client: c.Client, Host: true, Nodes: c.Nodes, ServingCert: c.KubeletCert, ServingKey: c.KubeletKey})
	if err != nil {
		return err
	}
	go logFailure("simulated kubelets", func() error { return sim.Run(ctx) })
	return nil
}

func logFailure(what string, run func() error) {
	if err := run(); err != nil {
		klog.ErrorS(err, "controller stopped", "controller", what)
	}
}
