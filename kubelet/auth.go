package kubelet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// The endpoint lets in only who the chain says may come in, as a kubelet configured the way
// kubeadm configures it: no anonymous requests; client certificates of the cluster's client CA
// (--client-ca-file) and bearer tokens the chain vouches for (a TokenReview) say who calls;
// a SubjectAccessReview to the chain (--authorization-mode=Webhook) says whether they may.
// Both answers are cached for as long as a kubelet caches them, so that a scrape every 15 s
// costs the chain one review per node every few minutes.
type guard struct {
	authn authenticator.Request
	authz authorizer.Authorizer
}

func newGuard(client kubernetes.Interface, clientCA []byte) (*guard, error) {
	ca, err := dynamiccertificates.NewStaticCAContent("kubelet-client-ca", clientCA)
	if err != nil {
		return nil, fmt.Errorf("client CA: %w", err)
	}
	backoff := genericoptions.DefaultAuthWebhookRetryBackoff()
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		ClientCertificateCAContentProvider: ca,
		TokenAccessReviewClient:            client.AuthenticationV1(),
		TokenAccessReviewTimeout:           10 * time.Second,
		CacheTTL:                           2 * time.Minute,
		WebhookRetryBackoff:                backoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("authentication: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             5 * time.Minute,
		DenyCacheTTL:              30 * time.Second,
		WebhookRetryBackoff:       backoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("authorization: %w", err)
	}
	return &guard{authn: authn, authz: authz}, nil
}

// wrap answers 401 to a caller it cannot identify and 403 to one the chain does not allow on
// node, before next sees the request. The path says the subresource.
func (g *guard) wrap(next http.Handler, node string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, ok, err := g.authn.AuthenticateRequest(r)
		if err != nil || !ok {
			klog.V(2).InfoS("kubelet endpoint: unauthenticated request", "path", r.URL.Path, "err", err)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		attrs := authorizer.AttributesRecord{
			User: resp.User, Verb: verb(r.Method), Resource: "nodes", Name: node,
			ResourceRequest: true, Path: r.URL.Path,
		}
		subs := subresources(r.URL.Path)
		for _, sub := range subs {
			attrs.Subresource = sub
			decision, _, err := g.authz.Authorize(r.Context(), attrs)
			if err != nil {
				klog.ErrorS(err, "kubelet endpoint: authorization failed", "user", resp.User.GetName(), "path", r.URL.Path)
				http.Error(w, fmt.Sprintf("Authorization error (user=%s, verb=%s, resource=nodes, subresource=%s)",
					resp.User.GetName(), attrs.Verb, sub), http.StatusInternalServerError)
				return
			}
			if decision == authorizer.DecisionAllow {
				next.ServeHTTP(w, r)
				return
			}
		}
		http.Error(w, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource(s)=%v)",
			resp.User.GetName(), attrs.Verb, subs), http.StatusForbidden)
	})
}

// verb is the authorization verb of an HTTP method, as the kubelet maps it.
func verb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(method)
}

// subresources are the nodes subresources that allow a kubelet path, tried in order: the
// kubelet's own table (fine-grained authorization, on by default in v1.37), with proxy, which
// allows everything, as the fallback for paths that have a narrower one of their own.
func subresources(path string) []string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch first {
	case "stats", "metrics", "spec", "checkpoint":
		return []string{first}
	case "logs":
		return []string{"log"}
	case "pods", "runningpods":
		return []string{"pods", "proxy"}
	case "healthz", "configz":
		return []string{first, "proxy"}
	}
	return []string{"proxy"}
}
