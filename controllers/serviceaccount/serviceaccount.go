// Package serviceaccount gives every namespace its "default" ServiceAccount.
//
// A pod that names no ServiceAccount runs as "default", and the API server's ServiceAccount
// admission refuses a pod whose ServiceAccount does not exist, so every namespace needs one.
// kube-controller-manager's serviceaccount controller creates the ServiceAccounts of its
// configuration (just "default") in every active namespace, at once for a new namespace and
// again whenever one is deleted. Ours does that for "default".
//
// Left out: a configurable list of ServiceAccounts. (Token Secrets for ServiceAccounts are no
// longer made by kube either; tokens come from the TokenRequest API.)
package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// Default is the name of the ServiceAccount every namespace gets.
const Default = "default"

// Controller creates the default ServiceAccounts. Build it with New, start it with Run.
type Controller struct {
	client     kubernetes.Interface
	namespaces corelisters.NamespaceLister
	accounts   corelisters.ServiceAccountLister
	synced     []cache.InformerSynced
	queue      loop.Queue // namespace names
}

// New returns a controller that watches namespaces and their ServiceAccounts through the
// informers, and creates ServiceAccounts with client.
func New(client kubernetes.Interface, namespaces coreinformers.NamespaceInformer, accounts coreinformers.ServiceAccountInformer) (*Controller, error) {
	c := &Controller{
		client:     client,
		namespaces: namespaces.Lister(),
		accounts:   accounts.Lister(),
		synced:     []cache.InformerSynced{namespaces.Informer().HasSynced, accounts.Informer().HasSynced},
		queue:      loop.NewQueue("serviceaccount"),
	}
	addNamespace := func(obj any) {
		if ns, ok := obj.(*corev1.Namespace); ok {
			c.queue.Add(ns.Name)
		}
	}
	if _, err := namespaces.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    addNamespace,
		UpdateFunc: func(_, obj any) { addNamespace(obj) },
	}); err != nil {
		return nil, err
	}
	_, err := accounts.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if sa, ok := obj.(*corev1.ServiceAccount); ok && sa.Name == Default {
				c.queue.Add(sa.Namespace)
			}
		},
	})
	return c, err
}

// Run creates ServiceAccounts with workers goroutines until ctx is done, and returns once they
// have finished.
func (c *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// sync creates the default ServiceAccount of namespace ns if it is missing.
func (c *Controller) sync(ctx context.Context, ns string) error {
	namespace, err := c.namespaces.Get(ns)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if namespace.DeletionTimestamp != nil || namespace.Status.Phase == corev1.NamespaceTerminating {
		return nil // nothing new may be created in it
	}
	if _, err := c.accounts.ServiceAccounts(ns).Get(Default); !apierrors.IsNotFound(err) {
		return err // there already, or the cache failed
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: Default}}
	_, err = c.client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
	switch {
	case err == nil, apierrors.IsAlreadyExists(err), apierrors.IsNotFound(err),
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil // made, made by someone else, or the namespace is going
	default:
		return fmt.Errorf("creating ServiceAccount %s/%s: %w", ns, Default, err)
	}
}
