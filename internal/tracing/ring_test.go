package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// sdkRecorder is a provider that records every request into ring with the OpenTelemetry SDK, as
// the chain's does when it also exports.
func sdkRecorder(ring *Ring) trace.TracerProvider {
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(ring), sdktrace.WithSampler(newSampler(nil, true, ring)))
}

// ownRecorder is the ring's own provider, the chain's when it only records.
func ownRecorder(ring *Ring) trace.TracerProvider { return newRingProvider(ring, ServiceName) }

// forEachRecorder runs a test of the ring on each way of recording into it.
func forEachRecorder(t *testing.T, test func(t *testing.T, recordInto func(*Ring) trace.TracerProvider)) {
	t.Run("own", func(t *testing.T) { test(t, ownRecorder) })
	t.Run("sdk", func(t *testing.T) { test(t, sdkRecorder) })
}

// request runs one request of children steps on tp, for path.
func request(tp trace.TracerProvider, path string, children int) {
	ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("url.path", path), attribute.String("http.request.method", "GET")))
	for i := range children {
		_, s := tp.Tracer("test").Start(ctx, fmt.Sprintf("step %d", i))
		s.End()
	}
	root.End()
}

// TestRingKeepsRequests: a request's spans form one tree, published as its root ends; work
// outside a request is not followed.
func TestRingKeepsRequests(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		ring := NewRing(RingOptions{})
		tp := recordInto(ring)
		_, background := tp.Tracer("test").Start(context.Background(), "informer resync")
		background.End()
		request(tp, "/api/v1/pods", 2)
		traces := ring.Since(0)
		if len(traces) != 1 {
			t.Fatalf("%d traces, want 1", len(traces))
		}
		tr := traces[0]
		if tr.Seq != 1 || tr.Request.Path != "/api/v1/pods" || tr.Request.Verb != "get" || len(tr.Spans) != 1 || len(tr.Spans[0].Children) != 2 {
			t.Errorf("trace: %+v %+v", tr, tr.Spans)
		}
		if got := ring.Since(1); len(got) != 0 {
			t.Errorf("Since(1): %d traces", len(got))
		}
		// The ring's own URLs are left out.
		request(tp, TracesPath, 0)
		if got := ring.Since(1); len(got) != 0 {
			t.Errorf("a read of the ring is kept: %+v", got[0].Request)
		}
	})
}

// TestRingBounds: the ring keeps at most Traces traces and SpansPerTrace spans a trace, and
// its estimated bytes stay within Bytes, whatever comes.
func TestRingBounds(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		ring := NewRing(RingOptions{Traces: 10, SpansPerTrace: 5, Bytes: 64 << 10})
		tp := recordInto(ring)
		for i := range 100 {
			request(tp, fmt.Sprintf("/api/v1/namespaces/n%d", i), 20)
		}
		traces := ring.Since(0)
		if len(traces) != 10 || traces[9].Seq != 100 || traces[0].Seq != 91 {
			t.Fatalf("%d traces, seq %d..%d; want the last 10", len(traces), traces[0].Seq, traces[len(traces)-1].Seq)
		}
		for _, tr := range traces {
			n := 0
			var count func([]*Span)
			count = func(spans []*Span) {
				for _, s := range spans {
					n++
					count(s.Children)
				}
			}
			count(tr.Spans)
			if n != 5 || tr.DroppedSpans != 16 {
				t.Errorf("trace %d: %d spans, %d dropped; want 5 and 16", tr.Seq, n, tr.DroppedSpans)
			}
		}
		if ring.bytes > 64<<10 || ring.bytes <= 0 {
			t.Errorf("ring holds %d bytes, bound %d", ring.bytes, 64<<10)
		}

		// A tight byte bound makes the oldest traces go first.
		small := NewRing(RingOptions{Bytes: 8 << 10})
		tp = recordInto(small)
		for i := range 100 {
			request(tp, fmt.Sprintf("/api/v1/namespaces/n%d", i), 3)
		}
		kept := small.Since(0)
		if len(kept) == 0 || len(kept) == 100 || kept[len(kept)-1].Seq != 100 || small.bytes > 8<<10 {
			t.Errorf("byte-bounded ring: %d traces, %d bytes", len(kept), small.bytes)
		}
	})
}

// TestRingRate: with PerSecond, the ring records every request until StartLimiting; from then
// on a burst of a second's worth, and then as many a second as PerSecond allows. It makes no
// span of a request it passes over, counts it, and says so with the next trace it publishes.
// A request that belongs to a trace it follows is recorded whatever the rate.
func TestRingRate(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		ring := NewRing(RingOptions{Traces: 10, PerSecond: 2})
		clock := time.Now()
		ring.now = func() time.Time { return clock }
		tp := recordInto(ring)
		for i := range 5 { // starting: every request
			request(tp, fmt.Sprintf("/api/v1/namespaces/start%d", i), 0)
		}
		ring.StartLimiting()
		for i := range 5 {
			request(tp, fmt.Sprintf("/api/v1/namespaces/burst%d", i), 1)
		}
		if got := ring.Since(0); len(got) != 7 || got[6].Request.Path != "/api/v1/namespaces/burst1" || got[6].NotRecorded != 0 {
			t.Fatalf("5 requests starting, then 5 limited to 2 a second: %s", describe(got))
		}
		if ring.notRecorded != 3 {
			t.Errorf("%d requests counted as not recorded, want 3", ring.notRecorded)
		}
		passedCtx, passed := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer))
		if passed.IsRecording() {
			t.Errorf("a request over the rate is recorded")
		}
		if _, step := tp.Tracer("test").Start(passedCtx, "Get"); step.IsRecording() {
			t.Errorf("a step of a request not recorded is recorded")
		}

		clock = clock.Add(time.Second) // room for two more
		ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("url.path", "/api/v1/nodes")))
		// A request the recorded one caused, served here (a kubelet's), needs no room of its own.
		caused := trace.ContextWithRemoteSpanContext(context.Background(), trace.SpanContextFromContext(ctx))
		for range 3 {
			_, kubelet := tp.Tracer("test").Start(caused, "GET /logs", trace.WithSpanKind(trace.SpanKindServer))
			if !kubelet.IsRecording() {
				t.Errorf("a request of a trace the ring follows is passed over")
			}
			kubelet.End()
		}
		root.End()
		request(tp, "/api/v1/namespaces/after", 0)
		request(tp, "/api/v1/namespaces/over", 0)
		got := ring.Since(7)
		if len(got) != 2 || got[0].Request.Path != "/api/v1/nodes" || got[1].Request.Path != "/api/v1/namespaces/after" {
			t.Fatalf("a second later: %s", describe(got))
		}
		if got[0].NotRecorded != 4 || got[1].NotRecorded != 0 {
			t.Errorf("not recorded before each: %d, %d; want 4 (three past the burst, one more), 0", got[0].NotRecorded, got[1].NotRecorded)
		}
		if n := len(got[0].Spans[0].Children); n != 3 {
			t.Errorf("the request has %d spans below it, want its 3 kubelet requests", n)
		}

		// Without PerSecond, every request.
		all := NewRing(RingOptions{Traces: 3})
		all.StartLimiting()
		tp = recordInto(all)
		for i := range 5 {
			request(tp, fmt.Sprintf("/api/v1/namespaces/n%d", i), 0)
		}
		if got := all.Since(0); len(got) != 3 || got[2].Seq != 5 || all.notRecorded != 0 {
			t.Errorf("a ring without a rate: %s, %d not recorded", describe(got), all.notRecorded)
		}
	})
}

// describe lists traces by seq and path, for a failure.
func describe(traces []*Trace) string {
	var b strings.Builder
	for _, tr := range traces {
		fmt.Fprintf(&b, "[%d %s not-recorded=%d] ", tr.Seq, tr.Request.Path, tr.NotRecorded)
	}
	return fmt.Sprintf("%d traces: %s", len(traces), b.String())
}

// TestWaitWakes: a follower waiting on the ring gets the next trace as it is published, and
// returns when the ring closes.
func TestWaitWakes(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		ring := NewRing(RingOptions{})
		tp := recordInto(ring)
		got := make(chan []*Trace)
		go func() {
			traces, _ := ring.Wait(context.Background(), 0)
			got <- traces
		}()
		request(tp, "/api", 0)
		if traces := <-got; len(traces) != 1 || traces[0].Request.Path != "/api" {
			t.Errorf("Wait: %+v", traces)
		}
		done := make(chan error)
		go func() {
			_, err := ring.Wait(context.Background(), 1)
			done <- err
		}()
		ring.Close()
		if err := <-done; err != errClosed {
			t.Errorf("Wait after Close: %v", err)
		}
	})
}

// TestLateSpansJoinPublishedTrace: spans of another process that come in after their trace was
// published (the metrics server reports in batches, after the chain's root span has ended) are
// added to it, and the trace is published again, marked as an update, with a new Seq that a
// follower waiting on the ring wakes for.
func TestLateSpansJoinPublishedTrace(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		ring := NewRing(RingOptions{})
		tp := recordInto(ring)
		ctx, root := tp.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("url.path", "/apis/metrics.k8s.io/v1beta1/nodes")))
		_, proxy := tp.Tracer("test").Start(ctx, "proxy", trace.WithSpanKind(trace.SpanKindClient))
		proxy.End()
		root.End()
		first := ring.Since(0)
		if len(first) != 1 || len(first[0].Spans) != 1 || len(first[0].Spans[0].Children) != 1 {
			t.Fatalf("before the late spans: %+v", first)
		}

		follower := make(chan []*Trace)
		go func() {
			traces, _ := ring.Wait(context.Background(), first[0].Seq)
			follower <- traces
		}()

		// The metrics server's span, below the chain's proxy span, as its exporter posts it.
		sc := proxy.SpanContext()
		tid, pid := sc.TraceID(), sc.SpanID()
		late := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
			Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name",
				Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "metrics-server"}}}}},
			ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
				TraceId: tid[:], SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8}, ParentSpanId: pid[:],
				Name: "metrics-server", Kind: tracepb.Span_SPAN_KIND_SERVER,
				StartTimeUnixNano: uint64(time.Now().UnixNano()), EndTimeUnixNano: uint64(time.Now().UnixNano()),
			}}}},
		}}}
		body, err := proto.Marshal(late)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, OTLPPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		rec := httptest.NewRecorder()
		OTLPHandler(ring).ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("OTLP receiver answered %d: %s", rec.Code, rec.Body)
		}

		again := <-follower
		if len(again) != 1 {
			t.Fatalf("the follower got %d traces, want the trace again", len(again))
		}
		tr := again[0]
		if tr.TraceID != first[0].TraceID || !tr.Update || tr.Seq <= first[0].Seq {
			t.Errorf("republished: trace %s seq %d update %v; want trace %s, seq after %d, update", tr.TraceID, tr.Seq, tr.Update, first[0].TraceID, first[0].Seq)
		}
		// What `chain trace -o json` prints of it.
		if line, err := json.Marshal(tr); err != nil || !bytes.Contains(line, []byte(`"update":true`)) {
			t.Errorf("the republished trace in JSON: %s %v; want \"update\":true", line, err)
		}
		var names []string
		var walk func(spans []*Span)
		walk = func(spans []*Span) {
			for _, s := range spans {
				names = append(names, s.Name)
				if s.Name == "metrics-server" && s.Service != "metrics-server" {
					t.Errorf("the late span's service: %q", s.Service)
				}
				walk(s.Children)
			}
		}
		walk(tr.Spans)
		if want := []string{"GET", "proxy", "metrics-server"}; !slices.Equal(names, want) {
			t.Errorf("spans of the republished trace: %v, want %v (the late span below the proxy, each once)", names, want)
		}
		if all := ring.Since(0); len(all) != 1 || all[0].Seq != tr.Seq {
			t.Errorf("the ring keeps %d traces; want only the republished one", len(all))
		}
	})
}
