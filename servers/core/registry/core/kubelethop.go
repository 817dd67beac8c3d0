package core

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	componenttracing "k8s.io/component-base/tracing"

	"github.com/apichain/apichain/internal/chainheader"
	"github.com/apichain/apichain/internal/tracing"
)

// Core's hop to a kubelet in the request's trace: a client span that says which node, which
// kubelet path, the endpoint dialled (host:port) and the kubelet's status code, and whose
// context goes to the kubelet, so that the kubelet's own span (kubelet/trace.go) joins the
// trace below it.

// startKubeletHop starts the client span of a call to node's kubelet at loc, and gives req (a
// copy) the span's context and its traceparent header.
func startKubeletHop(req *http.Request, node string, loc *url.URL) (*http.Request, trace.Span) {
	ctx, span := tracing.Tracer(req.Context()).Start(req.Context(), tracing.SpanKubelet, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String(tracing.AttrNode, node), attribute.String(tracing.AttrKubeletPath, loc.Path),
			attribute.String(tracing.AttrEndpoint, loc.Host)))
	out := req.Clone(ctx)
	injectTrace(ctx, out.Header)
	return out, span
}

func injectTrace(ctx context.Context, h http.Header) {
	componenttracing.Propagators().Inject(ctx, propagation.HeaderCarrier(h))
}

// kubeletHop is the handler of a Connect subresource (exec, attach, port-forward,
// nodes/proxy) that passes the request on to node's kubelet at loc with the handler proxy makes
// for it: it says so in X-Chain-Server and traces the hop, for as long as that handler serves
// (a stream's whole life).
//
// With inQuery, the trace context also goes in the query of the kubelet's URL: kubectl's
// WebSocket is translated to a new SPDY request to the kubelet that carries only that URL, none
// of the original's headers.
func kubeletHop(node string, loc *url.URL, inQuery bool, proxy func(loc *url.URL) http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set(chainheader.Name, kubeletAnswers(node))
		req, span := startKubeletHop(req, node, loc)
		defer span.End()
		to := *loc
		if inQuery && span.SpanContext().IsValid() {
			q := to.Query()
			componenttracing.Propagators().Inject(req.Context(), tracing.QueryCarrier(q))
			to.RawQuery = q.Encode()
		}
		sw := tracing.NewStreamRecorder(w)
		proxy(&to).ServeHTTP(sw, req)
		if code := sw.Status(); code != 0 {
			span.SetAttributes(attribute.String(tracing.AttrStatusCode, strconv.Itoa(code)))
		}
	})
}

// hopTransport traces pods/log's call to node's kubelet, until the kubelet's answer begins (the
// log itself then streams through). It unwraps to the kubelet transport for TLS and dialing.
type hopTransport struct {
	rt   http.RoundTripper
	node string
}

func (t hopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req, span := startKubeletHop(req, t.node, req.URL)
	defer span.End()
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return nil, err
	}
	span.SetAttributes(attribute.String(tracing.AttrStatusCode, strconv.Itoa(resp.StatusCode)))
	return resp, nil
}

func (t hopTransport) WrappedRoundTripper() http.RoundTripper { return t.rt }
