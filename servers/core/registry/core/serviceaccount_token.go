package core

// serviceaccounts/token, the TokenRequest subresource (`kubectl create token`), following
// kubernetes v1.37.2 pkg/registry/core/serviceaccount/storage/token.go with kube-apiserver's
// defaults: no maximum expiration, and --service-account-extend-token-expiration on.

import (
	"context"
	"fmt"
	"math"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/serviceaccount"
	"github.com/apichain/apichain/servers/core/resource"
)

// ServiceAccountTokens is what the serviceaccounts/token subresource needs: the signer, and the
// API server's audiences, which tokens are for unless the request names others.
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
		svcaccts: built[serviceAccounts].Store, pods: built[pods].Store, secrets: built[secrets].Store, nodes: built[nodes].Store,
		issuer: t.Generator, auds: t.APIAudiences, audsSet: sets.New(t.APIAudiences...),
		extendExpiration: true, maxExtendedExpirationSeconds: serviceaccount.ExpirationExtensionSeconds,
	}
}

// TokenREST issues tokens for service accounts.
type TokenREST struct {
	svcaccts, pods, secrets, nodes rest.Getter
	issuer                         serviceaccount.TokenGenerator
	auds                           authenticator.Audiences
	audsSet                        sets.Set[string]
	maxExpirationSeconds           int64
	extendExpiration               bool
	maxExtendedExpirationSeconds   int64
}

var (
	_ rest.NamedCreater                   = &TokenREST{}
	_ rest.GroupVersionKindProvider       = &TokenREST{}
	_ rest.SubresourceObjectMetaPreserver = &TokenREST{}
)

var tokenRequestGVK = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// New implements rest.Storage.
func (r *TokenREST) New() runtime.Object { return &authenticationv1.TokenRequest{} }

// Destroy implements rest.Storage; the stores belong to their resources.
func (r *TokenREST) Destroy() {}

// GroupVersionKind implements rest.GroupVersionKindProvider: a TokenRequest of
// authentication.k8s.io/v1, under the core group.
func (r *TokenREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return tokenRequestGVK
}

// PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate keeps the TokenRequest's UID: it
// is checked against the service account's.
func (r *TokenREST) PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate() bool { return true }

// Create issues a token for the service account name.
func (r *TokenREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	req, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, errors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	namespace, ok := genericapirequest.NamespaceFrom(ctx)
	if !ok {
		return nil, errors.NewBadRequest("namespace is required")
	}
	if len(req.Name) > 0 && req.Name != name {
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata").Child("name"), req.Name, "must match the service account name if specified")}
		return nil, errors.NewInvalid(tokenRequestGVK.GroupKind(), name, errs)
	}
	if len(req.Namespace) > 0 && req.Namespace != namespace {
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata").Child("namespace"), req.Namespace, "must match the service account namespace if specified")}
		return nil, errors.NewInvalid(tokenRequestGVK.GroupKind(), name, errs)
	}

	svcacctObj, err := r.svcaccts.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	svcacct := svcacctObj.(*corev1.ServiceAccount)

	// TokenRequestServiceAccountUIDValidation is beta and on in v1.37.
	if len(req.UID) > 0 && req.UID != svcacct.UID {
		return nil, errors.NewConflict(schema.GroupResource{Group: tokenRequestGVK.Group, Resource: tokenRequestGVK.Kind}, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, svcacct.UID))
	}

	// Defaults (pkg/apis/authentication/v1/defaults.go), then the API server's audiences.
	if req.Spec.ExpirationSeconds == nil {
		hour := int64(60 * 60)
		req.Spec.ExpirationSeconds = &hour
	}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = r.auds
	}
	if len(req.Name) == 0 {
		req.Name = svcacct.Name
	}
	if len(req.Namespace) == 0 {
		req.Namespace = svcacct.Namespace
	}
	if len(req.UID) == 0 {
		req.UID = svcacct.UID
	}

	// The time before the token is built: the returned expiration is never after exp.
	nowTime := time.Now()
	req.CreationTimestamp = metav1.NewTime(nowTime)
	req.Status = authenticationv1.TokenRequestStatus{}

	if errs := validateTokenRequest(req); len(errs) != 0 {
		return nil, errors.NewInvalid(tokenRequestGVK.GroupKind(), "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	var (
		pod    *corev1.Pod
		node   *corev1.Node
		secret *corev1.Secret
	)
	if ref := req.Spec.BoundObjectRef; ref != nil {
		var uid types.UID
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		switch {
		case gvk.Group == "" && gvk.Kind == "Pod":
			podObj, err := r.pods.Get(newContext(ctx, "pods", ref.Name, namespace, gvk), ref.Name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			pod = podObj.(*corev1.Pod)
			if name != pod.Spec.ServiceAccountName {
				return nil, errors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", name))
			}
			uid = pod.UID
			if nodeName := pod.Spec.NodeName; nodeName != "" {
				newCtx := newContext(ctx, "nodes", nodeName, "", corev1.SchemeGroupVersion.WithKind("Node"))
				nodeObj, err := r.nodes.Get(newCtx, nodeName, &metav1.GetOptions{ResourceVersion: "0"})
				if err != nil {
					nodeObj, err = r.nodes.Get(newCtx, nodeName, &metav1.GetOptions{}) // a live lookup on any error
				}
				switch {
				case errors.IsNotFound(err):
					// Still name the node, without its UID.
					klog.V(4).ErrorS(err, "failed fetching node for pod", "pod", klog.KObj(pod), "podUID", pod.UID, "nodeName", nodeName)
					node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}
				case err != nil:
					return nil, errors.NewInternalError(err)
				default:
					node = nodeObj.(*corev1.Node)
				}
			}
		case gvk.Group == "" && gvk.Kind == "Node":
			nodeObj, err := r.nodes.Get(newContext(ctx, "nodes", ref.Name, "", gvk), ref.Name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			node = nodeObj.(*corev1.Node)
			uid = node.UID
		case gvk.Group == "" && gvk.Kind == "Secret":
			secretObj, err := r.secrets.Get(newContext(ctx, "secrets", ref.Name, namespace, gvk), ref.Name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			secret = secretObj.(*corev1.Secret)
			uid = secret.UID
		case gvk.Group == "admissionregistration.k8s.io" && gvk.Version == "v1" && (gvk.Kind == "ValidatingWebhookConfiguration" || gvk.Kind == "MutatingWebhookConfiguration"):
			return nil, errors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (feature gate %s is disabled)", gvk.String(), "APIServerWebhookAuthenticationToken"))
		default:
			return nil, errors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
		}
		if ref.UID != "" && uid != ref.UID {
			return nil, errors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
				fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
	}

	if r.maxExpirationSeconds > 0 && *req.Spec.ExpirationSeconds > r.maxExpirationSeconds {
		warning.AddWarning(ctx, "", fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", *req.Spec.ExpirationSeconds, r.maxExpirationSeconds))
		*req.Spec.ExpirationSeconds = r.maxExpirationSeconds
	}

	// Projected tokens of kubelets (3607 s, pod-bound, for the API server) live a year and warn
	// after their requested expiration, for a safe transition to bound tokens.
	var warnAfter int64
	exp := *req.Spec.ExpirationSeconds
	if r.extendExpiration && pod != nil && exp == serviceaccount.WarnOnlyBoundTokenExpirationSeconds && r.audsSet.HasAll(req.Spec.Audiences...) {
		warnAfter = exp
		exp = r.maxExtendedExpirationSeconds
	}

	sc, pc, err := serviceaccount.NewClaims(*svcacct, pod, secret, node, exp, warnAfter, req.Spec.Audiences)
	if err != nil {
		return nil, err
	}
	tokdata, err := r.issuer.GenerateToken(ctx, sc, pc)
	if err != nil {
		return nil, errors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}

	out := req.DeepCopy()
	out.Status = authenticationv1.TokenRequestStatus{
		Token:               tokdata,
		ExpirationTimestamp: metav1.Time{Time: nowTime.Add(time.Duration(*out.Spec.ExpirationSeconds) * time.Second)},
	}
	return out, nil
}

// newContext is ctx with the RequestInfo of a get of the bound object.
func newContext(ctx context.Context, resource, name, namespace string, gvk schema.GroupVersionKind) context.Context {
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              "get",
		Namespace:         namespace,
		Resource:          resource,
		Name:              name,
		Parts:             []string{resource, name},
		APIGroup:          gvk.Group,
		APIVersion:        gvk.Version,
	})
}

// minTokenAgeSec is pkg/apis/authentication/validation's MinTokenAgeSec.
const minTokenAgeSec = 10 * 60

// validateTokenRequest follows kubernetes pkg/apis/authentication/validation ValidateTokenRequest
// (webhook-bound requests are refused before they get here).
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	allErrs := field.ErrorList{}
	specPath := field.NewPath("spec")
	exp := *tr.Spec.ExpirationSeconds
	if exp < minTokenAgeSec {
		allErrs = append(allErrs, field.Invalid(specPath.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > math.MaxUint32+1 {
		allErrs = append(allErrs, field.Invalid(specPath.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
	}
	if len(tr.Spec.Attestations) != 0 {
		return field.ErrorList{field.Invalid(specPath.Child("attestations"), tr.Spec.Attestations, "attestations may only be specified with a webhook bound object reference")}
	}
	return allErrs
}
