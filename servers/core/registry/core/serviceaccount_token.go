package core

// serviceaccounts/token: the TokenRequest subresource behind `kubectl create token` and the
// kubelet's projected tokens. It issues a token for the service account, optionally bound to a
// pod, secret or node, with kube-apiserver's defaults: no maximum lifetime, and kubelet tokens
// extended to a year (--service-account-extend-token-expiration). The tokens themselves are
// internal/serviceaccount's.

import (
	"context"
	"fmt"
	"math"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/apichain/apichain/internal/serviceaccount"
	"github.com/apichain/apichain/servers/core/resource"
)

// ServiceAccountTokens is what serviceaccounts/token needs: who signs, and the API server's
// audiences, which a token is for unless the request names others.
type ServiceAccountTokens struct {
	Generator    serviceaccount.TokenGenerator
	APIAudiences authenticator.Audiences
}

// addServiceAccountToken installs serviceaccounts/token when there is a signer.
func addServiceAccountToken(m map[string]rest.Storage, t ServiceAccountTokens, built map[*resource.Definition]*resource.Storage) {
	if t.Generator == nil {
		return
	}
	m["serviceaccounts/token"] = &TokenREST{
		serviceAccounts: built[serviceAccounts].Store, pods: built[pods].Store, secrets: built[secrets].Store, nodes: built[nodes].Store,
		tokens: t.Generator, audiences: t.APIAudiences,
	}
}

// TokenREST issues service account tokens.
type TokenREST struct {
	serviceAccounts, pods, secrets, nodes rest.Getter
	tokens                                serviceaccount.TokenGenerator
	audiences                             authenticator.Audiences
}

var (
	_ rest.NamedCreater                   = &TokenREST{}
	_ rest.GroupVersionKindProvider       = &TokenREST{}
	_ rest.SubresourceObjectMetaPreserver = &TokenREST{}
)

var (
	tokenRequestKind     = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")
	tokenRequestResource = schema.GroupResource{Group: authenticationv1.GroupName, Resource: "TokenRequest"}
)

func (r *TokenREST) New() runtime.Object { return &authenticationv1.TokenRequest{} }
func (r *TokenREST) Destroy()            {} // the stores are their resources'

// GroupVersionKind: the subresource of a core/v1 resource speaks authentication.k8s.io/v1.
func (r *TokenREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return tokenRequestKind
}

// PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate keeps the request's UID, which
// names the service account the caller means.
func (r *TokenREST) PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate() bool { return true }

// Create issues a token for the service account name of the request's namespace.
func (r *TokenREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	req, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	namespace, ok := genericapirequest.NamespaceFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("namespace is required")
	}
	// metadata may name the service account again, but not another one.
	for _, f := range []struct{ field, got, want string }{{"name", req.Name, name}, {"namespace", req.Namespace, namespace}} {
		if f.got != "" && f.got != f.want {
			return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", f.field), f.got, "must match the service account "+f.field+" if specified")})
		}
	}
	sa, err := getAs[*corev1.ServiceAccount](ctx, r.serviceAccounts, "serviceaccounts", namespace, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if req.UID != "" && req.UID != sa.UID {
		return nil, apierrors.NewConflict(tokenRequestResource, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, sa.UID))
	}

	// Defaults, then what the request is about.
	if req.Spec.ExpirationSeconds == nil {
		hour := int64(time.Hour / time.Second)
		req.Spec.ExpirationSeconds = &hour
	}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = r.audiences
	}
	req.Name, req.Namespace, req.UID = sa.Name, sa.Namespace, sa.UID
	now := time.Now() // before the token: the expiration returned is never after its exp
	req.CreationTimestamp = metav1.NewTime(now)
	req.Status = authenticationv1.TokenRequestStatus{}
	if errs := validateTokenRequest(&req.Spec); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, req.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	seconds := *req.Spec.ExpirationSeconds
	issue := serviceaccount.Request{ServiceAccount: sa, Audiences: req.Spec.Audiences, Lifetime: time.Duration(seconds) * time.Second}
	if ref := req.Spec.BoundObjectRef; ref != nil {
		if err := r.bind(ctx, namespace, ref, &issue); err != nil {
			return nil, err
		}
	}
	if issue.Pod != nil && seconds == serviceaccount.KubeletTokenSeconds && sets.New(r.audiences...).HasAll(req.Spec.Audiences...) {
		issue.WarnAfter, issue.Lifetime = issue.Lifetime, serviceaccount.ExtendedTokenLifetime
	}
	token, err := r.tokens.Issue(issue, now)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}
	out := req.DeepCopy()
	out.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(seconds) * time.Second))}
	return out, nil
}

// bind finds the object ref names and puts it in the token's request: a pod of the service
// account (with the node it runs on), a secret, or a node.
func (r *TokenREST) bind(ctx context.Context, namespace string, ref *authenticationv1.BoundObjectReference, issue *serviceaccount.Request) error {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var uid types.UID
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		pod, err := getAs[*corev1.Pod](ctx, r.pods, "pods", namespace, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pod.Spec.ServiceAccountName != issue.ServiceAccount.Name {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", issue.ServiceAccount.Name))
		}
		issue.Pod, uid = pod, pod.UID
		if pod.Spec.NodeName == "" {
			break
		}
		// The pod's node rides along; from the cache if it can, and by name alone if it is gone.
		node, err := getAs[*corev1.Node](ctx, r.nodes, "nodes", "", pod.Spec.NodeName, &metav1.GetOptions{ResourceVersion: "0"})
		if err != nil {
			node, err = getAs[*corev1.Node](ctx, r.nodes, "nodes", "", pod.Spec.NodeName, &metav1.GetOptions{})
		}
		switch {
		case apierrors.IsNotFound(err):
			node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: pod.Spec.NodeName}}
		case err != nil:
			return apierrors.NewInternalError(err)
		}
		issue.Node = node
	case gvk.Group == "" && gvk.Kind == "Node":
		node, err := getAs[*corev1.Node](ctx, r.nodes, "nodes", "", ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		issue.Node, uid = node, node.UID
	case gvk.Group == "" && gvk.Kind == "Secret":
		secret, err := getAs[*corev1.Secret](ctx, r.secrets, "secrets", namespace, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		issue.Secret, uid = secret, secret.UID
	case gvk.GroupVersion().String() == "admissionregistration.k8s.io/v1" && (gvk.Kind == "ValidatingWebhookConfiguration" || gvk.Kind == "MutatingWebhookConfiguration"):
		// Off in v1.37 (alpha), so kube-apiserver refuses them this way.
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (feature gate APIServerWebhookAuthenticationToken is disabled)", gvk))
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk))
	}
	if ref.UID != "" && ref.UID != uid {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return nil
}

// getAs gets resource namespace/name from store as a T. The request info says what is got:
// the store names the resource in its errors by it.
func getAs[T runtime.Object](ctx context.Context, store rest.Getter, resource, namespace, name string, opts *metav1.GetOptions) (T, error) {
	ctx = genericapirequest.WithNamespace(ctx, namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "get", APIVersion: "v1", Namespace: namespace, Resource: resource, Name: name,
		Parts: []string{resource, name},
	})
	obj, err := store.Get(ctx, name, opts)
	if err != nil {
		var none T
		return none, err
	}
	return obj.(T), nil
}

// validateTokenRequest holds the rules of kube-apiserver's TokenRequest validation that reach
// it here (webhook-bound requests are refused before).
func validateTokenRequest(spec *authenticationv1.TokenRequestSpec) field.ErrorList {
	path := field.NewPath("spec")
	if len(spec.Attestations) > 0 {
		return field.ErrorList{field.Invalid(path.Child("attestations"), spec.Attestations, "attestations may only be specified with a webhook bound object reference")}
	}
	var errs field.ErrorList
	switch seconds := *spec.ExpirationSeconds; {
	case seconds < 10*60:
		errs = append(errs, field.Invalid(path.Child("expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"))
	case seconds > math.MaxUint32+1:
		errs = append(errs, field.Invalid(path.Child("expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}
