package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Owner is an object that controls others through their controller reference: a ReplicaSet its
// pods, a Deployment its ReplicaSets, a Job its pods.
type Owner struct {
	Object   metav1.Object
	Kind     schema.GroupVersionKind
	Selector labels.Selector
	// Fresh reads the owner from the API rather than the cache. Claim calls it before it adopts
	// anything: an owner being deleted, or deleted and created again under the same name, must
	// not adopt.
	Fresh func(ctx context.Context) (metav1.Object, error)
	// Patch applies a strategic merge patch to the dependent called name, in the owner's namespace.
	Patch func(ctx context.Context, name string, patch []byte) error
	// ReleaseFinalizer, when set, is a finalizer the owner puts on its dependents (a Job's
	// tracking finalizer) and takes off those it releases.
	ReleaseFinalizer string
}

// Ref is the reference an owner puts on what it creates or adopts: it is their controller, and
// a foreground deletion of the owner waits for them.
func (o *Owner) Ref() metav1.OwnerReference {
	return *metav1.NewControllerRef(o.Object, o.Kind)
}

// ObjectRef is the owner as the subject of an event.
func (o *Owner) ObjectRef() *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: o.Kind.GroupVersion().String(), Kind: o.Kind.Kind,
		Namespace: o.Object.GetNamespace(), Name: o.Object.GetName(), UID: o.Object.GetUID()}
}

// Claim returns those of objects (all candidates in the owner's namespace) that belong to the
// owner: those it controls and its selector matches. On the way it adopts the orphans its
// selector matches, and releases those it controls that its selector no longer matches, so that
// relabelling a pod moves it out of its ReplicaSet, and a new ReplicaSet takes in the matching
// pods nobody controls. An owner being deleted adopts and releases nothing, and nothing being
// deleted is adopted (but it is released: a Job's pod relabelled, then deleted, must not keep
// the Job's finalizer).
func Claim[T metav1.Object](ctx context.Context, o *Owner, objects []T) ([]T, error) {
	var mine []T
	var errs []error
	mayAdopt := o.Object.GetDeletionTimestamp() == nil
	checked := false
	for _, obj := range objects {
		matches := o.Selector.Matches(labels.Set(obj.GetLabels()))
		ref := metav1.GetControllerOfNoCopy(obj)
		switch {
		case ref != nil && ref.UID != o.Object.GetUID():
			// another's
		case ref != nil && matches:
			mine = append(mine, obj)
		case ref != nil:
			if mayAdopt {
				errs = append(errs, o.patch(ctx, obj, "releasing", releasePatch(obj.GetUID(), o.Object.GetUID(), o.ReleaseFinalizer)))
			}
		case matches && mayAdopt && obj.GetDeletionTimestamp() == nil:
			if !checked {
				if err := o.stillThere(ctx); err != nil {
					mayAdopt = false
					errs = append(errs, err)
					continue
				}
				checked = true
			}
			if err := o.patch(ctx, obj, "adopting", adoptPatch(obj.GetUID(), o.Ref())); err != nil {
				errs = append(errs, err)
				continue
			}
			mine = append(mine, obj)
		}
	}
	return mine, errors.Join(errs...)
}

// stillThere fails when the owner, read from the API, is gone, another object, or being deleted.
func (o *Owner) stillThere(ctx context.Context) error {
	fresh, err := o.Fresh(ctx)
	if err != nil {
		return fmt.Errorf("reading %s %s/%s before adopting: %w", o.Kind.Kind, o.Object.GetNamespace(), o.Object.GetName(), err)
	}
	if fresh.GetUID() != o.Object.GetUID() || fresh.GetDeletionTimestamp() != nil {
		return fmt.Errorf("%s %s/%s (uid %s) is gone or being deleted: adopting nothing", o.Kind.Kind, o.Object.GetNamespace(), o.Object.GetName(), o.Object.GetUID())
	}
	return nil
}

func (o *Owner) patch(ctx context.Context, obj metav1.Object, what string, patch []byte) error {
	err := o.Patch(ctx, obj.GetName(), patch)
	// Gone, or another object by now (the uid in the patch did not match): nothing to claim.
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsInvalid(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("%s %s: %w", what, obj.GetName(), err)
}

// The patches merge into metadata.ownerReferences by uid. Each names the dependent's uid too:
// on another object of the same name the patch would change its uid, which the API refuses.

func adoptPatch(dependent types.UID, ref metav1.OwnerReference) []byte {
	return mustJSON(map[string]any{"metadata": map[string]any{"uid": dependent, "ownerReferences": []metav1.OwnerReference{ref}}})
}

func releasePatch(dependent, owner types.UID, finalizer string) []byte {
	meta := map[string]any{"uid": dependent, "ownerReferences": []map[string]any{{"$patch": "delete", "uid": owner}}}
	if finalizer != "" {
		meta["$deleteFromPrimitiveList/finalizers"] = []string{finalizer}
	}
	return mustJSON(map[string]any{"metadata": meta})
}

// DropFinalizerPatch is a strategic merge patch that takes finalizer off the object with uid.
func DropFinalizerPatch(uid types.UID, finalizer string) []byte {
	return mustJSON(map[string]any{"metadata": map[string]any{"uid": uid, "$deleteFromPrimitiveList/finalizers": []string{finalizer}}})
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and owner references always marshal
	}
	return data
}
