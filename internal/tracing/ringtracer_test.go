package tracing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TestRingTracerDecides: the ring's own tracer records what the SDK with the chain's sampler
// records, with IDs of its own for every span: a request (server span) and what starts below
// it; not background work, nor a read of the ring; a caller's remote parent and its sampled
// flag carry on.
func TestRingTracerDecides(t *testing.T) {
	tp := newRingProvider(NewRing(RingOptions{}), ServiceName)
	tracer := tp.Tracer("test")
	ctx := context.Background()

	_, background := tracer.Start(ctx, "informer resync")
	if background.IsRecording() || !background.SpanContext().IsValid() {
		t.Errorf("background work: recording %v, context %v; want not recorded, with IDs", background.IsRecording(), background.SpanContext())
	}
	_, read := tracer.Start(ctx, "GET", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attribute.String("url.path", TracesPath)))
	if read.IsRecording() {
		t.Error("a read of the ring is recorded")
	}

	// A request whose caller sent a trace context, not sampled.
	caller := trace.NewSpanContext(trace.SpanContextConfig{TraceID: newTraceID(), SpanID: newSpanID(), Remote: true})
	reqCtx, server := tracer.Start(trace.ContextWithRemoteSpanContext(ctx, caller), "GET", trace.WithSpanKind(trace.SpanKindServer))
	sc := server.SpanContext()
	if !server.IsRecording() || sc.TraceID() != caller.TraceID() || sc.SpanID() == caller.SpanID() || sc.IsSampled() {
		t.Errorf("server span %v under caller %v: recording %v; want recorded, the caller's trace, an ID of its own, not sampled", sc, caller, server.IsRecording())
	}
	_, child := Start(reqCtx, "step")
	if !child.IsRecording() || child.SpanContext().TraceID() != caller.TraceID() || child.SpanContext().SpanID() == sc.SpanID() {
		t.Errorf("child %v of %v: recording %v", child.SpanContext(), sc, child.IsRecording())
	}
	_, root := tracer.Start(reqCtx, "elsewhere", trace.WithNewRoot())
	if root.IsRecording() || root.SpanContext().TraceID() == caller.TraceID() {
		t.Errorf("a new root below the request: recording %v, trace %v", root.IsRecording(), root.SpanContext().TraceID())
	}

	// A caller that sampled: the flag carries on, to what the request calls next.
	sampled := caller.WithTraceFlags(trace.FlagsSampled)
	sCtx, s := tracer.Start(trace.ContextWithRemoteSpanContext(ctx, sampled), "GET", trace.WithSpanKind(trace.SpanKindServer))
	if !s.IsRecording() || !s.SpanContext().IsSampled() {
		t.Errorf("under a sampled caller: recording %v, sampled %v", s.IsRecording(), s.SpanContext().IsSampled())
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(sCtx, carrier)
	if want := "00-" + sampled.TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"; carrier["traceparent"] != want {
		t.Errorf("traceparent %q, want %q", carrier["traceparent"], want)
	}
	for _, span := range []trace.Span{background, read, child, root, server, s} {
		span.End()
	}
}

// TestRingSpanRecords: what a span is given while it runs is what the ring shows; what comes
// after its end is not; a span ends once.
func TestRingSpanRecords(t *testing.T) {
	ring := NewRing(RingOptions{})
	tp := newRingProvider(ring, "kubelet")
	ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("url.path", "/apis"), attribute.Int("http.response.status_code", 500)),
		trace.WithAttributes(attribute.KeyValue{}, attribute.String("url.path", "/api"))) // the last value of a key, none invalid
	root.SetAttributes(attribute.String("server.address", "127.0.0.1"))
	other := trace.NewSpanContext(trace.SpanContextConfig{TraceID: newTraceID(), SpanID: newSpanID()})
	_, step := Start(ctx, "step", attribute.String(AttrUser, "admin"))
	step.SetAttributes(attribute.String(AttrUser, "alice"), attribute.Bool(AttrAnswered, true))
	step.AddEvent("webhook", trace.WithAttributes(attribute.String(AttrAdmissionPlugin, "NamespaceLifecycle")))
	AddPluginEvent(step, "LimitRanger", time.Now(), errors.New("forbidden"))
	step.RecordError(errors.New("denied"))
	step.SetStatus(codes.Error, "denied")
	step.SetStatus(codes.Unset, "") // does not undo an error
	step.AddLink(trace.Link{SpanContext: other})
	step.SetName("renamed")
	step.End()
	step.End()
	step.SetAttributes(attribute.String(AttrUser, "late"))
	root.SetStatus(codes.Ok, "ignored")
	root.SetStatus(codes.Error, "after ok") // Ok is final
	root.End()

	traces := ring.Since(0)
	if len(traces) != 1 || len(traces[0].Spans) != 1 || len(traces[0].Spans[0].Children) != 1 {
		t.Fatalf("traces: %+v", traces)
	}
	tr := traces[0]
	r, s := tr.Spans[0], tr.Spans[0].Children[0]
	if tr.Request.Code != 500 || tr.Request.User != "alice" || r.Status != "ok" || r.Message != "" || r.Service != "kubelet" || r.Kind != "server" {
		t.Errorf("root: %+v, request %+v", r, tr.Request)
	}
	if len(r.Attributes) != 3 || r.Attributes["url.path"] != "/api" || r.Attributes["server.address"] != "127.0.0.1" {
		t.Errorf("root's attributes: %v", r.Attributes)
	}
	if s.Name != "renamed" || s.ParentID != r.SpanID || s.Attributes[AttrUser] != "alice" || s.Attributes[AttrAnswered] != "true" ||
		s.Status != "error" || s.Message != "denied" || s.Kind != "internal" {
		t.Errorf("step: %+v", s)
	}
	if len(s.Events) != 3 || s.Events[0].Attributes[AttrAdmissionPlugin] != "NamespaceLifecycle" ||
		s.Events[1].Name != "LimitRanger" || s.Events[1].Attributes[AttrAdmissionPlugin] != "LimitRanger" ||
		s.Events[1].Attributes[AttrError] != "forbidden" || s.Events[1].Attributes[AttrDurationMs] == "" ||
		s.Events[2].Name != "exception" || s.Events[2].Attributes["exception.message"] != "denied" {
		t.Errorf("step's events: %+v", s.Events)
	}
	if len(s.Links) != 1 || s.Links[0].SpanID != other.SpanID().String() {
		t.Errorf("step's links: %+v", s.Links)
	}
}

// TestRingSpanConcurrent: the goroutines of one request may write to its spans at once, and end
// them while others still write (run with -race).
func TestRingSpanConcurrent(t *testing.T) {
	ring := NewRing(RingOptions{})
	tp := newRingProvider(ring, ServiceName)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer))
			var inner sync.WaitGroup
			for j := range 4 {
				inner.Go(func() {
					root.SetAttributes(attribute.Int("writer", j))
					root.AddEvent("event")
					_, s := Start(ctx, "step", attribute.Int("request", i))
					s.End()
				})
			}
			root.End()
			inner.Wait()
		})
	}
	wg.Wait()
	for _, tr := range ring.Since(0) {
		if len(tr.Spans) == 0 {
			t.Errorf("trace %s without spans", tr.TraceID)
		}
	}
	if ring.seq < 8 {
		t.Errorf("%d traces published, want at least 8", ring.seq)
	}
}

// BenchmarkSpan: what one recorded span of a request costs, started, given attributes and
// ended into the ring, with the ring's own tracer and with the SDK.
//
//	go test -run '^$' -bench Span -benchmem ./internal/tracing
func BenchmarkSpan(b *testing.B) {
	for _, r := range []struct {
		name       string
		recordInto func(*Ring) trace.TracerProvider
	}{{"own", ownRecorder}, {"sdk", sdkRecorder}} {
		b.Run(r.name, func(b *testing.B) {
			tp := r.recordInto(NewRing(RingOptions{}))
			ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer))
			defer root.End()
			b.ReportAllocs()
			for b.Loop() {
				_, s := Start(ctx, "storage get", attribute.String(AttrStorageOperation, "get"),
					attribute.String(AttrStorageKey, "/registry/configmaps/default/demo"))
				s.SetAttributes(attribute.Int64(AttrStorageRevision, 42))
				s.End()
			}
		})
	}
}
