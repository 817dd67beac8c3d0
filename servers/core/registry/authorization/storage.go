// Package authorization is the authorization.k8s.io API group of the Core server:
// SubjectAccessReview (aggregated API servers ask the chain whether a user may do something),
// SelfSubjectAccessReview (`kubectl auth can-i`), LocalSubjectAccessReview and
// SelfSubjectRulesReview (`kubectl auth can-i --list`), following kubernetes
// pkg/registry/authorization. None is stored: each answers a create with the chain's own
// authorizer, or its rule resolver.
package authorization

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	authzvalidation "github.com/apichain/apichain/servers/core/validation/authorization"
)

// AddToScheme registers the authorization.k8s.io/v1 types.
func AddToScheme(scheme *runtime.Scheme) error {
	return resource.AddToScheme(scheme, authorizationv1.SchemeGroupVersion, authorizationv1.AddToScheme)
}

// StorageProvider builds the group with the chain's authorizer and rule resolver.
type StorageProvider struct {
	Authorizer authorizer.UnconditionalAuthorizer
	// RuleResolver answers SelfSubjectRulesReviews; without one they say incomplete.
	RuleResolver authorizer.RuleResolver
}

var _ registry.StorageProvider = StorageProvider{}

// GroupName implements registry.StorageProvider.
func (StorageProvider) GroupName() string { return authorizationv1.GroupName }

// NewRESTStorage implements registry.StorageProvider.
func (p StorageProvider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, _ generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info := registry.NewAPIGroupInfo(authorizationv1.GroupName, scheme, codecs)
	a := p.Authorizer
	info.VersionedResourcesStorageMap[authorizationv1.SchemeGroupVersion.Version] = map[string]rest.Storage{
		"subjectaccessreviews":      &review{singular: "subjectaccessreview", new: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, ask: subjectAccessReview(a)},
		"selfsubjectaccessreviews":  &review{singular: "selfsubjectaccessreview", new: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, ask: selfSubjectAccessReview(a)},
		"localsubjectaccessreviews": &review{singular: "localsubjectaccessreview", namespaced: true, new: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, ask: localSubjectAccessReview(a)},
		"selfsubjectrulesreviews":   &review{singular: "selfsubjectrulesreview", new: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, ask: selfSubjectRulesReview(p.RuleResolver)},
	}
	return info, nil
}

// review is the create-only REST of the three access reviews; ask validates one, puts the
// question to the authorizer and fills in its status.
type review struct {
	singular   string
	namespaced bool
	new        func() runtime.Object
	ask        func(ctx context.Context, obj runtime.Object) error
}

var (
	_ rest.Creater              = &review{}
	_ rest.SingularNameProvider = &review{}
)

func (r *review) NamespaceScoped() bool   { return r.namespaced }
func (r *review) New() runtime.Object     { return r.new() }
func (r *review) Destroy()                {}
func (r *review) GetSingularName() string { return r.singular }

func (r *review) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if err := r.ask(ctx, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func subjectAccessReview(a authorizer.UnconditionalAuthorizer) func(context.Context, runtime.Object) error {
	return func(ctx context.Context, obj runtime.Object) error {
		sar, ok := obj.(*authorizationv1.SubjectAccessReview)
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", obj))
		}
		if errs := authzvalidation.ValidateSubjectAccessReview(sar); len(errs) > 0 {
			return apierrors.NewInvalid(authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview").GroupKind(), "", errs)
		}
		sar.Status = decide(ctx, a, attributesFrom(sar.Spec))
		return nil
	}
}

func localSubjectAccessReview(a authorizer.UnconditionalAuthorizer) func(context.Context, runtime.Object) error {
	return func(ctx context.Context, obj runtime.Object) error {
		sar, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %T", obj))
		}
		if errs := authzvalidation.ValidateLocalSubjectAccessReview(sar); len(errs) > 0 {
			return apierrors.NewInvalid(authorizationv1.SchemeGroupVersion.WithKind("LocalSubjectAccessReview").GroupKind(), "", errs)
		}
		ns := genericapirequest.NamespaceValue(ctx)
		if ns == "" {
			return apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", ns))
		}
		if ns != sar.Namespace {
			return apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", ns))
		}
		sar.Status = decide(ctx, a, attributesFrom(sar.Spec))
		return nil
	}
}

func selfSubjectAccessReview(a authorizer.UnconditionalAuthorizer) func(context.Context, runtime.Object) error {
	return func(ctx context.Context, obj runtime.Object) error {
		sar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
		}
		if errs := authzvalidation.ValidateSelfSubjectAccessReview(sar); len(errs) > 0 {
			return apierrors.NewInvalid(authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview").GroupKind(), "", errs)
		}
		u, ok := genericapirequest.UserFrom(ctx)
		if !ok {
			return apierrors.NewBadRequest("no user present on request")
		}
		var attrs authorizer.AttributesRecord
		if ra := sar.Spec.ResourceAttributes; ra != nil {
			attrs = resourceAttributes(u, *ra)
		} else {
			attrs = nonResourceAttributes(u, *sar.Spec.NonResourceAttributes)
		}
		sar.Status = decide(ctx, a, attrs)
		return nil
	}
}

func decide(ctx context.Context, a authorizer.UnconditionalAuthorizer, attrs authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	decision, reason, err := a.Authorize(ctx, attrs)
	return authorizationv1.SubjectAccessReviewStatus{
		Allowed:         decision == authorizer.DecisionAllow,
		Denied:          decision == authorizer.DecisionDeny,
		Reason:          reason,
		EvaluationError: evaluationError(err, attrs),
	}
}

func attributesFrom(spec authorizationv1.SubjectAccessReviewSpec) authorizer.AttributesRecord {
	u := &user.DefaultInfo{Name: spec.User, Groups: spec.Groups, UID: spec.UID}
	if spec.Extra != nil {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	if spec.ResourceAttributes != nil {
		return resourceAttributes(u, *spec.ResourceAttributes)
	}
	return nonResourceAttributes(u, *spec.NonResourceAttributes)
}
