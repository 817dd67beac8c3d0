// Package workload is what the chain's workload controllers (replicaset, deployment, job) share:
// the queue and its workers, claiming dependents through controller references, making pods
// from a template, the order in which a scale-down picks pods, and remembering writes the
// informers have not shown yet.
//
// Every controller here has the same shape: shared informers whose event handlers queue the
// key (namespace/name) of the object to look at, and one sync function per controller that
// reads the object and its dependents from the informers' caches, writes what moves them
// toward the spec, and records what it saw in the object's status. Sync can run again at any
// time, for any reason; it never depends on which event queued the key.
package workload

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// Queue is a controller's queue of object keys.
type Queue = workqueue.TypedRateLimitingInterface[string]

// NewQueue returns a queue whose failed keys come back with client-go's default back-off.
func NewQueue(name string) Queue {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// Enqueue adds the key of obj, which may be a deletion's tombstone, to queue.
func Enqueue(queue Queue, obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		queue.Add(key)
	}
}

// Handler queues the key of every object added, updated or deleted: the handler a controller
// puts on the informer of the objects it syncs.
func Handler(queue Queue) cache.ResourceEventHandler {
	enqueue := func(obj any) { Enqueue(queue, obj) }
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}
}

// Run waits for the informers to fill their caches, then has workers goroutines take keys
// from queue and run work (the controller's sync) on them until ctx is done. A key whose work
// fails comes back later, rate limited; one that succeeds is forgotten by the rate limiter.
func Run(ctx context.Context, queue Queue, workers int, work func(context.Context, string) error, synced ...cache.InformerSynced) {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer queue.ShutDown()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next(ctx, queue, work) {
			}
		})
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

func next(ctx context.Context, queue Queue, work func(context.Context, string) error) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)
	if err := work(ctx, key); err != nil {
		// A conflict only means the cache was behind: the retry reads it again.
		if ctx.Err() == nil && !apierrors.IsConflict(err) {
			utilruntime.HandleErrorWithContext(ctx, err, "sync failed, retrying", "key", key)
		}
		queue.AddRateLimited(key)
		return true
	}
	queue.Forget(key)
	return true
}

// Recorder returns an event recorder reporting as component, which stops when ctx is done.
func Recorder(ctx context.Context, client kubernetes.Interface, component string) record.EventRecorder {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	go func() {
		<-ctx.Done()
		broadcaster.Shutdown()
	}()
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
}
