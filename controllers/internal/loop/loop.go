// Package loop is the one loop every controller of the chain runs on: the shape of
// k8s.io/sample-controller's and of kube-controller-manager's controllers, written once.
//
// A controller puts event handlers on shared informers, and they only queue the key of the
// object to look at (namespace/name, or whatever names the controller's unit of work). Run waits
// for the informers to fill their caches, then has a few workers take keys from the queue and
// call the controller's sync function on them. The queue never hands one key to two workers at
// once; a key whose sync fails comes back later, with back-off. When the controller's context
// ends, Run shuts the queue down and returns only once every worker has finished the key in
// hand, so no sync outlives the controller that started it.
//
// Sync reads the object and what it owns from the informers' caches and writes what moves them
// toward the spec. It can run again at any time, for any reason: it never depends on which event
// queued the key.
package loop

import (
	"context"
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
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

// Retry marks err, returned by a sync, as a reason to look at the key again later rather than
// a failure: a namespace whose content is still going, an owner of a kind not known yet. The
// key comes back with back-off as after any error, but err is logged only at verbosity 2.
func Retry(err error) error {
	return &retry{err}
}

type retry struct{ err error }

func (r *retry) Error() string { return r.err.Error() }
func (r *retry) Unwrap() error { return r.err }

// Run waits for the informers to fill their caches, then has workers goroutines take keys
// from queue and run work (the controller's sync) on them until ctx is done; then it shuts the queue down and waits for
// the workers to finish. A key whose work fails comes back later, rate limited; one that
// succeeds is forgotten by the rate limiter. Most queues hold strings (see Queue); K lets a
// controller key its queue by something else, as the garbage collector does by UID.
func Run[K comparable](ctx context.Context, queue workqueue.TypedRateLimitingInterface[K], workers int, work func(context.Context, K) error, synced ...cache.InformerSynced) {
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

func next[K comparable](ctx context.Context, queue workqueue.TypedRateLimitingInterface[K], work func(context.Context, K) error) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)
	if err := work(ctx, key); err != nil {
		var again *retry
		switch {
		case ctx.Err() != nil:
			// Stopping: the error is most likely the cancelled context.
		case errors.As(err, &again):
			klog.FromContext(ctx).V(2).Info("looking again later", "key", key, "reason", err.Error())
		case apierrors.IsConflict(err):
			// Only means the cache was behind: the retry reads it again.
		default:
			utilruntime.HandleErrorWithContext(ctx, err, "sync failed, retrying", "key", key)
		}
		queue.AddRateLimited(key)
		return true
	}
	queue.Forget(key)
	return true
}

// Recorder returns an event recorder reporting as component, whose events client writes. A
// controller started by the chain's controller manager records through the manager's one
// broadcaster (Events, found in ctx), which the manager stops and waits for. Otherwise, as in a
// test that runs one controller, the recorder has an Events of its own, stopped when ctx is
// done but not waited for: a test that stops a chain after its controller had better give the
// controller an Events in ctx (WithEvents) and Stop it first.
func Recorder(ctx context.Context, client kubernetes.Interface, component string) record.EventRecorder {
	if e, ok := ctx.Value(eventsKey{}).(*Events); ok {
		return e.recorder(client, component)
	}
	e := NewEvents(ctx)
	context.AfterFunc(ctx, e.Stop)
	return e.recorder(client, component)
}
