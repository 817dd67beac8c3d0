package commands

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apichain/apichain/internal/tracing"
)

// tracePrinter prints requests as `chain trace` shows them: one line that says who asked what
// and how it ended, then the tree of its hops, each with when it started (after the request
// did) and how long it took, and what the chain recorded of it.
//
// It remembers the traces it has seen (printed or filtered out) so that a hop that caused
// another request, such as the metrics server's SubjectAccessReview back to the chain, shows
// that request's hops beneath it.
type tracePrinter struct {
	out    io.Writer
	seen   map[string]*tracing.Trace // by trace ID, at most keepSeen
	order  []string                  // trace IDs, oldest first
	causes map[string][]*tracing.Trace
	// notRecorded adds up what the traces seen since the last one printed say the chain did
	// not record (Trace.NotRecorded), for a note before the next one printed.
	notRecorded int
}

const keepSeen = 512

func newTracePrinter(out io.Writer) *tracePrinter {
	return &tracePrinter{out: out, seen: map[string]*tracing.Trace{}, causes: map[string][]*tracing.Trace{}}
}

// remember notes t, so that the request whose hop caused it shows it.
func (p *tracePrinter) remember(t *tracing.Trace) {
	p.notRecorded += t.NotRecorded
	if _, ok := p.seen[t.TraceID]; !ok {
		p.order = append(p.order, t.TraceID)
	}
	p.seen[t.TraceID] = t
	if len(p.order) > keepSeen {
		delete(p.seen, p.order[0])
		p.order = p.order[1:]
	}
	// causes is rebuilt rather than kept in step: it is small, and traces come a few a second.
	p.causes = map[string][]*tracing.Trace{}
	for _, id := range p.order {
		seen := p.seen[id]
		walkSpans(seen.Spans, func(s *tracing.Span, _ int) {
			for _, l := range s.Links {
				if l.TraceID != seen.TraceID {
					p.causes[l.SpanID] = append(p.causes[l.SpanID], seen)
				}
			}
		})
	}
}

// print writes t: its summary line, then its hops.
func (p *tracePrinter) print(t *tracing.Trace) {
	if p.notRecorded > 0 {
		fmt.Fprintf(p.out, "… %d requests not recorded (under load, the chain records at most --record-traces-per-second)\n\n", p.notRecorded)
		p.notRecorded = 0
	}
	fmt.Fprintln(p.out, summaryLine(t))
	rows := p.rows(t, t.Start, t.Spans, "  ", true, map[string]bool{t.TraceID: true})
	width := 0
	for _, r := range rows {
		width = max(width, len([]rune(r.name)))
	}
	width = min(width, 72)
	for _, r := range rows {
		if r.note {
			fmt.Fprintln(p.out, r.name)
			continue
		}
		line := fmt.Sprintf("%-*s %9s %9s", width, r.name, r.offset, r.took)
		if r.detail != "" {
			line += "  " + r.detail
		}
		fmt.Fprintln(p.out, line)
	}
	fmt.Fprintln(p.out)
}

// summaryLine is a request in one line: when, verb and path, who, the status code, which part
// of the chain answered, how long it took.
func summaryLine(t *tracing.Trace) string {
	r := t.Request
	parts := []string{t.Start.Local().Format("15:04:05.000"), strings.TrimSpace(r.Verb + " " + r.Path)}
	if r.User != "" {
		parts = append(parts, "user="+r.User)
	}
	if r.Code != 0 {
		parts = append(parts, strconv.Itoa(r.Code))
	}
	if r.Server != "" {
		parts = append(parts, "answered by "+r.Server)
	}
	parts = append(parts, ms(t.DurationMs))
	if t.DroppedSpans > 0 {
		parts = append(parts, fmt.Sprintf("(%d spans not kept)", t.DroppedSpans))
	}
	if t.Update {
		parts = append(parts, "(again: spans of another process came in late)")
	}
	return strings.Join(parts, "  ")
}

// row is one line of the tree: a hop, or a note (a link) printed as it is.
type row struct {
	name, offset, took, detail string
	note                       bool
}

// rows lays out spans as a tree below prefix, with times after start. A trace that a hop caused
// is laid out beneath it (once: visiting guards against links that go round).
func (p *tracePrinter) rows(t *tracing.Trace, start time.Time, spans []*tracing.Span, prefix string, top bool, visiting map[string]bool) []row {
	var out []row
	for i, s := range spans {
		last := i == len(spans)-1
		branch, below := "├─ ", "│  "
		if last {
			branch, below = "└─ ", "   "
		}
		if top && len(spans) == 1 {
			branch, below = "", "" // the request's one root: its hops hang below it
		}
		name := prefix + branch + s.Name
		if s.Service != "" && s.Service != tracing.ServiceName {
			name += " [" + s.Service + "]"
		}
		out = append(out, row{
			name:   name,
			offset: offset(float64(s.Start.Sub(start)) / float64(time.Millisecond)),
			took:   ms(s.DurationMs),
			detail: spanDetail(s),
		})
		inner := prefix + below
		for _, l := range s.Links {
			if l.TraceID == t.TraceID || visiting[l.TraceID] {
				continue // within this trace, or the request printed above, whose hop caused this one
			}
			note := inner + "↪ linked to trace " + short(l.TraceID)
			if linked, ok := p.seen[l.TraceID]; ok {
				note = inner + "↪ linked to " + requestNote(linked)
			}
			out = append(out, row{name: note, note: true})
		}
		for _, caused := range p.causes[s.SpanID] {
			if visiting[caused.TraceID] {
				continue
			}
			out = append(out, row{name: inner + "↳ caused " + requestNote(caused), note: true})
			visiting[caused.TraceID] = true
			out = append(out, p.rows(caused, start, caused.Spans, inner+"   ", false, visiting)...)
			delete(visiting, caused.TraceID)
		}
		out = append(out, p.rows(t, start, steps(s), inner, false, visiting)...)
	}
	return out
}

// steps are what the tree shows below a span: its children and, for an admission phase, the
// plugins that ran in it (its events, servers/chain/admission), as spans of their own, by start.
func steps(s *tracing.Span) []*tracing.Span {
	var plugins []*tracing.Span
	for _, e := range s.Events {
		name, ok := e.Attributes[tracing.AttrAdmissionPlugin]
		if !ok {
			continue
		}
		took, _ := strconv.ParseFloat(e.Attributes[tracing.AttrDurationMs], 64)
		plugin := &tracing.Span{Name: name, Service: s.Service, Start: e.Time, DurationMs: took}
		if msg, failed := e.Attributes[tracing.AttrError]; failed {
			plugin.Status, plugin.Message = "error", msg
		}
		plugins = append(plugins, plugin)
	}
	if len(plugins) == 0 {
		return s.Children
	}
	all := append(plugins, s.Children...)
	slices.SortStableFunc(all, func(a, b *tracing.Span) int { return a.Start.Compare(b.Start) })
	return all
}

func requestNote(t *tracing.Trace) string {
	r := t.Request
	s := fmt.Sprintf("request #%d: %s %s", t.Seq, r.Verb, r.Path)
	if r.User != "" {
		s += " user=" + r.User
	}
	if r.Code != 0 {
		s += " " + strconv.Itoa(r.Code)
	}
	return s
}

// The attributes the tree shows, in this order, by their names without "apichain.". Others of
// the chain's own follow in name order; of upstream's, only those in upstreamShown.
var attributeOrder = []string{
	"authenticator", "user", "groups",
	"verb", "decision", "authorizer", "reason",
	"handed_on_because", "answered", "answered_by",
	"admission.operation",
	"storage.operation", "storage.key", "storage.revision", "watch_cache",
	"apiservice", "service", "endpoint", "status_code",
}

// upstreamShown are attributes of k8s.io/apiserver's and OpenTelemetry's own spans worth a line
// in the tree (-o json has them all).
var upstreamShown = map[string]string{
	"key":                       "key",
	"http.response.status_code": "status_code",
	"http.status_code":          "status_code",
	"server.address":            "server",
}

// spanDetail is what the tree says of a span besides its name and times.
func spanDetail(s *tracing.Span) string {
	own := map[string]string{}
	var shown []string
	for k, v := range s.Attributes {
		if name, ok := strings.CutPrefix(k, "apichain."); ok {
			own[name] = v
		}
	}
	// The name says these already.
	if own["server"] == s.Name {
		delete(own, "server")
	}
	delete(own, "admission.plugin")
	delete(own, "admission.phase")
	for _, name := range attributeOrder {
		if v, ok := own[name]; ok {
			shown = append(shown, attr(name, v))
			delete(own, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(own)) {
		shown = append(shown, attr(name, own[name]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Attributes)) {
		if name, ok := upstreamShown[k]; ok {
			shown = append(shown, attr(name, s.Attributes[k]))
		}
	}
	if s.Status == "error" {
		shown = append(shown, attr("error", s.Message))
	}
	return strings.Join(shown, " ")
}

func attr(name, value string) string {
	if value == "" || strings.ContainsAny(value, " \t\"=") {
		value = strconv.Quote(value)
	}
	return name + "=" + value
}

// ms prints milliseconds as a learner reads them: 0.04ms, 3.20ms, 120ms, 2.35s.
func ms(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + "s"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + "ms"
	default:
		return strconv.FormatFloat(v, 'f', 2, 64) + "ms"
	}
}

// offset is when a span started after the request did; a step the chain timed from before the
// request's own span began (authentication runs outside it) shows as a negative offset.
func offset(v float64) string {
	if v < 0 {
		return "-" + ms(-v)
	}
	return "+" + ms(v)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

// walkSpans calls f on every span of the tree, parents before children.
func walkSpans(spans []*tracing.Span, f func(s *tracing.Span, depth int)) {
	var walk func([]*tracing.Span, int)
	walk = func(spans []*tracing.Span, depth int) {
		for _, s := range spans {
			f(s, depth)
			walk(s.Children, depth+1)
		}
	}
	walk(spans, 0)
}
