package soak

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// The harness's own checks, without a chain: each must catch what it is there to catch.

func object(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// TestRawWatcherFindsBrokenPromises feeds a raw watcher a stream that breaks every promise it
// checks, and one that keeps them.
func TestRawWatcherFindsBrokenPromises(t *testing.T) {
	feed := func(events ...watch.Event) *RawWatcher {
		w := &RawWatcher{seen: seen{view: View{Objects: map[string]uint64{"ns/old": 3}, RV: 3}}}
		fake := watch.NewFakeWithChanSize(len(events), false)
		for _, e := range events {
			fake.Action(e.Type, e.Object)
		}
		fake.Stop()
		w.consume(fake)
		return w
	}
	good := feed(
		watch.Event{Type: watch.Added, Object: object("a", "5")},
		watch.Event{Type: watch.Modified, Object: object("a", "6")},
		watch.Event{Type: watch.Bookmark, Object: object("", "6")},
		watch.Event{Type: watch.Deleted, Object: object("old", "8")},
	)
	if p := good.Stats().Problems; len(p) > 0 {
		t.Errorf("a good stream: problems %q", p)
	}
	if v := good.View(); v.RV != 8 || len(v.Objects) != 1 || v.Objects["ns/a"] != 6 {
		t.Errorf("a good stream: view %+v, want ns/a@6 at 8", v)
	}

	bad := feed(
		watch.Event{Type: watch.Added, Object: object("a", "5")},
		watch.Event{Type: watch.Added, Object: object("a", "7")},    // added twice
		watch.Event{Type: watch.Modified, Object: object("b", "8")}, // never added
		watch.Event{Type: watch.Deleted, Object: object("c", "9")},  // never added
		watch.Event{Type: watch.Modified, Object: object("a", "9")}, // not above the last
		watch.Event{Type: watch.Bookmark, Object: object("", "4")},  // behind
	)
	want := []string{"ADDED ns/a at 7: already held", "MODIFIED ns/b at 8: never added", "DELETED ns/c at 9: never added",
		"MODIFIED ns/a at 9 after 9", "bookmark at 4 after 9"}
	got := strings.Join(bad.Stats().Problems, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("problems:\n%s\nsay nothing of %q", got, w)
		}
	}
	if n := len(bad.Stats().Problems); n != len(want) {
		t.Errorf("%d problems, want %d:\n%s", n, len(want), got)
	}
}

// TestRawWatcherEndsOnGone: a 410 in the stream ends the watch as gone (list again); another
// error ends it to be resumed.
func TestRawWatcherEndsOnGone(t *testing.T) {
	for _, tc := range []struct {
		status       metav1.Status
		gone, failed bool
	}{
		{metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}, true, false},
		{metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError}, false, true},
	} {
		w := &RawWatcher{seen: seen{view: View{Objects: map[string]uint64{}}}}
		fake := watch.NewFakeWithChanSize(1, false)
		fake.Error(&tc.status)
		fake.Stop()
		if gone, failed := w.consume(fake); gone != tc.gone || failed != tc.failed {
			t.Errorf("%d: gone %v failed %v, want %v %v", tc.status.Code, gone, failed, tc.gone, tc.failed)
		}
	}
}

// TestModelVerify: an acknowledged write missing, an object changed by someone else, an object
// that should be gone, one never written; a write of unknown outcome is right either way.
func TestModelVerify(t *testing.T) {
	m := NewModel("configmaps")
	k := func(name string) Key { return Key{Resource: "configmaps", Namespace: "ns", Name: name} }
	m.Ack(k("kept"), State{Exists: true, Seq: 1, RV: "10"})
	m.Ack(k("lost"), State{Exists: true, Seq: 2, RV: "11"})
	m.Ack(k("changed"), State{Exists: true, Seq: 3, RV: "12"})
	m.Ack(k("deleted"), State{})
	m.Ack(k("unknown"), State{Exists: true, Seq: 4, RV: "13"})
	m.Begin(k("unknown"), State{Exists: true, Seq: 5})
	stored := map[Key]Observed{
		k("kept"):    {Seq: 1, RV: "10"},
		k("changed"): {Seq: 3, RV: "20"},
		k("deleted"): {Seq: 6, RV: "14"},
		k("unknown"): {Seq: 5, RV: "15"},
		k("stray"):   {Seq: 7, RV: "16"},
	}
	problems, n := m.Verify([]string{"configmaps"}, stored)
	got := strings.Join(problems, "\n")
	for _, w := range []string{"ns/lost: stored nothing, acknowledged write 2", "ns/changed: stored write 3 (rv 20), acknowledged write 3 (rv 12)",
		"ns/deleted: stored write 6", "ns/stray: stored write 7 (rv 16), never written"} {
		if !strings.Contains(got, w) {
			t.Errorf("problems:\n%s\nsay nothing of %q", got, w)
		}
	}
	if len(problems) != 4 || n != 5 {
		t.Errorf("%d problems over %d objects, want 4 over 5:\n%s", len(problems), n, got)
	}
	if s, pending := m.Current(k("unknown")); pending || s.Seq != 5 || s.RV != "15" {
		t.Errorf("the write of unknown outcome was not resolved to what is stored: %+v pending %v", s, pending)
	}
}

func TestDiff(t *testing.T) {
	if d := Diff(map[string]uint64{"a": 1}, map[string]uint64{"a": 1}); d != "" {
		t.Errorf("equal: %q", d)
	}
	d := Diff(map[string]uint64{"a": 1, "gone": 2}, map[string]uint64{"a": 3, "new": 4})
	for _, w := range []string{"1 missing: new@4", "1 deleted but still held: gone@2", "1 at another version: a@3 (view @1)"} {
		if !strings.Contains(d, w) {
			t.Errorf("diff %q says nothing of %q", d, w)
		}
	}
}

// TestPlan: the chain's kills in the first half (quarter, for long runs), the other
// disruptions all along, none near a kill or past the end; a short run gets every kind.
func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		d     time.Duration
		kills int
		last  time.Duration // the last kill no later than this
		gap   time.Duration // no other disruption this close to a kill
	}{
		{30 * time.Second, 1, 15 * time.Second, 3 * time.Second},
		{3 * time.Minute, 1, 90 * time.Second, 20 * time.Second},
		{60 * time.Minute, 2, 15 * time.Minute, 20 * time.Second},
	} {
		p := plan(tc.d, tc.kills)
		var killAt []time.Duration
		kinds := map[string]int{}
		for _, d := range p {
			kinds[d.what]++
			if d.what == "kill chain" {
				killAt = append(killAt, d.at)
			}
			if d.at <= 0 || d.at >= tc.d {
				t.Errorf("%v: %s at %v, outside the run", tc.d, d.what, d.at)
			}
		}
		if len(killAt) != tc.kills || killAt[len(killAt)-1] > tc.last {
			t.Errorf("%v: kills at %v, want %d by %v", tc.d, killAt, tc.kills, tc.last)
		}
		if kinds["cut watches"] < 2 || kinds["kill metrics server"] < 1 {
			t.Errorf("%v: too few other disruptions: %v", tc.d, p)
		}
		for _, d := range p {
			for _, k := range killAt {
				if d.what != "kill chain" && (d.at-k).Abs() < tc.gap {
					t.Errorf("%v: %s at %v, near the kill at %v", tc.d, d.what, d.at, k)
				}
			}
		}
	}
}

// TestAnalysis: a steady run passes; a growing one shows its slope, and misses the targets.
func TestAnalysis(t *testing.T) {
	run := func(growth float64) Analysis {
		r := &Result{Config: Config{Duration: 30 * time.Minute}}
		for i := 0; i <= 180; i++ {
			at := time.Duration(i) * 10 * time.Second
			r.Samples = append(r.Samples, Sample{At: at, Start: 1, Up: true, RSS: 300 + growth*at.Minutes()/10,
				Goroutines: 2800 + int(growth*at.Minutes()), FDs: 60, P99: map[string]time.Duration{"create": 50 * time.Millisecond}})
		}
		r.Totals.Latencies = map[string][]time.Duration{"create": {10 * time.Millisecond, 2 * time.Second}}
		return r.Analyse()
	}
	steady := run(0)
	if steady.WindowTo == 0 || math.Abs(steady.RSSSlope) > 1e-9 || !steady.Correct() {
		t.Errorf("steady: %+v", steady)
	}
	if m := steady.Missed(); len(m) != 1 || !strings.Contains(m[0], "p99 create") {
		t.Errorf("steady: missed %q, want only the p99 of create", m)
	}
	growing := run(4)
	if growing.RSSSlope < 3.9 || growing.RSSSlope > 4.1 {
		t.Errorf("growing by 4 MiB/10m: slope %.2f", growing.RSSSlope)
	}
	if m := strings.Join(growing.Missed(), "; "); !strings.Contains(m, "RSS slope") || !strings.Contains(m, "goroutines grew") {
		t.Errorf("growing: missed %q", m)
	}
}

// TestVerdictSaysFailOnMissedTargets: a run that loses nothing but misses a target it is judged
// on says FAIL in its first line, as the test that ran it fails; one not judged on targets
// (a short run) says PASS and still lists what it missed.
func TestVerdictSaysFailOnMissedTargets(t *testing.T) {
	for _, judged := range []bool{true, false} {
		r := &Result{Config: Config{Duration: 30 * time.Minute, JudgeTargets: judged}}
		for i := 0; i <= 180; i++ {
			at := time.Duration(i) * 10 * time.Second
			r.Samples = append(r.Samples, Sample{At: at, Start: 1, Up: true, RSS: 300 + 4*at.Minutes()/10, Goroutines: 2800, FDs: 60})
		}
		v := r.Verdict()
		want := "soak PASS "
		if judged {
			want = "soak FAIL "
		}
		if !strings.HasPrefix(v, want) || !strings.Contains(v, "targets missed: RSS slope") {
			t.Errorf("judged on targets %v: verdict %q, want it to start %q and list the RSS slope", judged, v, want)
		}
	}
}

// TestBounds: a short run within bounds is correct; goroutines or file descriptors that
// double, or memory that triples, within one chain process are not. A restarted process is
// held against its own first sample.
func TestBounds(t *testing.T) {
	run := func(last Sample) Analysis {
		r := &Result{Config: Config{Duration: 30 * time.Second}, Samples: []Sample{
			{At: 10 * time.Second, Start: 1, Up: true, RSS: 300, Goroutines: 2800, FDs: 60},
			{At: 20 * time.Second, Start: 2, Up: true, RSS: 100, Goroutines: 1000, FDs: 40},
			last,
		}}
		return r.Analyse()
	}
	if a := run(Sample{At: 30 * time.Second, Start: 2, Up: true, RSS: 250, Goroutines: 1900, FDs: 100}); !a.Correct() || len(a.Bounds) > 0 {
		t.Errorf("within bounds: %q", a.Bounds)
	}
	for _, tc := range []struct {
		last Sample
		want string
	}{
		{Sample{RSS: 301, Goroutines: 1000, FDs: 40}, "RSS 301 MiB"},
		{Sample{RSS: 100, Goroutines: 2001, FDs: 40}, "2001 goroutines"},
		{Sample{RSS: 100, Goroutines: 1000, FDs: 113}, "113 file descriptors"},
	} {
		tc.last.At, tc.last.Start, tc.last.Up = 30*time.Second, 2, true
		a := run(tc.last)
		if a.Correct() || len(a.Bounds) != 1 || !strings.Contains(a.Bounds[0], tc.want) {
			t.Errorf("%+v: bounds %q, want one saying %q", tc.last, a.Bounds, tc.want)
		}
	}
}

// TestPlotIsSVG: the plot is well-formed XML with an svg root and a line per series.
func TestPlotIsSVG(t *testing.T) {
	var samples []Sample
	for i := range 30 {
		samples = append(samples, Sample{At: time.Duration(i) * 10 * time.Second, Up: i != 12 && i != 14, RSS: 300, Heap: 120, Goroutines: 2800,
			P99: map[string]time.Duration{"create": 40 * time.Millisecond, "list": 20 * time.Millisecond}})
	}
	events := []Event{{At: time.Minute, What: "SIGKILL chain (pid 1)"}, {At: 2 * time.Minute, What: "cut 3 connections of a"}}
	svg := Plot(samples, events, 5*time.Minute)
	d := xml.NewDecoder(bytes.NewReader(svg))
	root, lines, dots := "", 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			switch se.Name.Local {
			case "polyline":
				lines++
			case "circle":
				dots++
			}
		}
	}
	// Five series, each broken in two by the samples taken while the chain was down, with the
	// sample alone between them drawn as a dot.
	if root != "svg" || lines != 10 || dots != 5 {
		t.Errorf("root %q with %d polylines and %d dots, want svg with 10 and 5", root, lines, dots)
	}
}
