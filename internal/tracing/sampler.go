package tracing

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// sampler decides, span by span, what is exported and what is only recorded.
//
// Export keeps kube-apiserver's rule (component-base's tracing.NewProvider): a trace started
// here is exported if its ID falls under samplingRatePerMillion, a trace continued from a caller
// as the caller decided (ParentBased). Such a span is sampled: its trace flags say so to the
// processes the request goes on to, and the batch processor exports it.
//
// Recording keeps more: every request, sampled or not (with the ring's PerSecond, as many as
// that rate lets in: admitted). A request the export leaves out is RecordOnly: recorded (the
// ring sees it end) but not sampled (nothing exports it, and the processes downstream are told
// not to). Only requests are kept, so only server spans and the descendants of recorded spans
// are recorded; the chain's background work (an informer's watch, etcd's lease keep-alives) is
// not, when not exported.
type sampler struct {
	// ring, if set, may pass a request over (admitted).
	ring   *Ring
	export sdktrace.Sampler
	// followOnly: the export samples only what the caller sampled (no rate): the sampler
	// decides that itself, without asking export, which would look for the parent again.
	followOnly bool
	record     bool
}

func newSampler(ratePerMillion *int32, record bool, ring *Ring) sampler {
	root := sdktrace.NeverSample() // kube-apiserver's default: follow the caller, start nothing
	followOnly := true
	if ratePerMillion != nil && *ratePerMillion > 0 {
		root, followOnly = sdktrace.TraceIDRatioBased(float64(*ratePerMillion)/1e6), false
	}
	return sampler{export: sdktrace.ParentBased(root), followOnly: followOnly, record: record, ring: ring}
}

// ShouldSample runs for every span of the process: it looks for the parent span once.
func (s sampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	parent := trace.SpanFromContext(p.ParentContext)
	psc := parent.SpanContext()
	if !s.followOnly && !(p.Kind == trace.SpanKindServer && ownPath(p.Attributes)) {
		result := s.export.ShouldSample(p)
		if result.Decision == sdktrace.Drop && s.record && (p.Kind == trace.SpanKindServer || parent.IsRecording()) {
			result.Decision = admitted(sdktrace.RecordOnly, p.Kind, s.ring, p.TraceID)
		}
		return result
	}
	decision := admitted(followParent(parent, p.Kind, p.Attributes, s.record), p.Kind, s.ring, p.TraceID)
	return sdktrace.SamplingResult{Decision: decision, Tracestate: psc.TraceState()}
}

// admitted is decision, unless it records a request only for the ring (RecordOnly, a server
// span) and the ring, at its rate, passes the request over (Ring.admit). A request the export
// samples is always recorded.
func admitted(decision sdktrace.SamplingDecision, kind trace.SpanKind, ring *Ring, tid trace.TraceID) sdktrace.SamplingDecision {
	if decision == sdktrace.RecordOnly && kind == trace.SpanKindServer && ring != nil && !ring.admit(tid) {
		return sdktrace.Drop
	}
	return decision
}

// followParent is the decision when the export samples only what the caller sampled, as
// ParentBased(NeverSample) would decide it, and recording adds what it keeps. The ring's own
// tracer (ringtracer.go) decides with it too.
func followParent(parent trace.Span, kind trace.SpanKind, attrs []attribute.KeyValue, record bool) sdktrace.SamplingDecision {
	server := kind == trace.SpanKindServer
	switch {
	case server && ownPath(attrs):
		// Reading the ring, or reporting to it, is not a request worth a trace: a follower
		// would see its own reading, and each report of another process would be one more trace.
		return sdktrace.Drop
	case parent.SpanContext().IsSampled():
		return sdktrace.RecordAndSample
	case record && (server || parent.IsRecording()):
		return sdktrace.RecordOnly
	}
	return sdktrace.Drop
}

func (s sampler) Description() string {
	return fmt.Sprintf("apichain{export=%s,record=%t}", s.export.Description(), s.record)
}

// ownPath: the span is otelhttp's server span of a request for the ring's own URLs.
func ownPath(attrs []attribute.KeyValue) bool {
	for _, a := range attrs {
		if a.Key == "url.path" {
			return strings.HasPrefix(a.Value.AsString(), PathPrefix)
		}
	}
	return false
}
