package soak

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
)

// InformerWatcher is a client-go informer, as a controller runs it, whose event handlers build
// the view: what a controller's handlers would have been told. Its list, watch, resumption and
// relisting are client-go's own.
type InformerWatcher struct {
	name     string
	informer cache.SharedIndexInformer
	target   Target
	cutter   *Cutter

	seen
}

// NewInformerWatcher wraps informer, which must watch target through a client that dials through
// cutter.
func NewInformerWatcher(name string, informer cache.SharedIndexInformer, target Target, cutter *Cutter) *InformerWatcher {
	w := &InformerWatcher{name: name, informer: informer, target: target, cutter: cutter, seen: seen{view: View{Objects: map[string]uint64{}}}}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.set(obj, "add") },
		UpdateFunc: w.update,
		DeleteFunc: w.delete,
	})
	// Counted, not acted on: the reflector handles the error itself (a 410 makes it list again).
	_ = informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			w.stats.Relists++
		} else {
			w.stats.Rewatches++
		}
	})
	return w
}

func (w *InformerWatcher) Name() string    { return w.name }
func (w *InformerWatcher) Target() Target  { return w.target }
func (w *InformerWatcher) Cutter() *Cutter { return w.cutter }

// Run runs the informer until ctx is done.
func (w *InformerWatcher) Run(ctx context.Context) { w.informer.RunWithContext(ctx) }

func (w *InformerWatcher) set(obj any, how string) {
	key, rv, err := keyAndRV(obj)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.stats.Problems = append(w.stats.Problems, how+": "+err.Error())
		return
	}
	w.stats.Events++
	w.view.Objects[key] = rv
	w.view.RV = max(w.view.RV, rv)
}

// update is told of a change. After a relist client-go also reports objects that did not
// change (the same resourceVersion); never one that went back.
func (w *InformerWatcher) update(oldObj, newObj any) {
	_, oldRV, err1 := keyAndRV(oldObj)
	key, newRV, err2 := keyAndRV(newObj)
	if err1 == nil && err2 == nil && newRV < oldRV {
		w.mu.Lock()
		w.stats.Problems = append(w.stats.Problems, "update of "+key+" to an older resourceVersion")
		w.mu.Unlock()
	}
	w.set(newObj, "update")
}

func (w *InformerWatcher) delete(obj any) {
	tombstone, isTombstone := obj.(cache.DeletedFinalStateUnknown)
	if isTombstone {
		// Deleted while the informer was not watching: it learnt so from a relist.
		obj = tombstone.Obj
	}
	key, rv, err := keyAndRV(obj)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.stats.Problems = append(w.stats.Problems, "delete: "+err.Error())
		return
	}
	w.stats.Events++
	delete(w.view.Objects, key)
	if !isTombstone { // a tombstone carries the object's last known state, not the deletion
		w.view.RV = max(w.view.RV, rv)
	}
}
