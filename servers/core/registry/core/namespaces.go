package core

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/util/dryrun"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
)

// namespaces follows kubernetes pkg/registry/core/namespace (strategy.go, storage/storage.go).
var namespaces = &resource.Definition{
	Resource: "namespaces", Singular: "namespace",
	New:            func() runtime.Object { return &corev1.Namespace{} },
	NewList:        func() runtime.Object { return &corev1.NamespaceList{} },
	ShortNames:     []string{"ns"},
	Table:          printers.Namespace,
	Status:         true,
	FieldSelectors: []string{"status.phase"},
	Fields: resource.FieldsOf(func(ns *corev1.Namespace) fields.Set {
		return fields.Set{"status.phase": string(ns.Status.Phase)}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		ns := obj.(*corev1.Namespace)
		ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		// The kubernetes finalizer is required on create; it is removed by the namespace
		// controller once the namespace is empty.
		for _, f := range ns.Spec.Finalizers {
			if f == corev1.FinalizerKubernetes {
				return
			}
		}
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		// spec.finalizers change only through /finalize.
		obj.(*corev1.Namespace).Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
	},
	Canonicalize: func(obj runtime.Object) {
		ns := obj.(*corev1.Namespace)
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	},
	// All of the namespace's storage (status and finalize too) deletes it only once the
	// namespace controller has removed spec.finalizers.
	ShouldDeleteDuringUpdate: func(ctx context.Context, key string, obj, existing runtime.Object) bool {
		ns := obj.(*corev1.Namespace)
		return len(ns.Spec.Finalizers) == 0 && genericregistry.ShouldDeleteDuringUpdate(ctx, key, obj, existing)
	},
	Validate:             resource.Check(corevalidation.ValidateNamespace),
	ValidateUpdate:       resource.CheckUpdate(corevalidation.ValidateNamespaceUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(corevalidation.ValidateNamespaceStatusUpdate),
}

// NamespaceREST is the namespaces resource. It is not the generic store as is: deleting a
// namespace first only marks it Terminating (the namespace controller empties it and removes
// the finalizer, and only then is it gone), and there is no deletecollection.
type NamespaceREST struct {
	store *resource.Storage
}

// Everything of rest.StandardStorage but rest.CollectionDeleter.
var (
	_ rest.Getter             = &NamespaceREST{}
	_ rest.Lister             = &NamespaceREST{}
	_ rest.Watcher            = &NamespaceREST{}
	_ rest.Creater            = &NamespaceREST{}
	_ rest.Updater            = &NamespaceREST{}
	_ rest.GracefulDeleter    = &NamespaceREST{}
	_ rest.Scoper             = &NamespaceREST{}
	_ rest.ShortNamesProvider = &NamespaceREST{}
)

func newNamespaceREST(s *resource.Storage) (*NamespaceREST, *resource.SubresourceREST) {
	finalize := s.Subresource(
		func(ctx context.Context, obj, old runtime.Object) {
			obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
		},
		resource.CheckUpdate(corevalidation.ValidateNamespaceFinalizeUpdate))
	return &NamespaceREST{store: s}, finalize
}

func (r *NamespaceREST) New() runtime.Object     { return r.store.New() }
func (r *NamespaceREST) NewList() runtime.Object { return r.store.NewList() }
func (r *NamespaceREST) Destroy()                { r.store.Destroy() }
func (r *NamespaceREST) NamespaceScoped() bool   { return false }
func (r *NamespaceREST) ShortNames() []string    { return r.store.ShortNames() }
func (r *NamespaceREST) GetSingularName() string { return r.store.GetSingularName() }
func (r *NamespaceREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}
func (r *NamespaceREST) ConvertToTable(ctx context.Context, obj, opts runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, opts)
}
func (r *NamespaceREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}
func (r *NamespaceREST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}
func (r *NamespaceREST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}
func (r *NamespaceREST) Create(ctx context.Context, obj runtime.Object, v rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, v, options)
}
func (r *NamespaceREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, cv rest.ValidateObjectFunc, uv rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, cv, uv, forceAllowCreate, options)
}

// Delete marks the namespace Terminating on the first request; once the finalizers are gone
// it deletes it (kubernetes pkg/registry/core/namespace/storage/storage.go).
func (r *NamespaceREST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	}
	if options.Preconditions == nil {
		options.Preconditions = &metav1.Preconditions{}
	}
	if options.Preconditions.UID == nil {
		options.Preconditions.UID = &ns.UID
	} else if *options.Preconditions.UID != ns.UID {
		return nil, false, apierrors.NewConflict(corev1.Resource("namespaces"), name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *options.Preconditions.UID, ns.UID))
	}
	if rv := options.Preconditions.ResourceVersion; rv != nil && *rv != ns.ResourceVersion {
		return nil, false, apierrors.NewConflict(corev1.Resource("namespaces"), name,
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *rv, ns.ResourceVersion))
	}

	if ns.DeletionTimestamp.IsZero() {
		key, err := r.store.KeyFunc(ctx, name)
		if err != nil {
			return nil, false, err
		}
		preconditions := storage.Preconditions{UID: options.Preconditions.UID, ResourceVersion: options.Preconditions.ResourceVersion}
		out := r.store.NewFunc()
		err = r.store.Storage.GuaranteedUpdate(ctx, key, out, false, &preconditions,
			storage.SimpleUpdate(func(existing runtime.Object) (runtime.Object, error) {
				ns := existing.(*corev1.Namespace)
				if err := deleteValidation(ctx, ns); err != nil {
					return nil, err
				}
				if ns.DeletionTimestamp.IsZero() {
					now := metav1.Now()
					ns.DeletionTimestamp = &now
				}
				ns.Status.Phase = corev1.NamespaceTerminating
				ns.Finalizers = dependentsFinalizers(ns.Finalizers, options)
				return ns, nil
			}), dryrun.IsDryRun(options.DryRun), nil)
		if err != nil {
			err = storeerr.InterpretGetError(err, corev1.Resource("namespaces"), name)
			err = storeerr.InterpretUpdateError(err, corev1.Resource("namespaces"), name)
			if _, ok := err.(*apierrors.StatusError); !ok {
				err = apierrors.NewInternalError(err)
			}
			return nil, false, err
		}
		return out, false, nil
	}
	if len(ns.Spec.Finalizers) != 0 {
		return ns, false, nil
	}
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// dependentsFinalizers sets the orphan / foregroundDeletion metadata finalizers the way the
// delete options ask, for the garbage collector.
func dependentsFinalizers(current []string, options *metav1.DeleteOptions) []string {
	has := map[string]bool{}
	for _, f := range current {
		has[f] = true
	}
	want := map[string]bool{
		metav1.FinalizerOrphanDependents: has[metav1.FinalizerOrphanDependents],
		metav1.FinalizerDeleteDependents: has[metav1.FinalizerDeleteDependents],
	}
	//nolint:staticcheck // OrphanDependents is deprecated but still honoured, as upstream does.
	if o := options.OrphanDependents; o != nil {
		want[metav1.FinalizerOrphanDependents] = *o
		want[metav1.FinalizerDeleteDependents] = !*o
	} else if p := options.PropagationPolicy; p != nil {
		want[metav1.FinalizerOrphanDependents] = *p == metav1.DeletePropagationOrphan
		want[metav1.FinalizerDeleteDependents] = *p == metav1.DeletePropagationForeground
	}
	var out []string
	for _, f := range current {
		if _, managed := want[f]; !managed {
			out = append(out, f)
		}
	}
	for _, f := range []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents} {
		if want[f] {
			out = append(out, f)
		}
	}
	return out
}
