package tracing_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// collector is an OTLP/gRPC receiver: OpenTelemetry's own trace service, served by grpc, which
// keeps what it is sent, as a collector receives it.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*exported
}

// exported is a span as the collector received it, with the service that sent it.
type exported struct {
	service string
	span    *tracepb.Span
}

func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
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
				c.spans = append(c.spans, &exported{service: service, span: s})
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// received returns the spans received so far.
func (c *collector) received() []*exported {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*exported(nil), c.spans...)
}

// startCollector serves a collector on a free loopback port until t ends.
func startCollector(t *testing.T) (*collector, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, c)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return c, l.Addr().String()
}

func attr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.GetValue().GetStringValue()
		}
	}
	return ""
}

// TestExportToCollector: with --tracing-config-file (kube-apiserver's TracingConfiguration), the
// chain sends its spans to the collector over OTLP/gRPC: a request's hops through the chain,
// with what could hold a credential cleaned out. It records nothing itself unless asked.
func TestExportToCollector(t *testing.T) {
	col, endpoint := startCollector(t)
	config := filepath.Join(t.TempDir(), "tracing.yaml")
	if err := os.WriteFile(config, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: "+endpoint+"\nsamplingRatePerMillion: 1000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := testchain.Start(t, func(o *chain.Options) { o.TracingConfigFile, o.RecordTraces = config, false })

	const path = "/api/v1/namespaces/kube-system/configmaps/exported"
	if resp, body := testchain.Get(t, c, path+"?access_token=not-for-traces"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	var root *exported
	var trace []*exported
	testchain.WaitFor(t, func() bool {
		trace = nil
		for _, e := range col.received() {
			if root == nil && attr(e.span, "url.path") == path {
				root = e
			}
		}
		if root == nil {
			return false
		}
		for _, e := range col.received() {
			if string(e.span.TraceId) == string(root.span.TraceId) {
				trace = append(trace, e)
			}
		}
		// The head's span ends last: the batch that holds it holds the rest.
		return true
	})
	if root.service != tracing.ServiceName || root.span.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("root: service %q, kind %v", root.service, root.span.Kind)
	}
	if target := attr(root.span, "http.target"); strings.Contains(target, "not-for-traces") || !strings.Contains(target, "access_token=REDACTED") {
		t.Errorf("http.target %q: the token was not cleaned out", target)
	}
	seen := map[string]bool{}
	for _, e := range trace {
		seen[e.span.Name] = true
	}
	for _, want := range []string{"aggregator", "core", tracing.SpanAuthorization, tracing.StorageSpanName("get")} {
		if !seen[want] {
			t.Errorf("no span %q among the exported %v", want, seen)
		}
	}
	// Recording is off: the ring is not served.
	if resp, _ := testchain.Get(t, c, tracing.TracesPath); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET %s without recording: %d, want 404", tracing.TracesPath, resp.StatusCode)
	}
}
