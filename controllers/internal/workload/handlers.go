package workload

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// Dependents is the event handler a controller puts on the informer of what it owns (pods,
// ReplicaSets). owners names the keys of the owners to look at again when obj changes: its
// controller, or for an orphan the owners that may adopt it (see OwnersOf). When expect is not
// nil, the handler tells it the creations and deletions it sees of controlled pods.
func Dependents(queue loop.Queue, expect *Expectations, owners func(obj metav1.Object) (keys []string, controlled bool)) cache.ResourceEventHandler {
	observe := func(obj metav1.Object, created bool) {
		keys, controlled := owners(obj)
		for _, key := range keys {
			if expect != nil && controlled {
				if created {
					expect.Created(key, 1)
				} else {
					expect.Deleted(key, obj.GetUID())
				}
			}
			queue.Add(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(metav1.Object); ok {
				// One being deleted already (seen first after a restart) counts as deleted.
				observe(o, o.GetDeletionTimestamp() == nil)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, cur := oldObj.(metav1.Object), obj.(metav1.Object)
			if old.GetResourceVersion() == cur.GetResourceVersion() {
				return // a resync: nothing changed
			}
			if cur.GetDeletionTimestamp() != nil && old.GetDeletionTimestamp() == nil {
				observe(cur, false)
			}
			// Relabelled or given another controller: the owners it left look again too.
			if !labels.Equals(old.GetLabels(), cur.GetLabels()) || controllerUID(old) != controllerUID(cur) {
				keys, _ := owners(old)
				for _, key := range keys {
					queue.Add(key)
				}
			}
			keys, _ := owners(cur)
			for _, key := range keys {
				queue.Add(key)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if o, ok := obj.(metav1.Object); ok {
				observe(o, false)
			}
		},
	}
}

// OwnersOf finds, among the candidate owners in obj's namespace, the one that controls obj; or,
// when nothing controls obj and it is not being deleted, those whose selector matches it.
func OwnersOf[O metav1.Object](obj metav1.Object, kind schema.GroupVersionKind, candidates []O, selector func(O) labels.Selector) (keys []string, controlled bool) {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || ref.Kind != kind.Kind || gv.Group != kind.Group {
			return nil, false
		}
		for _, c := range candidates {
			if c.GetUID() == ref.UID {
				return []string{c.GetNamespace() + "/" + c.GetName()}, true
			}
		}
		return nil, false
	}
	if obj.GetDeletionTimestamp() != nil {
		return nil, false
	}
	for _, c := range candidates {
		if s := selector(c); s != nil && s.Matches(labels.Set(obj.GetLabels())) {
			keys = append(keys, c.GetNamespace()+"/"+c.GetName())
		}
	}
	return keys, false
}

// Selector is the label selector s as a labels.Selector; nil when it is not valid, or would
// select everything (which no workload may: validation refuses it).
func Selector(s *metav1.LabelSelector) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil || sel.Empty() {
		return nil
	}
	return sel
}

func controllerUID(obj metav1.Object) types.UID {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		return ref.UID
	}
	return ""
}
