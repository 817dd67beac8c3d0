package tracing

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
)

// Authentication and authorization in a request's trace, for any server built on
// k8s.io/apiserver (the chain's head, the metrics server).
//
// k8s.io/apiserver starts a request's server span (WithTracing) after authentication, so that
// who the caller is can decide whether a trace it sent on is continued: authentication happens
// before there is a trace to put it in. So what authentication did (which authenticator
// accepted, who the user is, when) goes into a record the request carries from the head of its
// filter chain, and hangs in the trace, with its real times, as the request's first step inside
// the span: when authorization starts, which every request reaching the span passes. A request
// that fails authentication (401) has no trace, in kube-apiserver too.

type authnRecordKey struct{}

// authnRecord is what authentication did for one request.
type authnRecord struct {
	start, end    time.Time
	authenticator string
	// who it found, made into attributes only if the request is recorded (emitAuthentication)
	who user.Info
	// details are what the authenticator adds (a front proxy: whom it trusted, which headers).
	details  []attribute.KeyValue
	accepted bool
	emitted  bool
}

// WithAuthnRecord gives each request a record of its authentication; it goes outermost, so
// that the authenticators below can fill it in.
func WithAuthnRecord(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authnRecordKey{}, &authnRecord{})))
	})
}

func authnRecordFrom(ctx context.Context) *authnRecord {
	rec, _ := ctx.Value(authnRecordKey{}).(*authnRecord)
	return rec
}

// RecordAuthentication is a server's whole authenticator, recording in the request's record
// when it ran and whom it found. unnamed is what the record says accepted the request when no
// authenticator inside named itself (NoteAuthenticator).
func RecordAuthentication(inner authenticator.Request, unnamed string) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		rec := authnRecordFrom(req.Context())
		if rec == nil {
			return inner.AuthenticateRequest(req)
		}
		rec.start = time.Now()
		resp, ok, err := inner.AuthenticateRequest(req)
		rec.end = time.Now()
		if ok && resp != nil && resp.User != nil {
			rec.accepted = true
			rec.who = resp.User
			if rec.authenticator == "" {
				rec.authenticator = unnamed
			}
		}
		return resp, ok, err
	})
}

// NoteAuthenticator names the authenticator that accepted the request, with what it wants the
// trace to say about it, unless one inside it already did (a token authenticator inside the
// bearer token one).
func NoteAuthenticator(ctx context.Context, name string, details ...attribute.KeyValue) {
	if rec := authnRecordFrom(ctx); rec != nil && rec.authenticator == "" {
		rec.authenticator = name
		rec.details = details
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
	attrs := append([]attribute.KeyValue{
		attribute.String(AttrAuthenticator, rec.authenticator),
		attribute.String(AttrUser, rec.who.GetName()),
		attribute.String(AttrGroups, strings.Join(rec.who.GetGroups(), ","))}, rec.details...)
	if own, ok := trace.SpanFromContext(ctx).TracerProvider().(*ringProvider); ok { // without the options' allocations
		_, span := own.tracer.start(ctx, SpanAuthentication, trace.SpanKindInternal, false, attrs, true, nil, rec.start)
		span.(*ringSpan).endAt(rec.end)
		return
	}
	_, span := Tracer(ctx).Start(ctx, SpanAuthentication, trace.WithTimestamp(rec.start), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(rec.end))
}

// TracedAuthorizer gives authorization its span, after the request's authentication's: the
// verb asked for, the decision, the authorizer that decided (if one inside notes it, as
// NoteAuthorizer) and its reason. denyReason, if set, says why a request was denied when the
// authorizer gave no reason.
func TracedAuthorizer(inner authorizer.Authorizer, denyReason func(authorizer.Attributes) string) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if !Recording(ctx) {
			return inner.Authorize(ctx, a)
		}
		emitAuthentication(ctx)
		// Room for the decision, the authorizer and the reason to come.
		attrs := append(make([]attribute.KeyValue, 0, 4), attribute.String(AttrVerb, a.GetVerb()))
		ctx, span := Start(ctx, SpanAuthorization, attrs...)
		defer span.End()
		decision, reason, err := inner.Authorize(ctx, a)
		verdict := "deny" // what the filter makes of anything but allow
		if decision == authorizer.DecisionAllow {
			verdict = "allow"
		}
		span.SetAttributes(attribute.String(AttrDecision, verdict))
		spanReason := reason
		if spanReason == "" && decision != authorizer.DecisionAllow && err == nil && denyReason != nil {
			spanReason = denyReason(a)
		}
		if spanReason != "" {
			span.SetAttributes(attribute.String(AttrReason, spanReason))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		return decision, reason, err
	})
}

// NoteAuthorizer names, on the authorization span in ctx, the authorizer that decided.
func NoteAuthorizer(ctx context.Context, name string) {
	trace.SpanFromContext(ctx).SetAttributes(attribute.String(AttrAuthorizer, name))
}
