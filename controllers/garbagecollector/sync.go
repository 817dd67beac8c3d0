package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// errNotSynced: a decision that needs every dependent known waits for every cache.
var errNotSynced = errors.New("waiting for the caches of every resource to fill")

// sync looks at the object with uid, as the API server has it now, and takes the next step:
// for an object in use, check its owners; for one deleting with a finalizer of the collector,
// deal with its dependents.
func (gc *GarbageCollector) sync(ctx context.Context, uid types.UID) error {
	m, cached := gc.find(uid)
	if cached == nil {
		return nil // gone, or of a resource the collector does not watch
	}
	obj, err := gc.get(ctx, m.resource, cached.Namespace, cached.Name)
	if apierrors.IsNotFound(err) || err == nil && obj.UID != uid {
		return nil // gone; its deletion queues what it concerns
	}
	if err != nil {
		return err
	}
	switch {
	case obj.DeletionTimestamp == nil:
		return gc.checkOwners(ctx, m, obj)
	case slices.Contains(obj.Finalizers, metav1.FinalizerOrphanDependents):
		return gc.orphanDependents(ctx, m, obj)
	case slices.Contains(obj.Finalizers, metav1.FinalizerDeleteDependents):
		return gc.deleteDependentsFirst(ctx, m, obj)
	}
	return nil // deleting in the background: its dependents are looked at once it is gone
}

// ownerState is what an owner reference leads to.
type ownerState int

const (
	ownerInUse              ownerState = iota
	ownerGone                          // no such object, another UID, or a reference that cannot hold
	ownerDeletingDependents            // deleting in the foreground: its dependents go first
)

// checkOwners deletes obj when none of its owners is in use, and otherwise drops the references
// to owners that are gone or deleting in the foreground.
func (gc *GarbageCollector) checkOwners(ctx context.Context, m *monitor, obj *metav1.PartialObjectMetadata) error {
	if len(obj.OwnerReferences) == 0 {
		return nil
	}
	var inUse []metav1.OwnerReference
	waitedFor := false
	for _, ref := range obj.OwnerReferences {
		state, err := gc.ownerState(ctx, obj, ref)
		if err != nil {
			return err
		}
		switch state {
		case ownerInUse:
			inUse = append(inUse, ref)
		case ownerDeletingDependents:
			waitedFor = true
		}
	}
	if len(inUse) == len(obj.OwnerReferences) {
		return nil
	}
	if len(inUse) > 0 {
		return gc.patch(ctx, m, obj, "ownerReferences", inUse)
	}
	policy := metav1.DeletePropagationBackground
	if waitedFor && len(gc.dependents(obj)) > 0 {
		// An owner waits for obj to go: obj makes its own dependents go first, so that the
		// owner waits for them too.
		policy = metav1.DeletePropagationForeground
	}
	err := gc.client.Resource(m.resource).Namespace(obj.Namespace).Delete(ctx, obj.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &obj.UID}, PropagationPolicy: &policy})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) { // conflict: another object by that name now
		return fmt.Errorf("deleting %s %s/%s, whose owners are gone: %w", m.resource.Resource, obj.Namespace, obj.Name, err)
	}
	return nil
}

// ownerState resolves ref, an owner reference of dependent, as kube does: a namespaced owner
// is looked for in the dependent's namespace, and a cluster-scoped dependent cannot have one.
func (gc *GarbageCollector) ownerState(ctx context.Context, dependent *metav1.PartialObjectMetadata, ref metav1.OwnerReference) (ownerState, error) {
	kind := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind()
	mapping, err := gc.mapper.RESTMapping(kind)
	if meta.IsNoMatchError(err) {
		// A kind not served yet, or not known to the mapper yet (a CRD just created): the resync
		// that starts watching it queues every dependent again.
		return 0, loop.Retry(fmt.Errorf("resolving owner kind %s: %w", kind, err))
	}
	if err != nil {
		return 0, fmt.Errorf("resolving owner kind %s: %w", kind, err)
	}
	namespace := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if dependent.Namespace == "" {
			return ownerGone, nil
		}
		namespace = dependent.Namespace
	}

	var owner *metav1.PartialObjectMetadata
	if m := gc.monitorFor(mapping.Resource.GroupResource()); m != nil {
		key := ref.Name
		if namespace != "" {
			key = namespace + "/" + ref.Name
		}
		if obj, ok, _ := m.informer.GetIndexer().GetByKey(key); ok {
			owner, _ = asMeta(obj)
		}
	}
	if owner == nil || owner.UID != ref.UID {
		// The cache may lag behind the owner's creation: only the API server can say it is gone.
		owner, err = gc.get(ctx, mapping.Resource, namespace, ref.Name)
		if apierrors.IsNotFound(err) || err == nil && owner.UID != ref.UID {
			return ownerGone, nil
		}
		if err != nil {
			return 0, err
		}
	}
	if owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, metav1.FinalizerDeleteDependents) {
		return ownerDeletingDependents, nil
	}
	return ownerInUse, nil
}

// orphanDependents removes the references to owner from its dependents, then owner's orphan
// finalizer.
func (gc *GarbageCollector) orphanDependents(ctx context.Context, m *monitor, owner *metav1.PartialObjectMetadata) error {
	if !gc.allSynced() {
		return errNotSynced
	}
	for _, d := range gc.dependents(owner) {
		refs := slices.DeleteFunc(slices.Clone(d.OwnerReferences), func(r metav1.OwnerReference) bool { return r.UID == owner.UID })
		if err := gc.patch(ctx, d.monitor, d.PartialObjectMetadata, "ownerReferences", refs); err != nil {
			return err
		}
	}
	return gc.removeFinalizer(ctx, m, owner, metav1.FinalizerOrphanDependents)
}

// deleteDependentsFirst has owner's dependents deleted (they find owner deleting in the
// foreground), and removes owner's foregroundDeletion finalizer once none of them blocks it.
func (gc *GarbageCollector) deleteDependentsFirst(ctx context.Context, m *monitor, owner *metav1.PartialObjectMetadata) error {
	blocked := false
	for _, d := range gc.dependents(owner) {
		if d.DeletionTimestamp == nil {
			gc.queue.Add(d.UID)
		}
		blocked = blocked || slices.ContainsFunc(d.OwnerReferences, func(r metav1.OwnerReference) bool {
			return r.UID == owner.UID && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
		})
	}
	if blocked {
		return nil // a blocking dependent's deletion, or its letting go, queues owner again
	}
	if !gc.allSynced() {
		return errNotSynced
	}
	return gc.removeFinalizer(ctx, m, owner, metav1.FinalizerDeleteDependents)
}

func (gc *GarbageCollector) removeFinalizer(ctx context.Context, m *monitor, obj *metav1.PartialObjectMetadata, finalizer string) error {
	return gc.patch(ctx, m, obj, "finalizers", slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == finalizer }))
}

func (gc *GarbageCollector) get(ctx context.Context, resource schema.GroupVersionResource, namespace, name string) (*metav1.PartialObjectMetadata, error) {
	return gc.client.Resource(resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// patch sets one list field of obj's metadata, by a merge patch that fails with a conflict if
// obj changed since it was read (its resourceVersion).
func (gc *GarbageCollector) patch(ctx context.Context, m *monitor, obj *metav1.PartialObjectMetadata, field string, value any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{field: value, "resourceVersion": obj.ResourceVersion}})
	if err != nil {
		return err
	}
	_, err = gc.client.Resource(m.resource).Namespace(obj.Namespace).Patch(ctx, obj.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("setting the %s of %s %s/%s: %w", field, m.resource.Resource, obj.Namespace, obj.Name, err)
	}
	return nil
}
