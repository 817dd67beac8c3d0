// Package namespace empties deleted namespaces, then lets them go.
//
// Deleting a Namespace only marks it: the API server sets its deletionTimestamp and phase
// Terminating, refuses new objects in it, and keeps it while spec.finalizers holds
// "kubernetes". kube-controller-manager's namespace controller owns that finalizer: it discovers
// every namespaced resource the cluster serves (custom resources included), deletes all of them
// in the namespace, reports its progress as five status conditions, and once nothing is left
// removes the finalizer through the namespaces/finalize subresource; the API server then deletes
// the Namespace.
//
// Ours does the same, on every pass, from scratch: discover, delete pods, wait for them to be
// gone before deleting anything else (a terminating pod may still need its ConfigMaps, Secrets
// and ServiceAccount), delete everything else, list what is left, write the conditions, finalize
// when nothing is left, and otherwise look again after a short backoff. It deletes through the
// metadata client, so one code path serves built-in and custom resources alike.
//
// Left out: kube's estimate of how long pods take to terminate (ours retries with a backoff
// capped at a few seconds instead), its namespace-UID check across retries, and metrics.
package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// errContentRemains asks for another pass: the namespace is not empty yet.
var errContentRemains = errors.New("content remains in the namespace")

// Controller finalizes deleted namespaces. Build it with New, start it with Run.
type Controller struct {
	client     kubernetes.Interface
	discovery  discovery.DiscoveryInterface
	metadata   metadata.Interface
	namespaces corelisters.NamespaceLister
	synced     cache.InformerSynced
	queue      loop.Queue // namespace names
}

// New returns a controller that watches namespaces through informer and deletes their content
// through metadataClient.
func New(client kubernetes.Interface, metadataClient metadata.Interface, informer coreinformers.NamespaceInformer) (*Controller, error) {
	c := &Controller{
		client:     client,
		discovery:  client.Discovery(),
		metadata:   metadataClient,
		namespaces: informer.Lister(),
		synced:     informer.Informer().HasSynced,
		// Another pass follows quickly while content remains, and never waits more than a few
		// seconds: that is how long a namespace lingers after its last finalizer goes.
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 5*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "namespace"}),
	}
	enqueue := func(obj any) {
		if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
			c.queue.Add(ns.Name)
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return c, err
}

// Run finalizes namespaces with workers goroutines until ctx is done, and returns once they
// have finished.
func (c *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, c.queue, workers, c.sync, c.synced)
}

// sync makes one pass over a deleted namespace: delete its content, report, and finalize it
// when nothing is left.
func (c *Controller) sync(ctx context.Context, name string) error {
	ns, err := c.namespaces.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return nil // not deleted, or ours is done
	}

	p := c.deleteContent(ctx, name)
	if ns, err = c.setConditions(ctx, ns, p.conditions()); err != nil {
		return err
	}
	if err := p.err(); err != nil {
		return err
	}
	if len(p.remaining) > 0 {
		return loop.Retry(errContentRemains)
	}

	// Empty: remove our finalizer; the API server deletes the namespace once none is left.
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	if _, err := c.client.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalizing namespace %s: %w", name, err)
	}
	klog.FromContext(ctx).V(2).Info("namespace finalized", "namespace", name)
	return nil
}

// setConditions writes want into the namespace's status where they differ from what it says,
// and returns the namespace as it now is.
func (c *Controller) setConditions(ctx context.Context, ns *corev1.Namespace, want []corev1.NamespaceCondition) (*corev1.Namespace, error) {
	updated := ns.DeepCopy()
	changed := false
	for _, w := range want {
		i := slices.IndexFunc(updated.Status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == w.Type })
		if i < 0 {
			w.LastTransitionTime = metav1.Now()
			updated.Status.Conditions = append(updated.Status.Conditions, w)
			changed = true
			continue
		}
		have := &updated.Status.Conditions[i]
		if have.Status == w.Status && have.Reason == w.Reason && have.Message == w.Message {
			continue
		}
		w.LastTransitionTime = have.LastTransitionTime
		if have.Status != w.Status {
			w.LastTransitionTime = metav1.Now()
		}
		*have = w
		changed = true
	}
	if !changed {
		return ns, nil
	}
	updated, err := c.client.CoreV1().Namespaces().UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("updating the conditions of namespace %s: %w", ns.Name, err)
	}
	return updated, nil
}
