package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// readTraces reads the ring as cfg's user: every trace kept, oldest first.
func readTraces(t testing.TB, cfg *rest.Config) []*tracing.Trace {
	t.Helper()
	resp, body := testchain.Do(t, cfg, http.MethodGet, tracing.TracesPath, nil, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", tracing.TracesPath, resp.StatusCode, body)
	}
	var traces []*tracing.Trace
	if err := json.Unmarshal(body, &traces); err != nil {
		t.Fatalf("GET %s: %v: %s", tracing.TracesPath, err, body)
	}
	return traces
}

// waitForTrace waits until the ring holds a trace of a request that match says is the one,
// and returns the newest such. A request's trace is published as its last span ends, just
// after its response: a moment, but no time is promised, so this polls (30 s at most, then
// it fails with what the ring holds).
func waitForTrace(t testing.TB, c *chain.Chain, what string, match func(*tracing.Trace) bool) *tracing.Trace {
	t.Helper()
	var found *tracing.Trace
	var last []*tracing.Trace
	_ = wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		last = readTraces(t, c.Admin)
		for _, tr := range last {
			if match(tr) {
				found = tr
			}
		}
		return found != nil, nil
	})
	if found == nil {
		var b strings.Builder
		for _, tr := range last[max(0, len(last)-20):] {
			b.WriteString(tree(tr))
		}
		t.Fatalf("no trace of %s; the ring's last:\n%s", what, b.String())
	}
	return found
}

// requestTo matches the trace of a request for path with verb.
func requestTo(verb, path string) func(*tracing.Trace) bool {
	return func(tr *tracing.Trace) bool { return tr.Request.Verb == verb && tr.Request.Path == path }
}

// walk visits the spans of a trace depth first, each before its children, children by start.
func walk(spans []*tracing.Span, visit func(s *tracing.Span, depth int)) {
	var rec func(s *tracing.Span, depth int)
	rec = func(s *tracing.Span, depth int) {
		visit(s, depth)
		for _, c := range s.Children {
			rec(c, depth+1)
		}
	}
	for _, s := range spans {
		rec(s, 0)
	}
}

// find returns the first span named name, depth first, or nil.
func find(tr *tracing.Trace, name string) *tracing.Span {
	var found *tracing.Span
	walk(tr.Spans, func(s *tracing.Span, _ int) {
		if found == nil && s.Name == name {
			found = s
		}
	})
	return found
}

// mustFind is find, failing t with the tree when there is no such span.
func mustFind(t testing.TB, tr *tracing.Trace, name string) *tracing.Span {
	t.Helper()
	s := find(tr, name)
	if s == nil {
		t.Fatalf("no span %q in the trace:\n%s", name, tree(tr))
	}
	return s
}

// names are the names of the spans, depth first, of those that keep says are worth comparing.
func names(tr *tracing.Trace, keep func(string) bool) []string {
	var out []string
	walk(tr.Spans, func(s *tracing.Span, _ int) {
		if keep(s.Name) {
			out = append(out, s.Name)
		}
	})
	return out
}

// tree prints a trace as `chain trace` would, roughly: for failure messages.
func tree(tr *tracing.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s code=%d server=%s\n", tr.Request.Verb, tr.Request.Path, tr.Request.User, tr.Request.Code, tr.Request.Server)
	walk(tr.Spans, func(s *tracing.Span, depth int) {
		fmt.Fprintf(&b, "%s%s [%s] %v\n", strings.Repeat("  ", depth+1), s.Name, s.Service, s.Attributes)
	})
	return b.String()
}

// ordered says whether want appears in got in this order (other names may come between).
func ordered(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
