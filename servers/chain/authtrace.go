package chain

import (
	"context"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/tracing"
)

// Authentication and authorization in a request's trace.
//
// k8s.io/apiserver starts a request's server span (WithTracing) after authentication, so that
// who the caller is can decide whether a trace it sent on is continued: authentication happens
// before there is a trace to put it in. The chain notes what authentication did (which
// authenticator accepted, who the user is, when) in a record the request carries from the head
// of its filter chain, and hangs it in the trace, with its real times, as the request's first
// step inside the span: when authorization starts, which every request reaching the span
// passes. A request that fails authentication (401) has no trace, in kube-apiserver too.

type authnRecordKey struct{}

// authnRecord is what authentication did for one request.
type authnRecord struct {
	start, end    time.Time
	authenticator string
	user          user.Info // read only if the request is recorded
	accepted      bool
	emitted       bool
}

// withAuthnRecord gives each request a record of its authentication, outermost, so that the
// authenticators below can fill it in.
func withAuthnRecord(build func(http.Handler, *genericapiserver.Config) http.Handler) func(http.Handler, *genericapiserver.Config) http.Handler {
	return func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		handler := build(apiHandler, c)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authnRecordKey{}, &authnRecord{})))
		})
	}
}

func authnRecordFrom(ctx context.Context) *authnRecord {
	rec, _ := ctx.Value(authnRecordKey{}).(*authnRecord)
	return rec
}

// recordAuthentication is the chain's authenticator, recording in the request's record when it
// ran and whom it found.
func recordAuthentication(inner authenticator.Request) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		rec := authnRecordFrom(req.Context())
		if rec == nil {
			return inner.AuthenticateRequest(req)
		}
		rec.start = time.Now()
		resp, ok, err := inner.AuthenticateRequest(req)
		rec.end = time.Now()
		if ok && resp != nil && resp.User != nil {
			rec.accepted, rec.user = true, resp.User
			if rec.authenticator == "" {
				// Only k8s.io/apiserver's own authenticator of the loopback token, put in
				// front of the chain's (AuthorizeClientBearerToken), goes unnamed.
				rec.authenticator = "loopback token"
			}
		}
		return resp, ok, err
	})
}

// namedAuthenticator is one authenticator of the union, which names itself in the record when
// it accepts the request (unless one inside it did: a token authenticator inside the bearer
// token one).
func namedAuthenticator(name string, inner authenticator.Request) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := inner.AuthenticateRequest(req)
		if ok {
			noteAuthenticator(req.Context(), name)
		}
		return resp, ok, err
	})
}

// namedToken is namedAuthenticator for the token authenticators (token file, service accounts).
func namedToken(name string, inner authenticator.Token) authenticator.Token {
	return authenticator.TokenFunc(func(ctx context.Context, token string) (*authenticator.Response, bool, error) {
		resp, ok, err := inner.AuthenticateToken(ctx, token)
		if ok {
			noteAuthenticator(ctx, name)
		}
		return resp, ok, err
	})
}

func noteAuthenticator(ctx context.Context, name string) {
	if rec := authnRecordFrom(ctx); rec != nil && rec.authenticator == "" {
		rec.authenticator = name
	}
}

// emitAuthentication puts the request's authentication into its trace, once, as a span with the
// times it really had.
func emitAuthentication(ctx context.Context) {
	rec := authnRecordFrom(ctx)
	if rec == nil || !rec.accepted || rec.emitted {
		return
	}
	rec.emitted = true
	_, span := tracing.Tracer(ctx).Start(ctx, tracing.SpanAuthentication, trace.WithTimestamp(rec.start), trace.WithAttributes(
		attribute.String(tracing.AttrAuthenticator, rec.authenticator),
		attribute.String(tracing.AttrUser, rec.user.GetName()),
		attribute.String(tracing.AttrGroups, strings.Join(rec.user.GetGroups(), ","))))
	span.End(trace.WithTimestamp(rec.end))
}

// tracedAuthorizer gives authorization its span: the verb asked for, the decision, the
// authorizer that decided (namedAuthorizer notes it) and its reason.
func tracedAuthorizer(inner authorizer.Authorizer) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if !tracing.Recording(ctx) {
			return inner.Authorize(ctx, a)
		}
		emitAuthentication(ctx)
		ctx, span := tracing.Start(ctx, tracing.SpanAuthorization, attribute.String(tracing.AttrVerb, a.GetVerb()))
		defer span.End()
		decision, reason, err := inner.Authorize(ctx, a)
		verdict := "deny" // what the filter makes of anything but allow
		if decision == authorizer.DecisionAllow {
			verdict = "allow"
		}
		span.SetAttributes(attribute.String(tracing.AttrDecision, verdict))
		// RBAC gives no reason to deny: nothing it holds grants the request. The span says so;
		// the caller's answer keeps kube-apiserver's reason (none), so 403 messages and
		// `kubectl auth can-i` read as kube-apiserver's.
		spanReason := reason
		if spanReason == "" && decision != authorizer.DecisionAllow && err == nil {
			spanReason = "no authorizer allowed it: no RBAC role bound to the user grants " + a.GetVerb() + " on " + describeResource(a)
		}
		if spanReason != "" {
			span.SetAttributes(attribute.String(tracing.AttrReason, spanReason))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		return decision, reason, err
	})
}

// namedAuthorizer is one authorizer of the union, which names itself on the authorization span
// when it decides.
func namedAuthorizer(name string, inner authorizer.Authorizer) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		decision, reason, err := inner.Authorize(ctx, a)
		if decision != authorizer.DecisionNoOpinion {
			trace.SpanFromContext(ctx).SetAttributes(attribute.String(tracing.AttrAuthorizer, name))
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
