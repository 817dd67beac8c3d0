package kubelet

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	componenttracing "k8s.io/component-base/tracing"

	"github.com/apichain/apichain/internal/tracing"
)

// The kubelet's span in the trace of the chain request that called it: a server span, service
// kubelet, child of Core's hop, saying whom the kubelet let in and why (auth.go adds that).
// Calls that carry no trace (the metrics server's scrapes, every few seconds on every node) are
// not traced: they would bury the requests.

// traced serves h with the kubelet's span for the requests that carry a trace, with tp.
func traced(tp trace.TracerProvider, node string, h http.Handler) http.Handler {
	if tp == nil {
		return h
	}
	tracer := tp.Tracer("github.com/apichain/apichain/kubelet")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := callerTrace(r)
		if !trace.SpanContextFromContext(ctx).IsValid() {
			h.ServeHTTP(w, r)
			return
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		ctx, span := tracer.Start(ctx, r.Method+" /"+first, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String(tracing.AttrNode, node), attribute.String(tracing.AttrKubeletPath, r.URL.Path)))
		defer span.End()
		// Streams need what lies below the recorder: flushing (logs -f) and the connection
		// itself (exec, attach, port-forward), whose switch of protocols is their answer.
		sw := tracing.NewStreamRecorder(w)
		h.ServeHTTP(sw, r.WithContext(ctx))
		if code := sw.Status(); code != 0 {
			span.SetAttributes(attribute.String(tracing.AttrStatusCode, strconv.Itoa(code)))
		}
	})
}

// callerTrace is the trace context Core sent: in the traceparent header, or, for exec and
// attach, in the query (Core's translation of kubectl's WebSocket to SPDY makes a request of
// its own, without the original's headers).
func callerTrace(r *http.Request) context.Context {
	p := componenttracing.Propagators()
	ctx := p.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return p.Extract(r.Context(), tracing.QueryCarrier(r.URL.Query()))
}
