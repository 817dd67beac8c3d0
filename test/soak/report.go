package soak

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Result is everything one soak run measured and found.
type Result struct {
	Config
	Samples  []Sample
	Events   []Event
	Totals   Totals
	Workload Figures
	Lister   ListerFigures
	Kubectl  []KubectlRun
	Watchers []WatcherResult
	// Restarts are how long each restart after SIGKILL took to be ready.
	Restarts []time.Duration
	// ModelChecks counts the checks of the stored objects against the acknowledged writes,
	// ModelCompared the objects compared in all; ModelProblems what they found.
	ModelChecks, ModelCompared int
	ModelProblems              []string
	Acked, Resolved, Objects   int
	// Fatal are failures of the soak's own steps (a restart that failed).
	Fatal   []string
	StopErr string

	checks map[string]*WatcherResult
}

// Targets are docs/reliability.md's, for a 60-minute run.
const (
	targetP99      = time.Second
	targetRSSSlope = 1.0 // MiB per 10 minutes
	warmUp         = 5 * time.Minute
	minLeakWindow  = 10 * time.Minute
	goroutineDrift = 50 // at most, over the leak window
	fdDrift        = 5
)

// Bounds every run must keep, however short: each chain process against its own first
// sample, generous enough for a busy shared machine, tight enough for a gross leak (a
// goroutine or a connection per request, memory never given back).
const (
	rssBound       = 3.0 // times the first sample's resident memory
	goroutineBound = 2.0 // times the first sample's goroutines
	fdBound        = 2.0 // times the first sample's file descriptors, plus fdSlack
	fdSlack        = 32
)

// Analysis is the figures the verdict rests on.
type Analysis struct {
	// Window is the part of the run the leak figures are taken over: the last chain process,
	// after its first 5 minutes. Zero if that is shorter than 10 minutes.
	WindowFrom, WindowTo time.Duration
	// Slopes per 10 minutes over the window, by least squares; first and last are the means
	// of the window's first and last minute.
	RSSSlope, HeapSlope, GoroutineSlope, FDSlope float64
	// What the RSS slope is made of, and what the chain stores, over the same window.
	RSSAnonSlope, RSSFileSlope, HeapLiveSlope, EventsSlope, ObjectsSlope float64
	RSSFirst, RSSLast                                                    float64
	GoroutinesFirst, GoroutinesLast                                      float64
	FDsFirst, FDsLast                                                    float64
	EtcdDBMax, EtcdDiskMax, EtcdDBLast                                   float64
	RSSMax                                                               float64
	GoroutinesMax, FDsMax                                                int
	// P99 and P50 of each verb over the run (client side).
	P50, P99 map[string]time.Duration
	Counts   map[string]int
	// Correctness: lost or changed writes, watcher problems and failed checks, 5xx outside
	// deliberate restarts, other problems.
	Lost, WatchProblems, FailedChecks, Checks, Unexpected5xx, Expected5xx, Other int
	Relists, Rewatches, Events                                                   int
	KubectlRuns, KubectlFailed, KubectlUnexpected                                int
	Kills, MetricsKills, Cuts, Compactions                                       int
	// Bounds are the samples past the bounds above.
	Bounds []string
}

// Analyse computes the figures of r.
func (r *Result) Analyse() Analysis {
	a := Analysis{P50: map[string]time.Duration{}, P99: map[string]time.Duration{}, Counts: map[string]int{}}
	for verb, l := range r.Totals.Latencies {
		a.P50[verb], a.P99[verb], a.Counts[verb] = Percentile(l, 50), Percentile(l, 99), len(l)
	}
	a.Lost = len(r.ModelProblems)
	for _, w := range r.Watchers {
		a.WatchProblems += len(w.Stats.Problems)
		a.FailedChecks += len(w.Failures)
		a.Checks += w.Checks
		a.Relists += w.Stats.Relists
		a.Rewatches += w.Stats.Rewatches
		a.Events += w.Stats.Events
	}
	a.Unexpected5xx, a.Expected5xx = len(r.Totals.Failures), len(r.Totals.Expected)
	a.Other = len(r.Workload.Problems) + len(r.Lister.Problems) + len(r.Fatal)
	for _, k := range r.Kubectl {
		a.KubectlRuns++
		if k.Err != "" {
			a.KubectlFailed++
			if !k.Expected {
				a.KubectlUnexpected++
			}
		}
	}
	a.Other += a.KubectlUnexpected
	for _, e := range r.Events {
		switch {
		case strings.HasPrefix(e.What, "SIGKILL chain"):
			a.Kills++
		case strings.HasPrefix(e.What, "SIGKILL metrics server"):
			a.MetricsKills++
		case strings.HasPrefix(e.What, "cut "):
			a.Cuts++
		}
	}

	// etcd counts its compactions from its start: the run's are the last count of each process.
	compactions := map[int]int64{}
	for _, s := range r.Samples {
		compactions[s.Start] = max(compactions[s.Start], s.Compactions)
	}
	for _, n := range compactions {
		a.Compactions += int(n)
	}
	var up []Sample
	for _, s := range r.Samples {
		if s.Up {
			up = append(up, s)
			a.EtcdDBMax, a.EtcdDiskMax, a.EtcdDBLast = max(a.EtcdDBMax, s.EtcdDB), max(a.EtcdDiskMax, s.EtcdDisk), s.EtcdDB
			a.RSSMax, a.GoroutinesMax, a.FDsMax = max(a.RSSMax, s.RSS), max(a.GoroutinesMax, s.Goroutines), max(a.FDsMax, s.FDs)
		}
	}
	if len(up) == 0 {
		return a
	}
	a.Bounds = outOfBounds(up)
	last := up[len(up)-1].Start
	i := slices.IndexFunc(up, func(s Sample) bool { return s.Start == last })
	window := slices.DeleteFunc(slices.Clone(up[i:]), func(s Sample) bool { return s.At < up[i].At+warmUp })
	if len(window) < 2 || window[len(window)-1].At-window[0].At < minLeakWindow {
		return a
	}
	a.WindowFrom, a.WindowTo = window[0].At, window[len(window)-1].At
	series := func(f func(Sample) float64) (slope, first, last float64) {
		xs, ys := make([]float64, len(window)), make([]float64, len(window))
		for i, s := range window {
			xs[i], ys[i] = s.At.Minutes()/10, f(s)
		}
		return slopeOf(xs, ys), meanWhile(window, f, func(s Sample) bool { return s.At < a.WindowFrom+time.Minute }),
			meanWhile(window, f, func(s Sample) bool { return s.At > a.WindowTo-time.Minute })
	}
	a.RSSSlope, a.RSSFirst, a.RSSLast = series(func(s Sample) float64 { return s.RSS })
	a.HeapSlope, _, _ = series(func(s Sample) float64 { return s.Heap })
	a.HeapLiveSlope, _, _ = series(func(s Sample) float64 { return s.HeapLive })
	a.RSSAnonSlope, _, _ = series(func(s Sample) float64 { return s.RSSAnon })
	a.RSSFileSlope, _, _ = series(func(s Sample) float64 { return s.RSSFile })
	a.EventsSlope, _, _ = series(func(s Sample) float64 { return float64(s.Events) })
	a.ObjectsSlope, _, _ = series(func(s Sample) float64 { return float64(s.Objects - s.Events) })
	a.GoroutineSlope, a.GoroutinesFirst, a.GoroutinesLast = series(func(s Sample) float64 { return float64(s.Goroutines) })
	a.FDSlope, a.FDsFirst, a.FDsLast = series(func(s Sample) float64 { return float64(s.FDs) })
	return a
}

// outOfBounds holds each sample against the first sample of the same chain process.
func outOfBounds(up []Sample) []string {
	var out []string
	first := map[int]Sample{}
	for _, s := range up {
		f, ok := first[s.Start]
		if !ok {
			first[s.Start] = s
			continue
		}
		if s.RSS > rssBound*f.RSS {
			out = append(out, fmt.Sprintf("%s RSS %.0f MiB, over %.0f× the %.0f MiB of %s", fmtDur(s.At), s.RSS, rssBound, f.RSS, fmtDur(f.At)))
		}
		if float64(s.Goroutines) > goroutineBound*float64(f.Goroutines) {
			out = append(out, fmt.Sprintf("%s %d goroutines, over %.0f× the %d of %s", fmtDur(s.At), s.Goroutines, goroutineBound, f.Goroutines, fmtDur(f.At)))
		}
		if float64(s.FDs) > fdBound*float64(f.FDs)+fdSlack {
			out = append(out, fmt.Sprintf("%s %d file descriptors, over %.0f× the %d of %s and %d", fmtDur(s.At), s.FDs, fdBound, f.FDs, fmtDur(f.At), fdSlack))
		}
	}
	return out
}

// slopeOf is the least-squares slope of ys over xs.
func slopeOf(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

func meanWhile(ss []Sample, f func(Sample) float64, keep func(Sample) bool) float64 {
	var sum float64
	n := 0
	for _, s := range ss {
		if keep(s) {
			sum += f(s)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Correct says whether nothing was lost, missed, duplicated or answered 5xx outside a
// deliberate restart, and the chain kept within its bounds: what every run must show, however
// short and however busy the machine.
func (a Analysis) Correct() bool {
	return a.Lost+a.WatchProblems+a.FailedChecks+a.Unexpected5xx+a.Other+len(a.Bounds) == 0
}

// Missed lists the targets on resources and latency that the run missed (leak figures only
// where the window was long enough to measure them).
func (a Analysis) Missed() []string {
	var out []string
	for _, v := range mutatingVerbs {
		if p := a.P99[v]; p > targetP99 {
			out = append(out, fmt.Sprintf("p99 %s %v > %v", v, p.Round(time.Millisecond), targetP99))
		}
	}
	if a.WindowTo > 0 {
		window := (a.WindowTo - a.WindowFrom).Minutes() / 10
		if a.RSSSlope >= targetRSSSlope {
			out = append(out, fmt.Sprintf("RSS slope %+.2f MiB/10m ≥ %.0f", a.RSSSlope, targetRSSSlope))
		}
		if d := a.GoroutineSlope * window; d > goroutineDrift {
			out = append(out, fmt.Sprintf("goroutines grew by %.0f over the window", d))
		}
		if d := a.FDSlope * window; d > fdDrift {
			out = append(out, fmt.Sprintf("file descriptors grew by %.0f over the window", d))
		}
	}
	return out
}

// Verdict is the one-line summary of a run.
func (r *Result) Verdict() string {
	a := r.Analyse()
	missed := a.Missed()
	word := "PASS"
	if !a.Correct() || (r.JudgeTargets && len(missed) > 0) {
		word = "FAIL"
	}
	targets := "targets met"
	if len(missed) > 0 {
		targets = "targets missed: " + strings.Join(missed, ", ")
	}
	bounds := "within bounds"
	if len(a.Bounds) > 0 {
		bounds = fmt.Sprintf("%d samples out of bounds", len(a.Bounds))
	}
	leak := fmt.Sprintf("RSS ≤ %.0f MiB, goroutines ≤ %d, fds ≤ %d (%s; too short a run for a leak slope)", a.RSSMax, a.GoroutinesMax, a.FDsMax, bounds)
	if a.WindowTo > 0 {
		leak = fmt.Sprintf("RSS %.0f→%.0f MiB (%+.2f MiB/10m), goroutines %.0f→%.0f, fds %.0f→%.0f",
			a.RSSFirst, a.RSSLast, a.RSSSlope, a.GoroutinesFirst, a.GoroutinesLast, a.FDsFirst, a.FDsLast) + " (" + bounds + ")"
	}
	return fmt.Sprintf("soak %s in %v: %d writes acknowledged, %d lost; %d watch events, %d missed or duplicated (%d checks, %d relists after 410); "+
		"%d × 5xx outside restarts (%d during); %d SIGKILLs of the chain, %d of the metrics server, %d watch cuts, %d compactions; "+
		"%s; etcd db ≤ %.1f MiB; p99 create %v update %v apply %v delete %v; %s",
		word, r.Duration, r.Acked, a.Lost, a.Events, a.WatchProblems+a.FailedChecks, a.Checks, a.Relists,
		a.Unexpected5xx, a.Expected5xx, a.Kills, a.MetricsKills, a.Cuts, a.Compactions,
		leak, a.EtcdDBMax, ms(a.P99["create"]), ms(a.P99["update"]), ms(a.P99["apply"]), ms(a.P99["delete"]), targets)
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// Write writes the report into r.ReportDir: summary.txt (the verdict, the figures and every
// problem), samples.csv, events.txt and soak.svg.
func (r *Result) Write() error {
	a := r.Analyse()
	var b strings.Builder
	fmt.Fprintln(&b, r.Verdict())
	if r.Anchor != nil {
		fmt.Fprintf(&b, "\nrun: %v, %.0f operations/s at most on %d workers, on kube-apiserver + etcd (the anchor: its own compaction, no kubelets)\n", r.Duration, r.Rate, r.Workers)
	} else {
		fsync := ""
		if r.NoFsync {
			fsync = ", etcd without fsync"
		}
		if r.MemoryLimit != "" {
			fsync += ", GOMEMLIMIT=" + r.MemoryLimit
		}
		fmt.Fprintf(&b, "\nrun: %v, %.0f operations/s at most on %d workers, %d simulated nodes, etcd compaction every %v, Events kept %v%s\n", r.Duration, r.Rate, r.Workers, r.Nodes, r.Compaction, r.EventTTL, fsync)
	}
	fmt.Fprintln(&b, "\nlatency by verb (client side, outside restarts):")
	for _, v := range slices.Sorted(maps.Keys(a.Counts)) {
		fmt.Fprintf(&b, "  %-22s %7d  p50 %8s  p99 %8s\n", v, a.Counts[v], ms(a.P50[v]), ms(a.P99[v]))
	}
	fmt.Fprintln(&b, "\nanswers by code (0: no answer):")
	for _, c := range slices.Sorted(maps.Keys(r.Totals.Codes)) {
		fmt.Fprintf(&b, "  %3d %d\n", c, r.Totals.Codes[c])
	}
	fmt.Fprintf(&b, "\nwrites: %d acknowledged, %d of unknown outcome resolved, %d objects at the end; %d checks of %d objects in all against the acknowledged writes\n",
		r.Acked, r.Resolved, r.Objects, r.ModelChecks, r.ModelCompared)
	fmt.Fprintf(&b, "operations: %v\nrefused: %v\nunanswered: %v\n", r.Workload.Ops, r.Workload.Refused, r.Workload.Lost)
	fmt.Fprintf(&b, "paginated lists: %d (%d pages, %d objects), %d continues expired\n", r.Lister.Lists, r.Lister.Pages, r.Lister.Items, r.Lister.Expired)
	fmt.Fprintf(&b, "kubectl: %d runs, %d failed (%d unexpected)\n", a.KubectlRuns, a.KubectlFailed, a.KubectlUnexpected)
	for _, d := range r.Restarts {
		fmt.Fprintf(&b, "restart after SIGKILL: ready in %.1f s\n", d.Seconds())
	}
	if a.WindowTo > 0 {
		fmt.Fprintf(&b, "leak window %s–%s: RSS %+.2f MiB/10m, Go heap %+.2f MiB/10m, goroutines %+.1f/10m, fds %+.2f/10m\n",
			fmtDur(a.WindowFrom), fmtDur(a.WindowTo), a.RSSSlope, a.HeapSlope, a.GoroutineSlope, a.FDSlope)
		fmt.Fprintf(&b, "  of RSS: the process's own pages %+.2f MiB/10m, mapped files (binary, etcd's database) %+.2f MiB/10m; live heap after GC %+.2f MiB/10m\n",
			a.RSSAnonSlope, a.RSSFileSlope, a.HeapLiveSlope)
		fmt.Fprintf(&b, "  stored: Events %+.0f/10m, other objects %+.0f/10m\n", a.EventsSlope, a.ObjectsSlope)
	}
	fmt.Fprintf(&b, "etcd: database at most %.1f MiB (%.1f at the end), its files at most %.1f MiB\n", a.EtcdDBMax, a.EtcdDBLast, a.EtcdDiskMax)
	fmt.Fprintln(&b, "\nwatchers:")
	for _, w := range r.Watchers {
		fmt.Fprintf(&b, "  %-44s %6d events %5d bookmarks %3d rewatches %3d relists %3d checks (at most %d lists), %d failed, %d problems  (%s)\n",
			w.Name, w.Stats.Events, w.Stats.Bookmarks, w.Stats.Rewatches, w.Stats.Relists, w.Checks, w.MostTries, len(w.Failures), len(w.Stats.Problems), w.Target)
	}
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, len(lines))
		for _, l := range lines[:min(len(lines), 50)] {
			fmt.Fprintln(&b, "  "+l)
		}
	}
	section("writes lost or changed", r.ModelProblems)
	for _, w := range r.Watchers {
		section(w.Name+": events that break the watch's promises", w.Stats.Problems)
		section(w.Name+": views that differed from a list", w.Failures)
	}
	section("5xx and unanswered outside restarts", stringsOf(r.Totals.Failures))
	section("5xx and unanswered during restarts", stringsOf(r.Totals.Expected))
	section("workload problems", r.Workload.Problems)
	section("list problems", r.Lister.Problems)
	section("soak failures", r.Fatal)
	section("samples out of bounds", a.Bounds)
	var kubectl []string
	for _, k := range r.Kubectl {
		if k.Err != "" {
			kubectl = append(kubectl, fmt.Sprintf("%s kubectl %s (expected %v): %s", fmtDur(k.At), strings.Join(k.Args, " "), k.Expected, firstLine(k.Err)))
		}
	}
	section("kubectl failures", kubectl)
	if r.StopErr != "" {
		section("stop", []string{r.StopErr})
	}
	var events []string
	for _, e := range r.Events {
		events = append(events, fmtDur(e.At)+" "+e.What)
	}
	if err := os.WriteFile(filepath.Join(r.ReportDir, "summary.txt"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.ReportDir, "events.txt"), []byte(strings.Join(events, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.ReportDir, "samples.csv"), samplesCSV(r.Samples), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.ReportDir, "soak.svg"), Plot(r.Samples, r.Events, r.Duration), 0o644)
}

func samplesCSV(samples []Sample) []byte {
	var b strings.Builder
	b.WriteString("seconds,start,up,rss_mib,heap_mib,goroutines,fds,threads,metrics_server_rss_mib,etcd_db_mib,etcd_db_in_use_mib,etcd_disk_mib,compact_rev,compactions,requests,p99_mutating_ms,p99_get_ms,p99_list_ms,rss_anon_mib,rss_file_mib,heap_live_mib,objects,events\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "%.0f,%d,%v,%.1f,%.1f,%d,%d,%d,%.1f,%.2f,%.2f,%.1f,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d\n",
			s.At.Seconds(), s.Start, s.Up, s.RSS, s.Heap, s.Goroutines, s.FDs, s.Threads, s.ChildRSS, s.EtcdDB, s.EtcdDBInUse, s.EtcdDisk, s.CompactRev, s.Compactions,
			s.Requests, msf(mutatingP99(s)), msf(s.P99["get"]), msf(s.P99["list"]),
			s.RSSAnon, s.RSSFile, s.HeapLive, s.Objects, s.Events)
	}
	return []byte(b.String())
}

// mutatingP99 is the highest p99 of the single-object mutating verbs in a sample.
func mutatingP99(s Sample) time.Duration {
	var p time.Duration
	for _, v := range mutatingVerbs {
		p = max(p, s.P99[v])
	}
	return p
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func stringsOf(fs []Failure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
