package tracing

import (
	"encoding/hex"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// What one span may hold in the ring: beyond these, attributes, events and links are left out
// and long values cut, so that a span's size, and so the ring's, has a bound.
const (
	maxAttributes = 64
	maxValueBytes = 1024
	maxEvents     = 64 // an admission phase has one a plugin, and may run its plugins twice
	maxLinks      = 8
)

// The estimated cost of a span's parts beyond the bytes of their strings: the structs, map
// entries and slice headers Go allocates for them (measured, see TestRingMemoryBound).
const (
	spanOverhead  = 480
	attrOverhead  = 64
	eventOverhead = 120
	linkOverhead  = 80
)

// skippedScope is the instrumentation scope of k8s.io/apiserver's filter-latency spans: one per
// filter (authentication, audit, impersonation, priorityandfairness, authorization), each
// starting where its filter starts and ending with the whole request, nested one in the other.
// They say nothing a reader of the ring can use and bury the request five levels deep, so the
// ring leaves them out and hangs their children on their parent. A collector still gets them;
// a provider that does not export does not make them (Provider.Tracer).
const skippedScope = "k8s.op/apiserver/pkg/endpoints/filterlatency"

// record is a span in the ring, with what building the tree needs. A span of this process is
// kept as it ended, the SDK's (raw) or the ring's own tracer's (own), and converted only when a
// reader asks for its trace (buildTrace): a request pays for what the ring holds, not for what
// a reader would see.
type record struct {
	span             *Span                 // converted: received, or read
	raw              sdktrace.ReadOnlySpan // not yet converted
	own              *ringSpan             // not yet converted
	id, parent       trace.SpanID
	parentRemote     bool
	bytes            int
	skipped, hasRoot bool // a span the ring leaves out; a span without a parent
}

// recordOf keeps an ended span of this process, unconverted.
func recordOf(s sdktrace.ReadOnlySpan) *record {
	sc, parent := s.SpanContext(), s.Parent()
	return &record{raw: s, id: sc.SpanID(), parent: parent.SpanID(), parentRemote: parent.IsRemote(),
		bytes: sizeOfParts(s.Name(), s.Status().Description, s.Attributes(), s.Events(), len(s.Links())), hasRoot: !parent.IsValid()}
}

// fromRing converts an ended span of the ring's own tracer.
func fromRing(s *ringSpan) *Span {
	span := &Span{
		SpanID:     s.sc.SpanID().String(),
		Name:       s.name,
		Service:    s.provider.service,
		Kind:       s.kind.String(),
		Start:      s.start,
		DurationMs: durationMs(s.took),
		Attributes: attributeMap(s.attrs),
		Status:     statusOf(s.status),
		Message:    s.message,
		Events:     events(s.events),
	}
	for _, st := range s.steps {
		span.Events = append(span.Events, Event{Name: st.plugin, Time: st.at, Attributes: attributeMap(st.attributes())})
	}
	if len(s.events) > 0 && len(s.steps) > 0 {
		slices.SortStableFunc(span.Events, func(a, b Event) int { return a.Time.Compare(b.Time) })
	}
	if !s.rec.hasRoot {
		span.ParentID = s.rec.parent.String()
	}
	for _, l := range s.links {
		span.Links = append(span.Links, Link{TraceID: l.TraceID().String(), SpanID: l.SpanID().String()})
	}
	return span
}

// fromSDK converts an ended span of this process.
func fromSDK(s sdktrace.ReadOnlySpan) *Span {
	sc, parent := s.SpanContext(), s.Parent()
	span := &Span{
		SpanID:     sc.SpanID().String(),
		Name:       s.Name(),
		Kind:       s.SpanKind().String(),
		Start:      s.StartTime(),
		DurationMs: durationMs(s.EndTime().Sub(s.StartTime())),
	}
	if parent.IsValid() {
		span.ParentID = parent.SpanID().String()
	}
	if res := s.Resource(); res != nil {
		if v, ok := res.Set().Value("service.name"); ok {
			span.Service = v.AsString()
		}
	}
	span.Attributes = attributeMap(s.Attributes())
	span.Status, span.Message = statusOf(s.Status().Code), s.Status().Description
	span.Events = events(s.Events())
	for i, l := range s.Links() {
		if i == maxLinks {
			break
		}
		span.Links = append(span.Links, Link{TraceID: l.SpanContext.TraceID().String(), SpanID: l.SpanContext.SpanID().String()})
	}
	return span
}

// events converts the first maxEvents events.
func events(es []sdktrace.Event) []Event {
	var out []Event
	for i, e := range es {
		if i == maxEvents {
			break
		}
		out = append(out, Event{Name: e.Name, Time: e.Time, Attributes: attributeMap(e.Attributes)})
	}
	return out
}

// attributeMap cleans attributes (hygiene.go) and keeps them as strings, bounded.
func attributeMap(attrs []attribute.KeyValue) map[string]string {
	if len(attrs) == 0 {
		return nil
	}
	m := make(map[string]string, min(len(attrs), maxAttributes))
	for _, kv := range attrs {
		if len(m) == maxAttributes {
			break
		}
		if kv, keep := cleanAttr(kv); keep {
			m[string(kv.Key)] = truncate(kv.Value.Emit())
		}
	}
	return m
}

func truncate(s string) string {
	if len(s) <= maxValueBytes {
		return s
	}
	return s[:maxValueBytes] + "…"
}

func statusOf(c codes.Code) string {
	switch c {
	case codes.Ok:
		return "ok"
	case codes.Error:
		return "error"
	}
	return ""
}

func durationMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sizeOf estimates the bytes a span takes in the ring.
func sizeOf(s *Span) int {
	n := spanOverhead + len(s.SpanID) + len(s.ParentID) + len(s.Name) + len(s.Service) + len(s.Kind) + len(s.Status) + len(s.Message)
	for k, v := range s.Attributes {
		n += attrOverhead + len(k) + len(v)
	}
	for _, e := range s.Events {
		n += eventOverhead + len(e.Name)
		for k, v := range e.Attributes {
			n += attrOverhead + len(k) + len(v)
		}
	}
	return n + len(s.Links)*(linkOverhead+len(trace.TraceID{})*2+len(trace.SpanID{})*2)
}

// sizeOfParts estimates the bytes an ended span of this process takes in the ring as it is
// kept until read (the SDK's snapshot, or the ring's own span, and the attributes and events it
// holds), with sizeOf's costs: a converted span takes about as much.
func sizeOfParts(name, message string, attrs []attribute.KeyValue, events []sdktrace.Event, links int) int {
	n := spanOverhead + len(name) + len(message)
	for _, kv := range attrs {
		n += attrOverhead + len(kv.Key) + valueBytes(kv.Value)
	}
	for _, e := range events {
		n += eventOverhead + len(e.Name)
		for _, kv := range e.Attributes {
			n += attrOverhead + len(kv.Key) + valueBytes(kv.Value)
		}
	}
	return n + links*(linkOverhead+len(trace.TraceID{})*2+len(trace.SpanID{})*2)
}

// sizeOfSteps estimates the steps as sizeOfParts estimates the events they become.
func sizeOfSteps(steps []step) int {
	n := 0
	for _, st := range steps {
		n += eventOverhead + 2*len(st.plugin) + len(st.err) + 3*attrOverhead + len(AttrAdmissionPlugin) + len(AttrDurationMs) + len(AttrError)
	}
	return n
}

// valueBytes is what an attribute's value holds beyond its fixed size: a string's bytes; a
// slice's, roughly, as its text.
func valueBytes(v attribute.Value) int {
	switch v.Type() {
	case attribute.STRING:
		return len(v.AsString())
	case attribute.BOOL, attribute.INT64, attribute.FLOAT64:
		return 0
	}
	return len(v.Emit())
}

// buildTrace makes the tree of a trace's records, converting those not yet converted. The
// Spans of recs become its nodes: recs must not be used again. Spans whose parent was left out (skipped) hang on the nearest ancestor
// that was kept; spans whose parent is not among recs are roots.
func buildTrace(id trace.TraceID, recs []*record, skipped map[trace.SpanID]trace.SpanID, dropped int) *Trace {
	byID := make(map[trace.SpanID]*record, len(recs))
	for _, r := range recs {
		switch {
		case r.own != nil:
			r.span, r.own = fromRing(r.own), nil
		case r.raw != nil:
			r.span, r.raw = fromSDK(r.raw), nil
		}
		byID[r.id] = r
	}
	var roots []*Span
	for _, r := range recs {
		parent, hops := r.parent, 0
		for grand, ok := skipped[parent]; ok && hops < len(skipped); grand, ok = skipped[parent] {
			parent, hops = grand, hops+1
		}
		if p, ok := byID[parent]; ok && parent.IsValid() && p != r {
			r.span.ParentID = p.span.SpanID
			p.span.Children = append(p.span.Children, r.span)
			continue
		}
		// A root. Its parent, if any, is a span of another process (a caller that did not
		// report, or not yet) or one of this process the ring did not record: only the first
		// is worth naming.
		if !r.parentRemote || hops > 0 {
			r.span.ParentID = ""
		}
		roots = append(roots, r.span)
	}
	byStart := func(spans []*Span) {
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
	}
	byStart(roots)
	for _, r := range recs {
		byStart(r.span.Children)
	}
	t := &Trace{TraceID: id.String(), Spans: roots, DroppedSpans: dropped}
	if root := requestRoot(roots); root != nil {
		t.Start, t.DurationMs = root.Start, root.DurationMs
		t.Request = summarize(root)
	}
	return t
}

// requestRoot is the span of the request a trace is about: its first root that is a server
// span, else its first root.
func requestRoot(roots []*Span) *Span {
	for _, r := range roots {
		if r.Kind == trace.SpanKindServer.String() {
			return r
		}
	}
	if len(roots) > 0 {
		return roots[0]
	}
	return nil
}

// summarize reads the request's summary off its spans: the path and status code off the server
// span (otelhttp's attributes), who and what off the chain's spans below it, stopping at the
// server spans of requests it caused.
func summarize(root *Span) Request {
	req := Request{Path: root.Attributes["url.path"]}
	if req.Path == "" {
		req.Path, _, _ = strings.Cut(root.Attributes["http.target"], "?")
	}
	req.Code, _ = strconv.Atoi(root.Attributes["http.response.status_code"])
	var walk func(s *Span)
	walk = func(s *Span) {
		if s != root && s.Kind == trace.SpanKindServer.String() {
			return
		}
		first := func(field *string, key string) {
			if v := s.Attributes[key]; *field == "" && v != "" {
				*field = v
			}
		}
		first(&req.User, AttrUser)
		first(&req.Verb, AttrVerb)
		first(&req.Server, AttrAnsweredBy)
		for _, c := range s.Children {
			walk(c)
		}
	}
	walk(root)
	if req.Verb == "" {
		req.Verb = strings.ToLower(root.Attributes["http.request.method"])
	}
	return req
}

// flatten turns a published trace back into records, copies of its spans without children,
// to build it again with more spans.
func flatten(t *Trace) []*record {
	var recs []*record
	var walk func(s *Span)
	walk = func(s *Span) {
		c := *s
		c.Children = nil
		r := &record{span: &c, bytes: sizeOf(&c), parentRemote: c.ParentID != ""}
		r.id, _ = spanID(c.SpanID)
		r.parent, _ = spanID(c.ParentID)
		r.hasRoot = c.ParentID == ""
		recs = append(recs, r)
		for _, child := range s.Children {
			walk(child)
		}
	}
	for _, s := range t.Spans {
		walk(s)
	}
	return recs
}

func spanID(h string) (trace.SpanID, bool) {
	var id trace.SpanID
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, true
}
