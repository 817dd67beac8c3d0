package tracing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	componenttracing "k8s.io/component-base/tracing"
	tracingapi "k8s.io/component-base/tracing/api/v1"
)

// Options say what a Provider records and where it sends it.
type Options struct {
	// ServiceName and InstanceID name the process or part in its spans (service.name,
	// service.instance.id): ServiceName by default.
	ServiceName, InstanceID string

	// Record keeps every request's trace in a Ring of the Provider's own, bounded by
	// RingOptions; or in Ring, a ring of another Provider's, when set (the simulated kubelets
	// record into the chain's).
	Record      bool
	Ring        *Ring
	RingOptions RingOptions

	// Export sends spans to an OpenTelemetry collector over OTLP/gRPC, as kube-apiserver's
	// --tracing-config-file says (ReadConfigFile): its endpoint (default localhost:4317) and
	// samplingRatePerMillion (default none: only what a caller asked to be sampled).
	Export *tracingapi.TracingConfiguration

	// Report sends every span recorded here, as it ends, to this exporter: how a process of its
	// own (the metrics server) adds its spans to the chain's ring, with otlptracehttp pointed
	// at the chain's OTLPPath. Synchronous, so that the spans of a request the chain proxied
	// arrive while the chain's trace of it is still under way.
	Report sdktrace.SpanExporter
}

// Provider is the OpenTelemetry tracer provider of one chain (or of one process or part of
// it): never the global one, since several chains may run in one process. It is
// component-base's TracerProvider, for k8s.io/apiserver's generic configuration.
type Provider struct {
	componenttracing.TracerProvider
	ring     *Ring
	ownsRing bool
	export   *tracingapi.TracingConfiguration
	enabled  bool
}

// New builds a provider as o says. With nothing to record, export or report, it is
// k8s.io/apiserver's no-op provider, which costs nothing. With only a ring to record into, it
// is the ring's own (ringtracer.go), which costs a request less than the OpenTelemetry SDK; the
// SDK's, with the ring as one of its span processors, when it also exports or reports.
func New(ctx context.Context, o Options) (*Provider, error) {
	ring, owns := o.Ring, false
	if ring == nil && o.Record {
		ring, owns = NewRing(o.RingOptions), true
	}
	if ring == nil && o.Export == nil && o.Report == nil {
		return &Provider{TracerProvider: componenttracing.NewNoopTracerProvider()}, nil
	}
	name := o.ServiceName
	if name == "" {
		name = ServiceName
	}
	if o.Export == nil && o.Report == nil {
		return &Provider{TracerProvider: newRingProvider(ring, name), ring: ring, ownsRing: owns, enabled: true}, nil
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if o.InstanceID != "" {
		attrs = append(attrs, attribute.String("service.instance.id", o.InstanceID))
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(resource.NewSchemaless(attrs...))}
	var rate *int32
	if o.Export != nil {
		exporter, err := newOTLPExporter(ctx, o.Export)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdktrace.WithBatcher(cleanExporter{exporter}))
		rate = o.Export.SamplingRatePerMillion
	}
	if ring != nil {
		opts = append(opts, sdktrace.WithSpanProcessor(ring))
	}
	if o.Report != nil {
		opts = append(opts, sdktrace.WithSpanProcessor(reporter{o.Report}))
	}
	opts = append(opts, sdktrace.WithSampler(newSampler(rate, ring != nil || o.Report != nil, ring)))
	return &Provider{TracerProvider: sdktrace.NewTracerProvider(opts...), ring: ring, ownsRing: owns, export: o.Export, enabled: true}, nil
}

// newOTLPExporter is the exporter of component-base's tracing.NewProvider: OTLP/gRPC without
// TLS (TracingConfiguration has none) to the configured endpoint.
func newOTLPExporter(ctx context.Context, c *tracingapi.TracingConfiguration) (sdktrace.SpanExporter, error) {
	opts := []otlptracegrpc.Option{otlptracegrpc.WithInsecure()}
	if c.Endpoint != nil {
		opts = append(opts, otlptracegrpc.WithEndpoint(*c.Endpoint))
	}
	exporter, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	return exporter, nil
}

// Tracer is the provider's tracer for the instrumentation scope name. Unless the provider
// exports, k8s.io/apiserver's filter-latency spans are not made at all: the ring leaves them out
// (skippedScope), and each would cost a request its making and ending.
func (p *Provider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	if name == skippedScope && p.export == nil {
		return quietTracer{}
	}
	return p.TracerProvider.Tracer(name, opts...)
}

// quietTracer starts no span: the context stays as it was, so what starts below it hangs on
// its parent, as the ring would hang it.
type quietTracer struct{ noop.Tracer }

func (quietTracer) Start(ctx context.Context, _ string, _ ...trace.SpanStartOption) (context.Context, trace.Span) {
	return ctx, noop.Span{}
}

// Ring is the ring the provider records into, or nil.
func (p *Provider) Ring() *Ring { return p.ring }

// Export is the collector the provider exports to, or nil: a part of the same process that
// traces to the same place builds its own provider from it.
func (p *Provider) Export() *tracingapi.TracingConfiguration { return p.export }

// Enabled says whether anything is recorded or exported: the chain adds its wrappers only then.
func (p *Provider) Enabled() bool { return p.enabled }

// ShutdownWait bounds how long a stopping provider waits to export what is left. The OTLP
// exporter retries a collector it cannot reach for a minute, and k8s.io/apiserver shuts the
// provider down without a deadline (kube-apiserver waits that minute): a chain told to stop
// while its collector is away would hang. Spans still unsent after it are dropped.
const ShutdownWait = 2 * time.Second

// Shutdown exports what is left to export, for at most ShutdownWait, and closes the provider's
// own ring. k8s.io/apiserver calls it as each server it was given to stops (and logs the error);
// after the first, it does nothing.
func (p *Provider) Shutdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ShutdownWait)
	defer cancel()
	err := p.TracerProvider.Shutdown(ctx)
	if p.ownsRing {
		p.ring.Close()
	}
	if errors.Is(err, context.DeadlineExceeded) && p.export != nil {
		return fmt.Errorf("the collector at %s did not take the last spans within %v; they were dropped: %w", endpoint(p.export), ShutdownWait, err)
	}
	return err
}

// endpoint is where c sends spans: its endpoint, or OTLP/gRPC's default, as the exporter
// takes it.
func endpoint(c *tracingapi.TracingConfiguration) string {
	if c.Endpoint != nil {
		return *c.Endpoint
	}
	return "localhost:4317"
}

// ReadConfigFile reads and validates a kube-apiserver --tracing-config-file
// (TracingConfiguration of apiserver.config.k8s.io, v1 or older), with kube-apiserver's own
// code.
func ReadConfigFile(path string) (*tracingapi.TracingConfiguration, error) {
	c, err := apiserveroptions.ReadTracingConfiguration(path)
	if err != nil {
		return nil, err
	}
	if errs := tracingapi.ValidateTracingConfiguration(c, nil, nil); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errs.ToAggregate())
	}
	return c, nil
}

// reporter exports each span as it ends, sampled or not (the SDK's own processors pass on only
// sampled ones; Report is for what the chain records).
type reporter struct{ exporter sdktrace.SpanExporter }

func (r reporter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (r reporter) OnEnd(s sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.exporter.ExportSpans(ctx, []sdktrace.ReadOnlySpan{cleanSpan(s)}); err != nil {
		otel.Handle(err)
	}
}

func (r reporter) Shutdown(ctx context.Context) error { return r.exporter.Shutdown(ctx) }

func (r reporter) ForceFlush(context.Context) error { return nil }
