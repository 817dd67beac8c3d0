package soak

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apichain/apichain/test/anchor"
)

var (
	duration   = flag.Duration("soak", 30*time.Second, "how long the soak runs (go test ./test/soak -soak=60m -timeout=90m)")
	rate       = flag.Float64("soak.rate", 20, "the workload's operations per second, at most")
	workers    = flag.Int("soak.workers", 6, "the workload's workers")
	nodes      = flag.Int("soak.nodes", 2, "the chain's simulated nodes (--nodes)")
	compaction = flag.Duration("soak.compaction", 0, "the chain's --etcd-compaction-interval (0: a tenth of the run, from 3 s to 1 m, so that etcd compacts several times)")
	eventTTL   = flag.Duration("soak.event-ttl", 0, "the chain's --event-ttl (0: a twelfth of the run, from 30 s to 5 m, so that Events expire several times and stop piling up)")
	kills      = flag.Int("soak.kills", 0, "how many times the chain is killed with SIGKILL and restarted (0: once under 20 minutes, twice from 20)")
	reportDir  = flag.String("soak.report", "", "where to write the report (summary.txt, samples.csv, events.txt, soak.svg, the chain's logs); default a temp dir, removed")
	anchorFor  = flag.Duration("soak.anchor", 0, "if set, TestSoakAnchor puts the same workload on kube-apiserver + etcd for this long")
	noFsync    = flag.Bool("soak.no-fsync", false, "run the chain's etcd with --unsafe-no-fsync, as the anchor's etcd runs (for latency beside it)")
	heapEvery  = flag.Duration("soak.heap-profiles", 0, "if set, save the chain's heap profile into the report dir at about this interval (heap-<start>-<minutes>m.pb.gz; compare two with go tool pprof -base)")
	memLimit   = flag.String("soak.memory-limit", "", "the chain process's GOMEMLIMIT, e.g. 300MiB (default none, as chain runs)")
	binary     = flag.String("soak.bin", "", "a chain binary to soak (go build -o /tmp/chain ./cmd/chain); default this test binary, run as the chain")
)

func TestMain(m *testing.M) {
	ServeAsChainIfAsked()
	os.Exit(m.Run())
}

// TestSoak runs the chain binary under the soak's workload for -soak (30 s by default, so that
// `go test ./...` runs it), kills it, its metrics server and its watchers' connections on the
// way, and fails on any acknowledged write lost, any watch event missed or duplicated, any
// watcher whose view does not converge to a list, any 5xx outside the seconds of a deliberate
// restart, and memory, goroutines or file descriptors past generous bounds. Latency and leak
// targets are checked in runs of 30 minutes or more (docs/reliability.md); shorter runs report
// them.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs for minutes")
	}
	cfg := config(t, *duration, "chain")
	cfg.Kills = *kills
	if cfg.Kills == 0 {
		cfg.Kills = 1
		if cfg.Duration >= 20*time.Minute {
			cfg.Kills = 2
		}
	}
	cfg.JudgeTargets = cfg.Duration >= 30*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+15*time.Minute)
	defer cancel()
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	report(t, r)
}

// TestSoakAnchor puts the same workload and watchers on the reference, kube-apiserver v1.37.2
// with etcd, for the figures beside the chain's (no disruptions, no kubelets, no kubectl). It
// runs only when -soak.anchor says for how long, and where the reference can run.
func TestSoakAnchor(t *testing.T) {
	if *anchorFor == 0 {
		t.Skip("-soak.anchor not set")
	}
	if ok, why := anchor.Available(); !ok {
		t.Skip(why)
	}
	ref := anchor.Start(t, time.Second)
	cfg := config(t, *anchorFor, "anchor")
	cfg.Anchor = ref.Config
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+15*time.Minute)
	defer cancel()
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	report(t, r)
}

func config(t *testing.T, d time.Duration, name string) Config {
	dir := t.TempDir()
	if *reportDir != "" {
		dir = filepath.Join(*reportDir, name)
	}
	c := *compaction
	if c == 0 {
		c = min(max(d/10, 3*time.Second), time.Minute)
	}
	ttl := *eventTTL
	if ttl == 0 {
		ttl = min(max(d/12, 30*time.Second), 5*time.Minute).Truncate(time.Second)
	}
	cfg := Config{Duration: d, Rate: *rate, Workers: *workers, Nodes: *nodes, Compaction: c, EventTTL: ttl, ReportDir: dir, Logf: t.Logf, Binary: *binary, NoFsync: *noFsync, HeapProfiles: *heapEvery,
		MemoryLimit: *memLimit}
	if cfg.Binary == "" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Binary, cfg.Env = self, []string{RunAsChainEnv + "=1"}
	}
	return cfg
}

// report writes the report, logs the summary, and fails t on what the run got wrong.
func report(t *testing.T, r *Result) {
	t.Helper()
	if err := r.Write(); err != nil {
		t.Error(err)
	}
	summary, _ := os.ReadFile(filepath.Join(r.ReportDir, "summary.txt"))
	t.Logf("report in %s\n%s", r.ReportDir, summary)
	a := r.Analyse()
	if !a.Correct() {
		t.Errorf("the soak found problems: %s", strings.SplitN(string(summary), "\n", 2)[0])
	}
	if r.StopErr != "" {
		t.Errorf("stopping the chain: %s", r.StopErr)
	}
	if missed := a.Missed(); r.JudgeTargets && len(missed) > 0 {
		t.Errorf("targets missed: %s", strings.Join(missed, "; "))
	}
}
