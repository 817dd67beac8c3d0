// Package collector is an OpenTelemetry collector for tests: an OTLP/gRPC receiver (the trace
// service of go.opentelemetry.io/proto/otlp, served by grpc) that keeps the spans it is sent,
// as a real collector receives them. Tests point --tracing-config-file at it.
package collector

import (
	"context"
	"net"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
)

// Collector keeps every span it receives.
type Collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*Span
}

// Span is a span as the collector received it, with the service (service.name) that sent it.
type Span struct {
	Service string
	*tracepb.Span
}

// Export is the trace service's one call.
func (c *Collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, &Span{Service: service, Span: s})
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// Received returns the spans received so far.
func (c *Collector) Received() []*Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Span(nil), c.spans...)
}

// Start serves a collector on a free loopback port until t ends, and returns it with its
// endpoint (host:port).
func Start(t testing.TB) (*Collector, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, c)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return c, l.Addr().String()
}

// Attr is the string value of a span's attribute, or "".
func Attr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.GetValue().GetStringValue()
		}
	}
	return ""
}
