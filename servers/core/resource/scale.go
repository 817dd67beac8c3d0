package resource

// The /scale subresource, following the ScaleREST types of kubernetes v1.37.2
// pkg/registry/apps/{deployment,replicaset,statefulset}/storage/storage.go and
// pkg/registry/core/replicationcontroller/storage/storage.go, which are the same code four
// times over: read the parent, show its replicas as an autoscaling/v1 Scale, and on update
// move spec.replicas (and the managedFields that own it) back into the parent. Here the
// parent-specific part is the Scale hook of the Definition.

import (
	"context"
	"fmt"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/managedfields"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/printers"
	validation "github.com/apichain/apichain/servers/core/validation/autoscaling"
)

// Scale is how a resource's replicas appear in its autoscaling/v1 Scale.
type Scale struct {
	// Replicas returns the parent's spec.replicas, status.replicas and pod selector (as a
	// label selector string); an error when the selector cannot be converted.
	Replicas func(obj runtime.Object) (spec, status int32, selector string, err error)
	// SetReplicas sets the parent's spec.replicas.
	SetReplicas func(obj runtime.Object, replicas int32)
}

// ScaleREST serves <resource>/scale: get, update and patch of an autoscaling/v1 Scale.
type ScaleREST struct {
	store  *genericregistry.Store
	scale  *Scale
	gv     schema.GroupVersion
	scheme *runtime.Scheme // for the declarative rules of autoscaling/v1 Scale
}

var (
	_ rest.Patcher                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

// GroupVersionKind implements rest.GroupVersionKindProvider: every served version scales through
// autoscaling/v1 Scale.
func (r *ScaleREST) GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// New implements rest.Storage.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy implements rest.Storage; the main store owns the underlying storage.
func (r *ScaleREST) Destroy() {}

// Get returns the Scale of the named object.
func (r *ScaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	scale, err := r.toScale(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%v", err))
	}
	return scale, nil
}

// Update changes spec.replicas of the named object through its Scale.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdatedObjectInfo{name: name, reqObjInfo: objInfo, r: r},
		r.toScaleCreateValidation(createValidation), r.toScaleUpdateValidation(updateValidation), false, options)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.toScale(obj)
	if err != nil {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("%v", err))
	}
	return scale, false, nil
}

// scaleTable prints Scales with the columns of upstream's printScale (pkg/printers/internalversion/printers.go).
var scaleTable = printers.Printer{
	Columns: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Desired", Type: "integer", Description: autoscalingv1.ScaleSpec{}.SwaggerDoc()["replicas"]},
		{Name: "Available", Type: "integer", Description: autoscalingv1.ScaleStatus{}.SwaggerDoc()["replicas"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	Row: func(obj runtime.Object) ([]interface{}, error) {
		s, ok := obj.(*autoscalingv1.Scale)
		if !ok {
			return nil, fmt.Errorf("cannot print %T as a Scale", obj)
		}
		age := "<unknown>"
		if !s.CreationTimestamp.IsZero() {
			age = duration.HumanDuration(time.Since(s.CreationTimestamp.Time))
		}
		return []interface{}{s.Name, int64(s.Spec.Replicas), int64(s.Status.Replicas), age}, nil
	},
}

// ConvertToTable implements rest.TableConvertor.
func (r *ScaleREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return scaleTable.ConvertToTable(ctx, object, tableOptions)
}

// toScale is upstream's scaleFromDeployment (scaleFromRC, ...): the parent's identity, replicas
// and selector.
func (r *ScaleREST) toScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	spec, status, selector, err := r.scale.Replicas(obj)
	if err != nil {
		return nil, err
	}
	m := mustMeta(obj)
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.GetName(),
			Namespace:         m.GetNamespace(),
			UID:               m.GetUID(),
			ResourceVersion:   m.GetResourceVersion(),
			CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: spec},
		Status: autoscalingv1.ScaleStatus{Replicas: status, Selector: selector},
	}, nil
}

// toScaleCreateValidation and toScaleUpdateValidation let admission see Scales, not parents.
func (r *ScaleREST) toScaleCreateValidation(f rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		scale, err := r.toScale(obj)
		if err != nil {
			return err
		}
		return f(ctx, scale)
	}
}

func (r *ScaleREST) toScaleUpdateValidation(f rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		newScale, err := r.toScale(obj)
		if err != nil {
			return err
		}
		oldScale, err := r.toScale(old)
		if err != nil {
			return err
		}
		return f(ctx, newScale, oldScale)
	}
}

func (r *ScaleREST) subresource() schema.GroupResource {
	gr := r.store.DefaultQualifiedResource
	gr.Resource += "/scale"
	return gr
}

// scaleUpdatedObjectInfo transforms existing parent -> existing scale -> new scale -> new parent.
type scaleUpdatedObjectInfo struct {
	name       string
	reqObjInfo rest.UpdatedObjectInfo
	r          *ScaleREST
}

func (i *scaleUpdatedObjectInfo) Preconditions() *metav1.Preconditions {
	return i.reqObjInfo.Preconditions()
}

func (i *scaleUpdatedObjectInfo) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	parent := oldObj.DeepCopyObject()
	m := mustMeta(parent)
	// if zero-value, the existing object does not exist
	if len(m.GetResourceVersion()) == 0 {
		return nil, apierrors.NewNotFound(i.r.subresource(), i.name)
	}

	// The replicas path is spec.replicas in every group version the chain serves.
	groupVersion := i.r.gv
	if info, ok := genericapirequest.RequestInfoFrom(ctx); ok && info.APIVersion != "" {
		groupVersion = schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	}
	replicasPath := managedfields.ResourcePathMappings{groupVersion.String(): fieldpath.MakePathOrDie("spec", "replicas")}
	managedFieldsHandler := managedfields.NewScaleHandler(m.GetManagedFields(), groupVersion, replicasPath)

	// parent -> old scale
	oldScale, err := i.r.toScale(parent)
	if err != nil {
		return nil, err
	}
	scaleManagedFields, err := managedFieldsHandler.ToSubresource()
	if err != nil {
		return nil, err
	}
	oldScale.ManagedFields = scaleManagedFields

	// old scale -> new scale
	newScaleObj, err := i.reqObjInfo.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	if newScaleObj == nil {
		return nil, apierrors.NewBadRequest("nil update passed to Scale")
	}
	scale, ok := newScaleObj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", newScaleObj))
	}

	// validate: our rules, then the declarative ones of autoscaling/v1 Scale (the request's
	// group version is the parent's; the ScaleREST itself maps it to autoscaling/v1), merged as
	// the strategies' are.
	errs := rest.DeclarativeValidation{Scheme: i.r.scheme}.ValidateDeclaratively(ctx, scale, oldScale,
		validation.ValidateScale(scale), operation.Update, rest.DeclarativeValidationConfig{SubresourceGVKMapper: i.r})
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: autoscalingv1.GroupName, Kind: "Scale"}, m.GetName(), errs)
	}

	// validate precondition if specified (resourceVersion matching is handled by storage)
	if len(scale.UID) > 0 && scale.UID != m.GetUID() {
		return nil, apierrors.NewConflict(i.r.subresource(), m.GetName(),
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", scale.UID, m.GetUID()))
	}

	// move replicas/resourceVersion fields to object and return
	i.r.scale.SetReplicas(parent, scale.Spec.Replicas)
	m.SetResourceVersion(scale.ResourceVersion)

	updatedEntries, err := managedFieldsHandler.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, err
	}
	m.SetManagedFields(updatedEntries)
	return parent, nil
}
