package resource

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/warning"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// REST is the storage of one resource: the upstream generic store plus the discovery details
// (short names, categories) that kube-apiserver's per-resource REST types add.
type REST struct {
	*genericregistry.Store
	def *Definition
}

var (
	_ rest.ShortNamesProvider = &REST{}
	_ rest.CategoriesProvider = &REST{}
)

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return r.def.ShortNames }

// Categories implements rest.CategoriesProvider.
func (r *REST) Categories() []string { return r.def.Categories }

// Delete implements rest.GracefulDeleter, warning as the Definition asks.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	r.warnOrphaning(ctx, options)
	return r.Store.Delete(ctx, name, deleteValidation, options)
}

// DeleteCollection implements rest.CollectionDeleter, warning as the Definition asks.
func (r *REST) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	r.warnOrphaning(ctx, options)
	return r.Store.DeleteCollection(ctx, deleteValidation, options, listOptions)
}

// warnOrphaning is the warning of kubernetes pkg/registry/batch/job/storage/storage.go.
func (r *REST) warnOrphaning(ctx context.Context, options *metav1.DeleteOptions) {
	//nolint:staticcheck // SA1019 OrphanDependents: backwards compatibility, as upstream
	if r.def.OrphanWarning != "" && options != nil && options.PropagationPolicy == nil && options.OrphanDependents == nil &&
		r.def.GarbageCollectionPolicy == rest.OrphanDependents {
		warning.AddWarning(ctx, "", r.def.OrphanWarning)
	}
}

// Watch implements rest.Watcher: the generic store's watch, with the Definition's Decorate
// applied to copies of the objects the watch cache shares between watchers.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	w, err := r.Store.Watch(ctx, options)
	if err != nil || r.def.Decorate == nil {
		return w, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if shared, ok := ev.Object.(runtime.CacheableObject); ok {
			obj := shared.GetObject() // a deep copy
			r.def.Decorate(obj)
			ev.Object = obj
		}
		return ev, true
	}), nil
}

// SubresourceREST serves an update-only subresource such as <resource>/status: get, update and
// patch through its own update strategy.
type SubresourceREST struct {
	store *genericregistry.Store
}

var _ rest.Patcher = &SubresourceREST{}

// New implements rest.Storage.
func (r *SubresourceREST) New() runtime.Object { return r.store.New() }

// Destroy implements rest.Storage; the main store owns the underlying storage.
func (r *SubresourceREST) Destroy() {}

// Get retrieves the object, so that clients can read before they patch /status.
func (r *SubresourceREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update changes the status of an object.
func (r *SubresourceREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Subresources never create the object they belong to.
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields implements rest.ResetFieldsStrategy.
func (r *SubresourceREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable implements rest.TableConvertor.
func (r *SubresourceREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// Storage is what NewStorage builds for one Definition.
type Storage struct {
	*REST
	// Status is nil unless the Definition has a status subresource.
	Status *SubresourceREST
	// Scale is nil unless the Definition has a scale subresource.
	Scale    *ScaleREST
	strategy *strategy
}

// Map returns the storage keyed as APIGroupInfo.VersionedResourcesStorageMap wants it.
func (s *Storage) Map() map[string]rest.Storage {
	m := map[string]rest.Storage{s.def.Resource: s.REST}
	if s.Status != nil {
		m[s.def.Resource+"/status"] = s.Status
	}
	if s.Scale != nil {
		m[s.def.Resource+"/scale"] = s.Scale
	}
	return m
}

// NewStorage builds the generic registry store for def in group version gv.
func NewStorage(def *Definition, gv schema.GroupVersion, scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*Storage, error) {
	apiVersion := fieldpath.APIVersion(gv.String())
	st := &strategy{ObjectTyper: scheme, NameGenerator: def.NameGenerator, DeclarativeValidation: rest.DeclarativeValidation{Scheme: scheme}, def: def}
	if st.NameGenerator == nil {
		st.NameGenerator = names.SimpleNameGenerator
	}
	if def.Status && !def.MainWritesStatus {
		st.resetFields = map[fieldpath.APIVersion]*fieldpath.Set{apiVersion: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	}
	var ttl func(runtime.Object, uint64, bool) (uint64, error)
	if def.TTLSeconds > 0 {
		ttl = func(runtime.Object, uint64, bool) (uint64, error) { return def.TTLSeconds, nil }
	}
	store := &genericregistry.Store{
		NewFunc:                   def.New,
		NewListFunc:               def.NewList,
		DefaultQualifiedResource:  gv.WithResource(def.Resource).GroupResource(),
		SingularQualifiedResource: gv.WithResource(def.Singular).GroupResource(),
		PredicateFunc:             predicate(def),
		TTLFunc:                   ttl,
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ResetFieldsStrategy:       st,
		ReturnDeletedObject:       def.ReturnDeletedObject || def.CheckGracefulDelete != nil, // a graceful delete, as pods: the caller sees the terminating object
		TableConvertor:            def.Table,
		ShouldDeleteDuringUpdate:  def.ShouldDeleteDuringUpdate,
	}
	if def.Decorate != nil {
		store.Decorator = decorator(def.Decorate)
	}
	if store.TableConvertor == nil {
		store.TableConvertor = rest.NewDefaultTableConvertor(store.DefaultQualifiedResource)
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: attrs(def)}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, fmt.Errorf("storage for %s: %w", store.DefaultQualifiedResource, err)
	}
	s := &Storage{REST: &REST{Store: store, def: def}, strategy: st}
	if def.Status {
		ss := &statusStrategy{strategy: st, resetFields: map[fieldpath.APIVersion]*fieldpath.Set{apiVersion: statusResetFields(def)}}
		s.Status = UpdateOnly(store, ss)
	}
	if def.Scale != nil {
		s.Scale = &ScaleREST{store: store, scale: def.Scale, gv: gv, scheme: scheme}
	}
	return s, nil
}

// decorator applies decorate to an object or to every item of a list. The objects of watch
// events from the watch cache are shared by every watcher: REST.Watch decorates copies of them.
func decorator(decorate func(runtime.Object)) func(runtime.Object) {
	return func(obj runtime.Object) {
		if _, shared := obj.(runtime.CacheableObject); shared {
			return
		}
		if !meta.IsListType(obj) {
			decorate(obj)
			return
		}
		_ = meta.EachListItem(obj, func(item runtime.Object) error {
			decorate(item)
			return nil
		})
	}
}

// Subresource returns another update-only view of the same objects (namespaces/finalize): prepare
// and validate replace the main resource's update hooks.
func (s *Storage) Subresource(prepare func(ctx context.Context, obj, old runtime.Object), validate func(obj, old runtime.Object) field.ErrorList) *SubresourceREST {
	return UpdateOnly(s.Store, &customUpdateStrategy{strategy: s.strategy, prepare: prepare, validate: validate})
}

// UpdateStrategy is the strategy of an update-only subresource, with the fields it resets.
type UpdateStrategy interface {
	rest.RESTUpdateStrategy
	rest.ResetFieldsStrategy
}

// UpdateOnly returns an update-only view of main's objects whose updates follow strategy (a
// subresource whose rules no Definition field describes, such as a CSR's /approval).
func UpdateOnly(main *genericregistry.Store, strategy UpdateStrategy) *SubresourceREST {
	store := *main
	store.UpdateStrategy = strategy
	store.ResetFieldsStrategy = strategy
	return &SubresourceREST{store: &store}
}

// statusResetFields is what /status ignores: everything at the top level but status and metadata.
func statusResetFields(def *Definition) *fieldpath.Set {
	set := fieldpath.NewSet()
	if _, ok := reflectField(def.New(), "Spec"); ok {
		set.Insert(fieldpath.MakePathOrDie("spec"))
	}
	return set
}

func predicate(def *Definition) func(labels.Selector, fields.Selector) storage.SelectionPredicate {
	getAttrs := attrs(def)
	return func(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
		return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: getAttrs}
	}
}

// attrs returns the labels and selectable fields of an object: metadata.name, metadata.namespace
// (for namespaced resources) and whatever the Definition adds.
func attrs(def *Definition) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		om, ok := metaOf(obj).Addr().Interface().(*metav1.ObjectMeta)
		if !ok {
			return nil, nil, fmt.Errorf("%T has no ObjectMeta", obj)
		}
		fs := generic.ObjectMetaFieldsSet(om, def.Namespaced)
		if def.Fields != nil {
			fs = generic.MergeFieldsSets(fs, def.Fields(obj))
		}
		return om.Labels, fs, nil
	}
}

// addFieldLabelConversions registers the field selectors of def for kind in scheme; without it
// the apiserver rejects every field selector but metadata.name and metadata.namespace.
func addFieldLabelConversions(scheme *runtime.Scheme, gvk schema.GroupVersionKind, def *Definition) error {
	return scheme.AddFieldLabelConversionFunc(gvk, func(label, value string) (string, string, error) {
		if label == "metadata.name" || (label == "metadata.namespace" && def.Namespaced) || slices.Contains(def.FieldSelectors, label) {
			return label, value, nil
		}
		return "", "", fmt.Errorf("field label not supported: %s", label)
	})
}
