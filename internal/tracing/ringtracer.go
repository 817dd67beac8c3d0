package tracing

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// The ring's own tracer: what a Provider that only records (no export, no report) gives every
// part of the chain instead of the OpenTelemetry SDK's.
//
// The SDK is made for exporting: each span it records is a span of its own, a snapshot of it
// made as it ends for the processors, and the locking and limits around both. A span the ring
// keeps needs none of that: here a span is one struct, written while the request runs and
// handed, as it is, to the ring as it ends (ringSpan.End); the ring converts it when a reader
// asks (fromRing). What the SDK decides stays as it decides it: the sampling (followParent,
// sampler.go), the trace and span IDs (random, new for every span, recorded or not), the
// parent a span has (the span in the context, local or remote), the trace context a request
// carries on.
type ringProvider struct {
	embedded.TracerProvider
	ring    *Ring
	service string // service.name of every span
	tracer  ringTracer
}

func newRingProvider(ring *Ring, service string) *ringProvider {
	p := &ringProvider{ring: ring, service: service}
	p.tracer.provider = p
	return p
}

// Tracer is the same for every scope: no span of the ring says its scope, and the one scope it
// leaves out (skippedScope) makes no span at all.
func (p *ringProvider) Tracer(name string, _ ...trace.TracerOption) trace.Tracer {
	if name == skippedScope {
		return quietTracer{}
	}
	return &p.tracer
}

// Shutdown does nothing: the Provider closes the ring it owns.
func (p *ringProvider) Shutdown(context.Context) error { return nil }

type ringTracer struct {
	embedded.Tracer
	provider *ringProvider
}

// Start starts a span as a child of the span in ctx (none with trace.WithNewRoot): recorded if
// the sampler's rule says so, followed by the ring if it belongs to a request.
func (t *ringTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if q, ok := trace.SpanFromContext(ctx).(*quietSpan); ok {
		// Below a span not recorded (a request the ring passed over, the ring's own, background
		// work), nothing is: the span there stands for the steps below it too, as the no-op
		// provider's does, and the step costs no more than with recording off.
		return ctx, q
	}
	cfg := trace.NewSpanStartConfig(opts...)
	// The options' attributes are a slice made for this call: the span keeps it as its own
	// rather than copy it (k8s.io/apiserver's and otelhttp's spans come this way).
	return t.start(ctx, name, cfg.SpanKind(), cfg.NewRoot(), cfg.Attributes(), true, cfg.Links(), cfg.Timestamp())
}

// start is Start with its options read (or given directly, by the package's own Start). With
// own, the span keeps attrs itself instead of a copy.
func (t *ringTracer) start(ctx context.Context, name string, kind trace.SpanKind, newRoot bool,
	attrs []attribute.KeyValue, own bool, links []trace.Link, at time.Time) (context.Context, trace.Span) {
	if ctx == nil {
		ctx = context.Background()
	}
	parent := trace.SpanFromContext(ctx)
	if newRoot {
		parent = trace.SpanFromContext(context.Background())
	}
	psc := parent.SpanContext()
	sc := trace.SpanContextConfig{TraceID: psc.TraceID(), TraceState: psc.TraceState(), TraceFlags: psc.TraceFlags() &^ trace.FlagsSampled}
	if !sc.TraceID.IsValid() {
		sc.TraceID = newTraceID()
	}
	sc.SpanID = newSpanID()
	kind = trace.ValidateSpanKind(kind) // none said: internal
	decision := admitted(followParent(parent, kind, attrs, true), kind, t.provider.ring, sc.TraceID)
	if decision == sdktrace.RecordAndSample {
		sc.TraceFlags |= trace.FlagsSampled
	}
	if decision == sdktrace.Drop {
		q := &quietSpan{sc: trace.NewSpanContext(sc), provider: t.provider}
		return trace.ContextWithSpan(ctx, q), q
	}
	s := &ringSpan{provider: t.provider, sc: trace.NewSpanContext(sc), kind: kind, name: name, start: at}
	s.rec = record{own: s, id: sc.SpanID, parent: psc.SpanID(), parentRemote: psc.IsRemote(), hasRoot: !psc.IsValid()}
	if s.start.IsZero() {
		s.start = time.Now()
	}
	if own {
		s.adoptAttributes(attrs)
	} else {
		s.setAttributes(attrs)
	}
	for _, l := range links {
		s.addLink(l)
	}
	s.followed = t.provider.ring.started(sc.TraceID, sc.SpanID, psc.SpanID(), kind == trace.SpanKindServer, false)
	return trace.ContextWithSpan(ctx, s), s
}

// IDs as the SDK makes them: random, never all zero. math/rand/v2's generator is seeded from the
// operating system's randomness and needs no lock.
func newTraceID() (id trace.TraceID) {
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id trace.SpanID) {
	for !id.IsValid() {
		binary.LittleEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// ringSpan is a recorded span: what the ring keeps of it, written in place.
type ringSpan struct {
	embedded.Span
	provider *ringProvider
	sc       trace.SpanContext
	kind     trace.SpanKind
	// followed: the ring follows the span's trace and is told of its end.
	followed bool

	// Several goroutines of a request may write to its span (k8s.io/apiserver's timeout
	// filter answers on one while the handler runs on another); nothing is written after End.
	mu      sync.Mutex
	ended   bool
	status  codes.Code
	name    string
	start   time.Time
	took    time.Duration
	attrs   []attribute.KeyValue
	events  []sdktrace.Event
	steps   []step // admission plugins' events (AddPluginEvent)
	links   []trace.SpanContext
	message string
	// rec is handed to the ring at End (one allocation less a span); it holds the parent's ID
	// from the start, so that the span need not keep the parent's whole context.
	rec record
}

func (s *ringSpan) End(opts ...trace.SpanEndOption) {
	end := time.Now()
	if len(opts) > 0 {
		if cfg := trace.NewSpanEndConfig(opts...); !cfg.Timestamp().IsZero() {
			end = cfg.Timestamp()
		}
	}
	s.endAt(end)
}

// endAt is End at a time already past, without End's options.
func (s *ringSpan) endAt(end time.Time) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	s.took = end.Sub(s.start)
	s.mu.Unlock()
	if !s.followed {
		return
	}
	s.rec.bytes = sizeOfParts(s.name, s.message, s.attrs, s.events, len(s.links)) + sizeOfSteps(s.steps)
	s.provider.ring.ended(s.sc.TraceID(), s.sc.SpanID(), &s.rec)
}

// write runs f on the span unless it has ended.
func (s *ringSpan) write(f func()) {
	s.mu.Lock()
	if !s.ended {
		f()
	}
	s.mu.Unlock()
}

func (s *ringSpan) AddEvent(name string, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	s.write(func() { s.addEvent(name, cfg.Timestamp(), cfg.Attributes()) })
}

func (s *ringSpan) addEvent(name string, at time.Time, attrs []attribute.KeyValue) {
	if len(s.events) == maxEvents { // the ring keeps no more
		return
	}
	if s.events == nil { // a few at once, not one by one
		s.events = make([]sdktrace.Event, 0, 4)
	}
	s.events = append(s.events, sdktrace.Event{Name: name, Time: at, Attributes: attrs})
}

func (s *ringSpan) addStep(st step) {
	if len(s.events)+len(s.steps) < maxEvents { // the ring keeps no more
		s.steps = append(s.steps, st)
	}
}

// step is a plugin's event as a span of the ring's own keeps it (AddPluginEvent).
type step struct {
	plugin string
	at     time.Time
	took   time.Duration
	err    string
}

// attributes are the event's, as AddPluginEvent gives them.
func (st step) attributes() []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String(AttrAdmissionPlugin, st.plugin),
		attribute.Float64(AttrDurationMs, float64(st.took.Microseconds())/1000),
	}
	if st.err != "" {
		attrs = append(attrs, attribute.String(AttrError, st.err))
	}
	return attrs
}

// RecordError is an event named "exception" with the error's type and message, as
// OpenTelemetry's semantic conventions name them, and no stack.
func (s *ringSpan) RecordError(err error, opts ...trace.EventOption) {
	if err == nil {
		return
	}
	cfg := trace.NewEventConfig(opts...)
	attrs := append([]attribute.KeyValue{
		attribute.String("exception.type", fmt.Sprintf("%T", err)),
		attribute.String("exception.message", err.Error()),
	}, cfg.Attributes()...)
	s.write(func() { s.addEvent("exception", cfg.Timestamp(), attrs) })
}

func (s *ringSpan) AddLink(l trace.Link) { s.write(func() { s.addLink(l) }) }

func (s *ringSpan) addLink(l trace.Link) {
	if l.SpanContext.IsValid() && len(s.links) < maxLinks {
		s.links = append(s.links, l.SpanContext)
	}
}

func (s *ringSpan) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended
}

func (s *ringSpan) SpanContext() trace.SpanContext { return s.sc }

// SetStatus keeps OpenTelemetry's order: Ok is final, Error replaces Unset, and only an Error
// has a description.
func (s *ringSpan) SetStatus(code codes.Code, description string) {
	s.write(func() {
		if code == codes.Unset || s.status == codes.Ok {
			return
		}
		s.status, s.message = code, ""
		if code == codes.Error {
			s.message = description
		}
	})
}

func (s *ringSpan) SetName(name string) { s.write(func() { s.name = name }) }

func (s *ringSpan) SetAttributes(kv ...attribute.KeyValue) { s.write(func() { s.setAttributes(kv) }) }

// setAttributes keeps the last value set for a key, and at most maxAttributes keys: the ring
// keeps no more.
func (s *ringSpan) setAttributes(kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		if !kv.Valid() {
			continue
		}
		replaced := false
		for i := range s.attrs {
			if s.attrs[i].Key == kv.Key {
				s.attrs[i], replaced = kv, true
				break
			}
		}
		if !replaced && len(s.attrs) < maxAttributes {
			switch {
			case s.attrs == nil:
				s.attrs = make([]attribute.KeyValue, 0, len(kvs)+2)
			case len(s.attrs) == cap(s.attrs) && len(s.attrs) >= 8:
				// A span with many attributes gains a few after its start (otelhttp's: the
				// target, the status code): room for those, not append's doubling.
				s.attrs = append(make([]attribute.KeyValue, 0, len(s.attrs)+len(kvs)+4), s.attrs...)
			}
			s.attrs = append(s.attrs, kv)
		}
	}
}

// adoptAttributes is setAttributes on a span without attributes yet, keeping kvs itself: the
// valid ones, the last value of a key, written over kvs in place.
func (s *ringSpan) adoptAttributes(kvs []attribute.KeyValue) {
	kept := kvs[:0]
	for _, kv := range kvs {
		if !kv.Valid() {
			continue
		}
		replaced := false
		for i := range kept {
			if kept[i].Key == kv.Key {
				kept[i], replaced = kv, true
				break
			}
		}
		if !replaced && len(kept) < maxAttributes {
			kept = append(kept, kv)
		}
	}
	if len(kept) > 0 {
		s.attrs = kept
	}
}

func (s *ringSpan) TracerProvider() trace.TracerProvider { return s.provider }

// quietSpan is a span not recorded: it has its own IDs, as the SDK's have, so that what a
// request carries on names it, and its provider, so that what starts below it is decided alike.
type quietSpan struct {
	embedded.Span
	sc       trace.SpanContext
	provider *ringProvider
}

func (q *quietSpan) End(...trace.SpanEndOption)              { /* nothing recorded */ }
func (q *quietSpan) AddEvent(string, ...trace.EventOption)   {}
func (q *quietSpan) AddLink(trace.Link)                      {}
func (q *quietSpan) IsRecording() bool                       { return false }
func (q *quietSpan) RecordError(error, ...trace.EventOption) {}
func (q *quietSpan) SpanContext() trace.SpanContext          { return q.sc }
func (q *quietSpan) SetStatus(codes.Code, string)            {}
func (q *quietSpan) SetName(string)                          {}
func (q *quietSpan) SetAttributes(...attribute.KeyValue)     {}
func (q *quietSpan) TracerProvider() trace.TracerProvider    { return q.provider }
