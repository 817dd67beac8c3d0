package kubelet

import (
	"bufio"
	"net"
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
// kubelet, child of Core's hop (its context comes in the traceparent header), saying whom the
// kubelet let in and why (auth.go adds that). Calls that carry no trace (the metrics server's
// scrapes, every few seconds on every node) are not traced: they would bury the requests.

// traced serves h with the kubelet's span for the requests that carry a trace, with tp.
func traced(tp trace.TracerProvider, node string, h http.Handler) http.Handler {
	if tp == nil {
		return h
	}
	tracer := tp.Tracer("github.com/apichain/apichain/kubelet")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := componenttracing.Propagators().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		if !trace.SpanContextFromContext(ctx).IsValid() {
			h.ServeHTTP(w, r)
			return
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		ctx, span := tracer.Start(ctx, r.Method+" /"+first, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String(tracing.AttrNode, node), attribute.String(tracing.AttrKubeletPath, r.URL.Path)))
		defer span.End()
		sw := statusWriter{&tracing.StatusRecorder{ResponseWriter: w}}
		h.ServeHTTP(sw, r.WithContext(ctx))
		if sw.Code != 0 {
			span.SetAttributes(attribute.String(tracing.AttrStatusCode, strconv.Itoa(sw.Code)))
		}
	})
}

// statusWriter notes the status code of the answer. Streams need what lies below it: flushing
// (logs -f) and the connection itself (exec, port-forward), whose switch of protocols is its
// answer.
type statusWriter struct{ *tracing.StatusRecorder }

func (w statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.Code == 0 {
		w.Code = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(w.ResponseWriter).Hijack()
}
