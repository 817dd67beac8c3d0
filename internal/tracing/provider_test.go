package tracing

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
	tracingapi "k8s.io/component-base/tracing/api/v1"
)

// TestShutdownWithoutCollector: a provider that exports to a collector nobody serves gives up
// its last spans after ShutdownWait, saying where it could not send them, instead of waiting
// out the exporter's minute of retries (a chain told to stop would hang that long).
func TestShutdownWithoutCollector(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	absent := l.Addr().String()
	l.Close()
	every := int32(1000000)
	p, err := New(context.Background(), Options{Export: &tracingapi.TracingConfiguration{Endpoint: &absent, SamplingRatePerMillion: &every}})
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer("test").Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer))
	span.End()
	err = p.Shutdown(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), absent) {
		t.Fatalf("Shutdown: %v; want the deadline, naming %s", err, absent)
	}
}
