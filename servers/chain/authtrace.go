package chain

import (
	"context"
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/tracing"
)

// Authentication and authorization in a request's trace: the record each request carries of
// its authentication, and authorization's span, are internal/tracing's (authn.go); here, the
// chain's authenticators and authorizers name themselves in them.

// withAuthnRecord gives each request a record of its authentication, outermost.
func withAuthnRecord(build func(http.Handler, *genericapiserver.Config) http.Handler) func(http.Handler, *genericapiserver.Config) http.Handler {
	return func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		return tracing.WithAuthnRecord(build(apiHandler, c))
	}
}

// recordAuthentication is the chain's authenticator, recording when it ran and whom it found.
// Only k8s.io/apiserver's own authenticator of the loopback token, put in front of the
// chain's (AuthorizeClientBearerToken), goes unnamed.
func recordAuthentication(inner authenticator.Request) authenticator.Request {
	return tracing.RecordAuthentication(inner, "loopback token")
}

// namedAuthenticator is one authenticator of the union, which names itself in the record when
// it accepts the request.
func namedAuthenticator(name string, inner authenticator.Request) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := inner.AuthenticateRequest(req)
		if ok {
			tracing.NoteAuthenticator(req.Context(), name)
		}
		return resp, ok, err
	})
}

// namedToken is namedAuthenticator for the token authenticators (token file, service accounts).
func namedToken(name string, inner authenticator.Token) authenticator.Token {
	return authenticator.TokenFunc(func(ctx context.Context, token string) (*authenticator.Response, bool, error) {
		resp, ok, err := inner.AuthenticateToken(ctx, token)
		if ok {
			tracing.NoteAuthenticator(ctx, name)
		}
		return resp, ok, err
	})
}

// tracedAuthorizer gives authorization its span. RBAC gives no reason to deny: nothing it
// holds grants the request. The span says so; the caller's answer keeps kube-apiserver's
// reason (none), so 403 messages and `kubectl auth can-i` read as kube-apiserver's.
func tracedAuthorizer(inner authorizer.Authorizer) authorizer.Authorizer {
	return tracing.TracedAuthorizer(inner, func(a authorizer.Attributes) string {
		return "no authorizer allowed it: no RBAC role bound to the user grants " + a.GetVerb() + " on " + describeResource(a)
	})
}

// namedAuthorizer is one authorizer of the union, which names itself on the authorization span
// when it decides.
func namedAuthorizer(name string, inner authorizer.Authorizer) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		decision, reason, err := inner.Authorize(ctx, a)
		if decision != authorizer.DecisionNoOpinion {
			tracing.NoteAuthorizer(ctx, name)
		}
		return decision, reason, err
	})
}

// describeResource names what a request asks for, as RBAC's rules name it: a resource (with its
// subresource, group and namespace) or a non-resource URL.
func describeResource(a authorizer.Attributes) string {
	if !a.IsResourceRequest() {
		return a.GetPath()
	}
	what := a.GetResource()
	if a.GetSubresource() != "" {
		what += "/" + a.GetSubresource()
	}
	if a.GetAPIGroup() != "" {
		what += "." + a.GetAPIGroup()
	}
	if a.GetNamespace() != "" {
		what += " in namespace " + a.GetNamespace()
	}
	return what
}
