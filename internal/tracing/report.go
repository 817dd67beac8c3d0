package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"k8s.io/client-go/rest"
)

// NewChainReporter is the exporter for Options.Report of a process that serves the chain at
// chain (the metrics server): OTLP/HTTP to the chain's receiver (OTLPPath), with the process's
// own credentials for the chain, which RBAC lets report (ClusterRole apichain:trace-reporter).
// Its client is a plain one: a report is not itself traced.
func NewChainReporter(ctx context.Context, chain *rest.Config) (sdktrace.SpanExporter, error) {
	c := rest.CopyConfig(chain)
	c.WrapTransport = nil
	client, err := rest.HTTPClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("the client reporting spans to the chain: %w", err)
	}
	exporter, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(strings.TrimSuffix(c.Host, "/")+OTLPPath),
		otlptracehttp.WithHTTPClient(client))
	if err != nil {
		return nil, fmt.Errorf("reporting spans to the chain at %s: %w", c.Host, err)
	}
	return exporter, nil
}
