package tracing

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestRingMemoryBound: however many requests come, what a full ring really takes on the heap
// stays near its Bytes bound (sizeOf's estimate is what the bound counts): here, with
// requests shaped like the chain's (a server span with otelhttp's attributes, a dozen steps
// with a few attributes each), under 1.5 times the bound.
func TestRingMemoryBound(t *testing.T) {
	forEachRecorder(t, func(t *testing.T, recordInto func(*Ring) trace.TracerProvider) {
		const bound = 4 << 20
		heap := func() uint64 {
			runtime.GC()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		ring := NewRing(RingOptions{Bytes: bound})
		tp := recordInto(ring)
		tracer := tp.Tracer("test")
		before := heap()
		for i := range 20000 {
			path := fmt.Sprintf("/api/v1/namespaces/ns-%d/configmaps/cm-%d", i%50, i)
			ctx, root := tracer.Start(context.Background(), "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}",
				trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
					attribute.String("url.path", path), attribute.String("http.target", path),
					attribute.String("http.request.method", "GET"), attribute.Int("http.response.status_code", 200),
					attribute.String("user_agent.original", "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef0"),
					attribute.String("client.address", "127.0.0.1"), attribute.String("audit-id", "3f2b1c4e-1234-4a5b-9c8d-0123456789ab")))
			for j := range 12 {
				_, s := tracer.Start(ctx, fmt.Sprintf("step %d", j), trace.WithAttributes(
					attribute.String(AttrServer, "core"), attribute.String(AttrStorageKey, "/registry/configmaps/"+path),
					attribute.String(AttrUser, "admin"), attribute.Bool(AttrAnswered, true)))
				s.End()
			}
			root.End()
		}
		// The ring keeps spans as the SDK ended them until a reader asks; then as Spans.
		unread := int64(heap()) - int64(before)
		kept := len(ring.Since(0))
		read := int64(heap()) - int64(before)
		t.Logf("ring bound %d B: estimate %d B; heap grew %d B unread (%.2f× the bound), %d B read (%.2f×); %d traces of 13 spans kept (%d B a trace unread, %d B read)",
			bound, ring.bytes, unread, float64(unread)/bound, read, float64(read)/bound, kept, unread/int64(max(kept, 1)), read/int64(max(kept, 1)))
		if ring.bytes > bound {
			t.Errorf("estimate %d over the bound %d", ring.bytes, bound)
		}
		for _, grown := range []int64{unread, read} {
			if grown > bound*3/2 {
				t.Errorf("the heap grew %d B for a ring bounded at %d B", grown, bound)
			}
		}
		if kept == 0 || kept == 20000 {
			t.Errorf("%d traces kept: the bound did not bite", kept)
		}
		runtime.KeepAlive(ring)
	})
}
