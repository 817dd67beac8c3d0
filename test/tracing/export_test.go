package tracing_test

import (
	"net/http"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/collector"
	"github.com/apichain/apichain/test/testchain"
)

// TestExportToCollector: with --tracing-config-file (kube-apiserver's TracingConfiguration), the
// chain sends its spans to the collector over OTLP/gRPC: a request's hops through the chain,
// with what could hold a credential cleaned out. It records nothing itself unless asked.
func TestExportToCollector(t *testing.T) {
	col, endpoint := collector.Start(t)
	config := testchain.TracingConfigFile(t, endpoint)
	c := testchain.Start(t, func(o *chain.Options) { o.TracingConfigFile, o.RecordTraces = config, false })

	const path = "/api/v1/namespaces/kube-system/configmaps/exported"
	if resp, body := testchain.Get(t, c, path+"?access_token=not-for-traces"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	var root *collector.Span
	var trace []*collector.Span
	testchain.WaitFor(t, func() bool {
		trace = nil
		for _, e := range col.Received() {
			if root == nil && collector.Attr(e.Span, "url.path") == path {
				root = e
			}
		}
		if root == nil {
			return false
		}
		for _, e := range col.Received() {
			if string(e.Span.TraceId) == string(root.Span.TraceId) {
				trace = append(trace, e)
			}
		}
		// The head's span ends last: the batch that holds it holds the rest.
		return true
	})
	if root.Service != tracing.ServiceName || root.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("root: service %q, kind %v", root.Service, root.Kind)
	}
	if target := collector.Attr(root.Span, "http.target"); strings.Contains(target, "not-for-traces") || !strings.Contains(target, "access_token=REDACTED") {
		t.Errorf("http.target %q: the token was not cleaned out", target)
	}
	seen := map[string]bool{}
	for _, e := range trace {
		seen[e.Name] = true
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
