// Package garbagecollector deletes objects whose owners are gone, and carries out the foreground
// and orphan deletions the API server only starts.
//
// An object names its owners in metadata.ownerReferences (kind, name and UID). Deleting an
// owner, the API server honours the request's propagationPolicy only by marking the owner:
// Background deletes it at once; Foreground keeps it, deleting, with the finalizer
// "foregroundDeletion"; Orphan keeps it with the finalizer "orphan". kube-controller-manager's
// garbage collector does the rest. It watches every resource that can be listed, watched and
// deleted (custom resources too, rediscovered periodically), keeps a graph of who owns whom, and:
//   - deletes a dependent once none of its owners exists any more (an owner "exists" only under
//     the dependent's owner reference: same name, same UID, and, for a namespaced owner, the
//     dependent's namespace; a cluster-scoped dependent cannot have a namespaced owner);
//   - for an owner deleting in the foreground, deletes its dependents first and removes the
//     finalizer once no dependent with blockOwnerDeletion is left;
//   - for an owner deleting with orphan, removes the owner reference from every dependent, then
//     the finalizer.
//
// Ours does the same without the graph. Every resource gets a metadata-only informer indexed by
// UID and by owner UID: "who are X's dependents" is one index lookup per resource. One queue of
// object UIDs feeds one sync function that looks at a single object (its owners, or, while it
// is being deleted, its dependents) and does the next step; informer events queue the objects a
// change may concern. An owner missing from the caches is confirmed missing with a live read
// before anything is deleted, so a lagging cache never costs an object.
//
// Left out: the events kube records (OwnerRefInvalidNamespace and the like), its metrics and
// debug graph, and the graph itself, with its "virtual" nodes for owners nobody watches: an
// owner of a kind the collector does not watch is read when its dependent is looked at, but its
// deletion is not noticed until that dependent changes or discovery changes.
package garbagecollector

import (
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// GarbageCollector is the collector. Build it with New, start it with Run.
type GarbageCollector struct {
	client    metadata.Interface
	shared    informers.SharedInformerFactory // may be nil: every monitor is then the collector's own
	discovery discovery.DiscoveryInterface
	mapper    meta.ResettableRESTMapper
	queue     workqueue.TypedRateLimitingInterface[types.UID]

	mu       sync.RWMutex
	monitors map[schema.GroupResource]*monitor
}

// New returns a collector that reads and writes through client, finds resources through disc,
// resolves owner kinds with mapper, and watches the resources that shared has the types of
// through shared's informers (shared may be nil).
func New(client metadata.Interface, disc discovery.DiscoveryInterface, mapper meta.ResettableRESTMapper, shared informers.SharedInformerFactory) *GarbageCollector {
	return &GarbageCollector{
		client:    client,
		shared:    shared,
		discovery: disc,
		mapper:    mapper,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.UID](),
			workqueue.TypedRateLimitingQueueConfig[types.UID]{Name: "garbage_collector"}),
		monitors: map[schema.GroupResource]*monitor{},
	}
}

// Run collects with workers goroutines until ctx is done, rereading discovery every
// resyncPeriod to watch new resources and stop watching removed ones. It returns once the
// workers and the resync have finished, and stops every monitor.
func (gc *GarbageCollector) Run(ctx context.Context, workers int, resyncPeriod time.Duration) {
	var resync sync.WaitGroup
	resync.Go(func() {
		wait.UntilWithContext(ctx, func(ctx context.Context) { gc.resync(ctx, resyncPeriod) }, resyncPeriod)
	})
	// No caches to wait for first: the monitors come and go with discovery, and a decision that
	// needs every cache filled waits for them itself (errNotSynced).
	loop.Run(ctx, gc.queue, workers, gc.sync)
	resync.Wait()
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for _, m := range gc.monitors {
		m.stop()
	}
}

// handler queues, for every change an informer sees, the objects the change may concern.
func (gc *GarbageCollector) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := asMeta(obj); ok && concerned(o) {
				gc.queue.Add(o.UID)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, ok1 := asMeta(oldObj)
			o, ok2 := asMeta(obj)
			if !ok1 || !ok2 || !changedOwnership(old, o) {
				return
			}
			if concerned(o) {
				gc.queue.Add(o.UID)
			}
			// An owner deleting in the foreground may have been waiting for this one.
			gc.addOwners(old)
			gc.addOwners(o)
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			o, ok := asMeta(obj)
			if !ok {
				return
			}
			gc.addOwners(o) // may have been waiting for it
			for _, d := range gc.dependents(o) {
				gc.queue.Add(d.UID) // may have lost their last owner
			}
		},
	}
}

func (gc *GarbageCollector) addOwners(o *metav1.PartialObjectMetadata) {
	for _, ref := range o.OwnerReferences {
		gc.queue.Add(ref.UID)
	}
}

// concerned says whether the collector has anything to decide about o: it has owners, or it
// waits, deleting, for the collector to deal with its dependents.
func concerned(o *metav1.PartialObjectMetadata) bool {
	return len(o.OwnerReferences) > 0 ||
		o.DeletionTimestamp != nil && slices.ContainsFunc(o.Finalizers, func(f string) bool {
			return f == metav1.FinalizerDeleteDependents || f == metav1.FinalizerOrphanDependents
		})
}

// changedOwnership says whether an update changed what the collector looks at.
func changedOwnership(old, o *metav1.PartialObjectMetadata) bool {
	return (old.DeletionTimestamp == nil) != (o.DeletionTimestamp == nil) ||
		!slices.Equal(old.Finalizers, o.Finalizers) ||
		!equality.Semantic.DeepEqual(old.OwnerReferences, o.OwnerReferences)
}
