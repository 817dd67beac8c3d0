// Package authentication is the authentication.k8s.io API group of the Core server: TokenReview
// (aggregated API servers ask the chain who a bearer token belongs to) and SelfSubjectReview
// (`kubectl auth whoami`), following kubernetes pkg/registry/authentication. Neither is stored:
// each answers a create with the chain's own authenticator.
package authentication

import (
	"context"
	"fmt"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// AddToScheme registers the authentication.k8s.io/v1 types.
func AddToScheme(scheme *runtime.Scheme) error {
	return resource.AddToScheme(scheme, authenticationv1.SchemeGroupVersion, authenticationv1.AddToScheme)
}

// StorageProvider builds the group with the chain's authenticator.
type StorageProvider struct {
	Authenticator authenticator.Request
	APIAudiences  authenticator.Audiences
}

var _ registry.StorageProvider = StorageProvider{}

// GroupName implements registry.StorageProvider.
func (StorageProvider) GroupName() string { return authenticationv1.GroupName }

// NewRESTStorage implements registry.StorageProvider.
func (p StorageProvider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, _ generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info := registry.NewAPIGroupInfo(authenticationv1.GroupName, scheme, codecs)
	info.VersionedResourcesStorageMap[authenticationv1.SchemeGroupVersion.Version] = map[string]rest.Storage{
		"tokenreviews":       &TokenReviewREST{authenticator: p.Authenticator, audiences: p.APIAudiences},
		"selfsubjectreviews": &SelfSubjectReviewREST{},
	}
	return info, nil
}

// TokenReviewREST answers TokenReviews (pkg/registry/authentication/tokenreview).
type TokenReviewREST struct {
	authenticator authenticator.Request
	audiences     authenticator.Audiences
}

var (
	_ rest.Creater              = &TokenReviewREST{}
	_ rest.SingularNameProvider = &TokenReviewREST{}
	_ rest.Creater              = &SelfSubjectReviewREST{}
	_ rest.SingularNameProvider = &SelfSubjectReviewREST{}
)

func (r *TokenReviewREST) NamespaceScoped() bool   { return false }
func (r *TokenReviewREST) New() runtime.Object     { return &authenticationv1.TokenReview{} }
func (r *TokenReviewREST) Destroy()                {}
func (r *TokenReviewREST) GetSingularName() string { return "tokenreview" }

// Create authenticates a request that carries nothing but the token, as the chain would
// authenticate a client presenting it.
func (r *TokenReviewREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	review, ok := obj.(*authenticationv1.TokenReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %T", obj))
	}
	if ns := genericapirequest.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	req := &http.Request{Header: http.Header{"Authorization": []string{"Bearer " + review.Spec.Token}}}
	auds := authenticator.Audiences(review.Spec.Audiences)
	if len(auds) == 0 {
		auds = r.audiences
	}
	if len(auds) > 0 {
		req = req.WithContext(authenticator.WithAudiences(ctx, auds))
	} else {
		req = req.WithContext(ctx)
	}
	resp, ok, err := r.authenticator.AuthenticateRequest(req)
	review.Status = authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		review.Status.Error = err.Error()
	}
	if len(auds) > 0 && resp != nil && len(auds.Intersect(resp.Audiences)) == 0 {
		return nil, apierrors.NewInternalError(fmt.Errorf("error validating audiences"))
	}
	if ok && resp != nil && resp.User != nil {
		review.Status.User = userInfo(resp.User.GetName(), resp.User.GetUID(), resp.User.GetGroups(), resp.User.GetExtra())
		review.Status.Audiences = resp.Audiences
	}
	return review, nil
}

// SelfSubjectReviewREST tells callers who the chain thinks they are.
type SelfSubjectReviewREST struct{}

func (r *SelfSubjectReviewREST) NamespaceScoped() bool   { return false }
func (r *SelfSubjectReviewREST) New() runtime.Object     { return &authenticationv1.SelfSubjectReview{} }
func (r *SelfSubjectReviewREST) Destroy()                {}
func (r *SelfSubjectReviewREST) GetSingularName() string { return "selfsubjectreview" }

// Create returns the requesting user.
func (r *SelfSubjectReviewREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %T", obj))
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	return &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfo(u.GetName(), u.GetUID(), u.GetGroups(), u.GetExtra())},
	}, nil
}

func userInfo(name, uid string, groups []string, extra map[string][]string) authenticationv1.UserInfo {
	out := authenticationv1.UserInfo{Username: name, UID: uid, Groups: groups, Extra: map[string]authenticationv1.ExtraValue{}}
	for k, v := range extra {
		out.Extra[k] = v
	}
	return out
}
