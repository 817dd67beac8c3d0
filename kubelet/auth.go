package kubelet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/tracing"
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

func newGuard(client NodeAPI, clientCA []byte) (*guard, error) {
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
		span := trace.SpanFromContext(r.Context())
		if span.IsRecording() {
			span.SetAttributes(attribute.String(tracing.AttrAuthenticator, authenticatedBy(r, resp.User.GetName())),
				attribute.String(tracing.AttrUser, resp.User.GetName()),
				attribute.String(tracing.AttrGroups, strings.Join(resp.User.GetGroups(), ",")))
		}
		attrs := authorizer.AttributesRecord{
			User: resp.User, Verb: verb(r.Method), Resource: "nodes", Name: node,
			ResourceRequest: true, Path: r.URL.Path,
		}
		subs := subresources(r.URL.Path)
		for _, sub := range subs {
			attrs.Subresource = sub
			decision, reason, err := g.authz.Authorize(r.Context(), attrs)
			if span.IsRecording() {
				span.SetAttributes(attribute.String(tracing.AttrVerb, attrs.Verb), attribute.String(tracing.AttrKubeletSubresource, sub),
					attribute.String(tracing.AttrDecision, decisionName(decision)))
				if reason != "" {
					span.SetAttributes(attribute.String(tracing.AttrReason, reason))
				}
			}
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

// authenticatedBy names how the kubelet knew the caller: its client certificate (the chain's
// kubelet client certificate, for Core) or a bearer token the chain reviewed.
func authenticatedBy(r *http.Request, user string) string {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 && r.TLS.PeerCertificates[0].Subject.CommonName == user {
		return "x509"
	}
	return "token (TokenReview by the chain)"
}

func decisionName(d authorizer.Decision) string {
	if d == authorizer.DecisionAllow {
		return "allow"
	}
	return "deny"
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
