package tracing

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// recordInto is a provider that records every request into ring, as the chain's does.
func recordInto(ring *Ring) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(ring), sdktrace.WithSampler(newSampler(nil, true)))
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
}

// TestRingBounds: the ring keeps at most Traces traces and SpansPerTrace spans a trace, and
// its estimated bytes stay within Bytes, whatever comes.
func TestRingBounds(t *testing.T) {
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
}

// TestWaitWakes: a follower waiting on the ring gets the next trace as it is published, and
// returns when the ring closes.
func TestWaitWakes(t *testing.T) {
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
}
