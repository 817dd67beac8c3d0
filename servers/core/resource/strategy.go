package resource

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/validation/declarative"
)

// strategy is the create/update/delete strategy of the main resource, as each kube-apiserver
// pkg/registry/<group>/<resource>/strategy.go is, driven by a Definition.
//
// Like every strategy of kube-apiserver's built-in resources, it opts in to declarative
// validation: with rest.DeclarativeValidation embedded, k8s.io/apiserver runs the generated
// rules registered on the scheme after Validate/ValidateUpdate and merges the two lists
// (rest.ValidateDeclarativelyWithMigrationChecks). The status and custom subresource strategies
// below embed this one, so they do the same.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	rest.DeclarativeValidation
	def         *Definition
	resetFields map[fieldpath.APIVersion]*fieldpath.Set
}

var (
	_ rest.RESTCreateStrategy              = &strategy{}
	_ rest.RESTUpdateStrategy              = &strategy{}
	_ rest.RESTDeleteStrategy              = &strategy{}
	_ rest.RESTGracefulDeleteStrategy      = &strategy{}
	_ rest.ResetFieldsStrategy             = &strategy{}
	_ rest.RESTUpdateStrategy              = &statusStrategy{}
	_ rest.ResetFieldsStrategy             = &statusStrategy{}
	_ rest.GarbageCollectionDeleteStrategy = &strategy{}
	_ rest.DeclarativeValidationStrategy   = &strategy{}
)

func (s *strategy) NamespaceScoped() bool { return s.def.Namespaced }

func (s *strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	if s.def.Status && !s.def.KeepStatusOnCreate && !s.def.MainWritesStatus {
		setStatus(obj, reflect.Zero(statusOf(obj).Type()))
	}
	if s.def.Generation {
		mustMeta(obj).SetGeneration(1)
	}
	if s.def.PrepareForCreate != nil {
		s.def.PrepareForCreate(ctx, obj)
	}
}

func (s *strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	if s.def.Status && !s.def.MainWritesStatus {
		setStatus(obj, statusOf(old))
	}
	if s.def.Generation && !equality.Semantic.DeepEqual(specOf(obj), specOf(old)) {
		mustMeta(obj).SetGeneration(mustMeta(old).GetGeneration() + 1)
	}
	if s.def.PrepareForUpdate != nil {
		s.def.PrepareForUpdate(ctx, obj, old)
	}
}

func (s *strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	if s.def.Validate == nil {
		return nil
	}
	return s.def.Validate(obj)
}

func (s *strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if s.def.ValidateUpdate == nil {
		return nil
	}
	return s.def.ValidateUpdate(obj, old)
}

// DeclarativeValidationConfig implements rest.DeclarativeValidationStrategy: the feature gates
// that the rules test.
func (s *strategy) DeclarativeValidationConfig(ctx context.Context, obj, old runtime.Object) rest.DeclarativeValidationConfig {
	return rest.DeclarativeValidationConfig{Options: declarative.Options()}
}

func (s *strategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string {
	return s.warnings(obj)
}
func (s *strategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return s.warnings(obj)
}

func (s *strategy) warnings(obj runtime.Object) []string {
	if s.def.Warnings == nil {
		return nil
	}
	return s.def.Warnings(obj)
}
func (s *strategy) Canonicalize(obj runtime.Object)          {}
func (s *strategy) AllowCreateOnUpdate(context.Context) bool { return s.def.AllowCreateOnUpdate }
func (s *strategy) AllowUnconditionalUpdate(context.Context) bool {
	return !s.def.ConditionalUpdatesOnly
}
func (s *strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return s.resetFields }

func (s *strategy) CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if s.def.CheckGracefulDelete == nil {
		return false
	}
	return s.def.CheckGracefulDelete(ctx, obj, options)
}

// DefaultGarbageCollectionPolicy is kube-apiserver's for every built-in resource but the legacy
// apps and extensions versions: dependents are deleted in the background, unless the
// Definition keeps another historical default.
func (s *strategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if s.def.GarbageCollectionPolicy != "" {
		return s.def.GarbageCollectionPolicy
	}
	return rest.DeleteDependents
}

// CreateRules and UpdateRules are what a registry that wraps a Definition's strategy (to add
// checks that need the request's context, such as the authorizer) keeps of it: its rules, and its
// declarative validation, which k8s.io/apiserver runs after Validate and ValidateUpdate.
type CreateRules interface {
	rest.RESTCreateStrategy
	rest.DeclarativeValidationStrategy
}

// UpdateRules: see CreateRules.
type UpdateRules interface {
	rest.RESTUpdateStrategy
	rest.DeclarativeValidationStrategy
}

// statusStrategy serves the /status subresource: only status (and the metadata that status
// writers may touch) changes; the rest is taken from the stored object.
type statusStrategy struct {
	*strategy
	resetFields map[fieldpath.APIVersion]*fieldpath.Set
}

func (s *statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	if s.def.PrepareForStatusUpdate != nil {
		s.def.PrepareForStatusUpdate(ctx, obj, old)
		return
	}
	// As kube-apiserver's status strategies do: everything but status comes from the stored
	// object, and metadata keeps only what ResetObjectMetaForStatus lets a status writer change.
	// Copies, taken before obj is overwritten.
	newStatus := reflect.ValueOf(statusOf(obj).Interface())
	newMeta := reflect.ValueOf(metaOf(obj).Interface())
	copyInto(obj, old)
	setStatus(obj, newStatus)
	metaOf(obj).Set(newMeta)
	metav1.ResetObjectMetaForStatus(mustMeta(obj), mustMeta(old))
}

func (s *statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if s.def.ValidateStatusUpdate == nil {
		return nil
	}
	return s.def.ValidateStatusUpdate(obj, old)
}

func (s *statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return s.resetFields
}

// customUpdateStrategy is the update strategy of a subresource with its own rules.
type customUpdateStrategy struct {
	*strategy
	prepare  func(ctx context.Context, obj, old runtime.Object)
	validate func(obj, old runtime.Object) field.ErrorList
}

func (s *customUpdateStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.prepare(ctx, obj, old)
}

func (s *customUpdateStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(obj, old)
}

func mustMeta(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err) // every k8s.io/api top-level type has ObjectMeta
	}
	return m
}

// metaOf returns the ObjectMeta field of a k8s.io/api object.
func metaOf(obj runtime.Object) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName("ObjectMeta")
}

// statusOf returns the Status field of a k8s.io/api object.
func statusOf(obj runtime.Object) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName("Status")
}

func setStatus(obj runtime.Object, v reflect.Value) {
	statusOf(obj).Set(v)
}

// specOf returns what a generation counts: the Spec field where there is one, else everything
// but metadata and status.
func specOf(obj runtime.Object) any {
	v := reflect.ValueOf(obj).Elem()
	if spec := v.FieldByName("Spec"); spec.IsValid() {
		return spec.Interface()
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	for _, f := range []string{"ObjectMeta", "TypeMeta", "Status"} {
		if fv := c.FieldByName(f); fv.IsValid() {
			fv.Set(reflect.Zero(fv.Type()))
		}
	}
	return c.Interface()
}

func copyInto(dst, src runtime.Object) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
}

func reflectField(obj runtime.Object, name string) (reflect.Value, bool) {
	f := reflect.ValueOf(obj).Elem().FieldByName(name)
	return f, f.IsValid()
}

func reflectNew(t reflect.Type) runtime.Object {
	return reflect.New(t).Interface().(runtime.Object)
}
