// Package apiserverleasegc deletes the identity Leases of API server instances that stopped
// renewing them (they crashed, or were removed), so that kube-system lists the instances that
// are alive. Every chain instance runs it, from a post-start hook; deleting a lease another
// instance has already deleted is fine.
//
// A port of kubernetes pkg/controlplane/controller/apiserverleasegc/gc_controller.go (v1.37.2).
package apiserverleasegc

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	informers "k8s.io/client-go/informers/coordination/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Controller deletes expired identity leases in one namespace.
type Controller struct {
	client        kubernetes.Interface
	namespace     string
	informer      cache.SharedIndexInformer
	lister        listers.LeaseLister
	gcCheckPeriod time.Duration
}

// New watches the leases of namespace that labelSelector selects and checks them every
// gcCheckPeriod.
func New(client kubernetes.Interface, gcCheckPeriod time.Duration, namespace, labelSelector string) *Controller {
	// Its own informer, as upstream's: one namespace, one label, nothing else to share it with.
	informer := informers.NewFilteredLeaseInformer(client, namespace, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		func(o *metav1.ListOptions) { o.LabelSelector = labelSelector })
	return &Controller{
		client:        client,
		namespace:     namespace,
		informer:      informer,
		lister:        listers.NewLeaseLister(informer.GetIndexer()),
		gcCheckPeriod: gcCheckPeriod,
	}
}

// Run collects until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	go c.informer.RunWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.informer.HasSynced) {
		return
	}
	wait.UntilWithContext(ctx, c.gc, c.gcCheckPeriod)
}

func (c *Controller) gc(ctx context.Context) {
	logger := klog.FromContext(ctx)
	leases, err := c.lister.Leases(c.namespace).List(labels.Everything())
	if err != nil {
		logger.Error(err, "Listing apiserver leases")
		return
	}
	for _, cached := range leases {
		if !expired(cached) {
			continue
		}
		// The cache may be behind: look again before deleting a lease that was just renewed.
		lease, err := c.client.CoordinationV1().Leases(c.namespace).Get(ctx, cached.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue // another instance collected it
		}
		if err != nil {
			logger.Error(err, "Getting apiserver lease", "lease", klog.KObj(cached))
			continue
		}
		if !expired(lease) {
			continue
		}
		// Deleting on the resourceVersion read: a renewal in between wins.
		err = c.client.CoordinationV1().Leases(c.namespace).Delete(ctx, lease.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{ResourceVersion: &lease.ResourceVersion}})
		switch {
		case err == nil:
			logger.Info("Deleted expired apiserver lease", "lease", klog.KObj(lease), "holder", holder(lease))
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		default:
			logger.Error(err, "Deleting apiserver lease", "lease", klog.KObj(lease))
		}
	}
}

// expired: the lease was not renewed within its duration, or never said when it would be.
func expired(l *coordinationv1.Lease) bool {
	return l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil ||
		l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second).Before(time.Now())
}

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
