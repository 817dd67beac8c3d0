package commands

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apichain/apichain/internal/tracing"
)

func TestTracePathFilter(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/api/v1", "/api/v1/namespaces/default/pods", true},
		{"/api/v1/namespaces/default", "/api/v1/namespaces/kube-system/pods", false},
		// A glob's * stays within a segment, and the glob may match the first segments only.
		{"/api/v1/namespaces/*/pods", "/api/v1/namespaces/default/pods", true},
		{"/api/v1/namespaces/*/pods", "/api/v1/namespaces/default/pods/web/log", true},
		{"/api/v1/namespaces/*/pods", "/api/v1/namespaces/default/configmaps", false},
		{"/api/v1/namespaces/*/pods", "/api/v1/pods", false},
		{"/apis/*.example.com", "/apis/stable.example.com/v1", true},
		{"/apis/*.example.com", "/apis/stable.example.org/v1", false},
	} {
		if got := pathMatches(c.pattern, c.path); got != c.want {
			t.Errorf("--path %s on %s: %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
	if err := (traceFilter{Path: "/api/[v1"}).validate(); err == nil || !strings.Contains(err.Error(), "--path") {
		t.Errorf("a malformed glob: %v, want an error naming --path", err)
	}
}

// A request caused by a hop of another (the metrics server's SubjectAccessReview, linked to the
// proxy hop) is printed beneath that hop, once, even when links go round.
func TestTracePrintsCausedRequestsBeneathTheirHop(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	top := &tracing.Trace{TraceID: "t1", Seq: 1, Start: start, DurationMs: 5,
		Request: tracing.Request{Verb: "list", Path: "/apis/metrics.k8s.io/v1beta1/nodes", User: "admin", Code: 200, Server: "remote:v1beta1.metrics.k8s.io"},
		Spans: []*tracing.Span{{SpanID: "a", Name: "GET", Service: "apichain", Start: start, DurationMs: 5, Children: []*tracing.Span{
			{SpanID: "p", ParentID: "a", Name: "proxy", Service: "apichain", Start: start.Add(time.Millisecond), DurationMs: 3,
				Attributes: map[string]string{"apichain.apiservice": "v1beta1.metrics.k8s.io"}},
		}}}}
	review := &tracing.Trace{TraceID: "t2", Seq: 2, Start: start.Add(2 * time.Millisecond), DurationMs: 1,
		Request: tracing.Request{Verb: "create", Path: "/apis/authorization.k8s.io/v1/subjectaccessreviews", User: "system:metrics-server", Code: 201},
		Spans: []*tracing.Span{{SpanID: "r", Name: "POST", Service: "apichain", Start: start.Add(2 * time.Millisecond), DurationMs: 1,
			Links: []tracing.Link{{TraceID: "t1", SpanID: "p"}}}}}
	var out strings.Builder
	p := newTracePrinter(&out)
	p.remember(top)
	p.remember(review)
	p.print(top)
	got := out.String()
	for _, want := range []string{
		"list /apis/metrics.k8s.io/v1beta1/nodes  user=admin  200  answered by remote:v1beta1.metrics.k8s.io  5.00ms",
		"└─ proxy",
		"↳ caused request #2: create /apis/authorization.k8s.io/v1/subjectaccessreviews user=system:metrics-server 201",
		"+2.00ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("printed:\n%s\nwant it to contain %q", got, want)
		}
	}
	if strings.Count(got, "caused") != 1 {
		t.Errorf("the review is printed %d times beneath the proxy:\n%s", strings.Count(got, "caused"), got)
	}
}

func TestTraceOffsets(t *testing.T) {
	for v, want := range map[float64]string{0.042: "+0.04ms", 3.2: "+3.20ms", 120: "+120ms", 2345: "+2.35s", -0.19: "-0.19ms"} {
		if got := offset(v); got != want {
			t.Errorf("offset(%v) = %q, want %q", v, got, want)
		}
	}
}

// An admission phase's plugins, its events, are printed as its steps, with their times, among
// its children (a webhook's call) by start; a plugin that denied says so.
func TestTracePrintsAdmissionPluginsAsSteps(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms float64) time.Time { return start.Add(time.Duration(ms * float64(time.Millisecond))) }
	plugin := func(name string, ms float64, took string) tracing.Event {
		return tracing.Event{Name: name, Time: at(ms), Attributes: map[string]string{tracing.AttrAdmissionPlugin: name, tracing.AttrDurationMs: took}}
	}
	denied := plugin("ValidatingAdmissionWebhook", 1.5, "2")
	denied.Attributes[tracing.AttrError] = "denied by the webhook"
	phase := &tracing.Span{SpanID: "v", ParentID: "a", Name: "validating admission", Service: "apichain", Start: at(1), DurationMs: 3,
		Attributes: map[string]string{tracing.AttrAdmissionPhase: "validating", tracing.AttrAdmissionOperation: "CREATE"},
		Events:     []tracing.Event{plugin("ValidatingAdmissionPolicy", 1.1, "0.25"), denied},
		Children:   []*tracing.Span{{SpanID: "w", ParentID: "v", Name: "Call validating webhook", Service: "apichain", Start: at(1.6), DurationMs: 1.8}}}
	tr := &tracing.Trace{TraceID: "t1", Seq: 1, Start: start, DurationMs: 5,
		Request: tracing.Request{Verb: "create", Path: "/api/v1/namespaces/default/configmaps", User: "admin", Code: 400},
		Spans:   []*tracing.Span{{SpanID: "a", Name: "POST", Service: "apichain", Start: start, DurationMs: 5, Children: []*tracing.Span{phase}}}}
	var out strings.Builder
	newTracePrinter(&out).print(tr)
	got := out.String()
	want := []string{
		"└─ validating admission",
		"   ├─ ValidatingAdmissionPolicy",
		"   ├─ ValidatingAdmissionWebhook",
		"   └─ Call validating webhook",
	}
	last := -1
	for _, w := range want {
		i := strings.Index(got, w)
		if i <= last {
			t.Fatalf("printed:\n%s\nwant, in order: %q", got, want)
		}
		last = i
	}
	for _, w := range []string{"admission.operation=CREATE", "+1.10ms    0.25ms", "+1.50ms    2.00ms  error=\"denied by the webhook\""} {
		if !strings.Contains(got, w) {
			t.Errorf("printed:\n%s\nwant it to contain %q", got, w)
		}
	}
}

// A trace the chain publishes again, with spans of another process that came in after it
// completed, is printed again, and says why.
func TestTracePrintsUpdatesAgain(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr := &tracing.Trace{TraceID: "t1", Seq: 1, Start: start, DurationMs: 5,
		Request: tracing.Request{Verb: "list", Path: "/apis/metrics.k8s.io/v1beta1/nodes", Code: 200},
		Spans:   []*tracing.Span{{SpanID: "a", Name: "GET", Service: "apichain", Start: start, DurationMs: 5}}}
	again := *tr
	again.Seq, again.Update = 2, true
	again.Spans = []*tracing.Span{{SpanID: "a", Name: "GET", Service: "apichain", Start: start, DurationMs: 5, Children: []*tracing.Span{
		{SpanID: "m", ParentID: "a", Name: "metrics-server", Service: "metrics-server", Start: start, DurationMs: 1}}}}
	var out strings.Builder
	show := (&traceOptions{}).printer(&out)
	show(received{trace: tr}, true)
	show(received{trace: &again}, true)
	got := out.String()
	const marker = "(again: spans of another process came in late)"
	var summaries []string
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "list /apis/metrics.k8s.io/v1beta1/nodes") {
			summaries = append(summaries, line)
		}
	}
	if len(summaries) != 2 || strings.Contains(summaries[0], marker) || !strings.HasSuffix(summaries[1], marker) ||
		!strings.Contains(got, "metrics-server [metrics-server]") {
		t.Errorf("printed:\n%s\nwant the trace twice, the second time with the late span and %q", got, marker)
	}
}

// Requests the chain passed over under load (Trace.NotRecorded) are told before the next
// request printed, those told by traces the filters left out included.
func TestTraceSaysWhatWasNotRecorded(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	trace := func(seq uint64, path string, notRecorded int) *tracing.Trace {
		return &tracing.Trace{TraceID: fmt.Sprint("t", seq), Seq: seq, Start: start, DurationMs: 1, NotRecorded: notRecorded,
			Request: tracing.Request{Verb: "get", Path: path, Code: 200},
			Spans:   []*tracing.Span{{SpanID: fmt.Sprint("s", seq), Name: "GET", Service: "apichain", Start: start, DurationMs: 1}}}
	}
	var out strings.Builder
	p := newTracePrinter(&out)
	for _, c := range []struct {
		t     *tracing.Trace
		shown bool
	}{
		{trace(1, "/api/v1/pods", 0), true},
		{trace(2, "/api/v1/nodes", 7), false},
		{trace(3, "/api/v1/pods", 5), true},
		{trace(4, "/api/v1/pods", 0), true},
	} {
		p.remember(c.t)
		if c.shown {
			p.print(c.t)
		}
	}
	got := out.String()
	note := "… 12 requests not recorded (under load, the chain records at most --record-traces-per-second)"
	if strings.Count(got, "not recorded") != 1 || !strings.Contains(got, note) {
		t.Fatalf("want one note %q, got:\n%s", note, got)
	}
	before, after, _ := strings.Cut(got, note)
	if strings.Count(before, "get /api/v1/pods") != 1 || strings.Count(after, "get /api/v1/pods") != 2 {
		t.Errorf("the note is not just before the request after the ones passed over:\n%s", got)
	}
}
