package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/test/anchor"
)

// The benchmarks here measure the chain as a user runs it, the binary, beside the real
// kube-apiserver + etcd started envtest-style (test/anchor) on the same machine in the same
// run, and report the figures of both and their ratios (chain / kube-apiserver). Where the
// reference binaries are not built they report the chain's figures alone. docs/performance.md
// has the results and how to reproduce them (test/anchor says what the reference needs):
//
//	go test -run '^$' -bench . -benchtime 3x ./cmd/chain

// benchIdle is how long both sit idle before their memory is read (CHAIN_BENCH_IDLE, default
// 10s, as the reference's start script waits).
func benchIdle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("CHAIN_BENCH_IDLE")); err == nil {
		return d
	}
	return 10 * time.Second
}

// BenchmarkColdStart starts the chain binary on an empty data dir, as a user would (etcd
// without fsync, as envtest runs etcd), and reports the seconds until it prints its export line
// (/readyz ok) and its resident memory once idle; then the same for kube-apiserver + etcd. The
// chain runs three ways: like for like with the reference ("bare-": --metrics=off
// --controllers=, the three API servers and etcd in one process, as envtest runs
// kube-apiserver and etcd), with its controllers (--metrics=off: what kube-controller-manager
// would add, in the same process), and as `chain` runs by default, with its metrics server
// child, whose memory is added in ("default-"). One more run, "bare-noapf-", is "bare-" with
// --enable-priority-and-fairness=false: the difference is what API Priority and Fairness adds
// to the start (its configuration objects written and read before /readyz).
func BenchmarkColdStart(b *testing.B) {
	build(b) // before the clock starts
	idle := benchIdle()
	withAnchor, why := anchor.Available()
	if !withAnchor {
		b.Logf("no side-by-side figures: %s", why)
	}
	runs := []struct {
		prefix     string
		args       []string
		ready, rss float64
	}{
		{prefix: "bare-", args: []string{"--metrics=off", "--controllers="}},
		{prefix: "bare-noapf-", args: []string{"--metrics=off", "--controllers=", "--enable-priority-and-fairness=false"}},
		{prefix: "", args: []string{"--metrics=off"}},
		{prefix: "default-"},
	}
	var kasReady, kasRSS float64
	for i := 0; i < b.N; i++ {
		for j := range runs {
			r, m := coldStart(b, idle, runs[j].args...)
			runs[j].ready += r.Seconds()
			runs[j].rss += m
		}
		if withAnchor {
			kas := anchor.Start(b, idle)
			kasReady += kas.ReadySeconds
			kasRSS += kas.RSSMiB
			kas.Stop()
		}
	}
	n := float64(b.N)
	for _, r := range runs {
		b.ReportMetric(r.ready/n, r.prefix+"s-to-ready")
		b.ReportMetric(r.rss/n, r.prefix+"MiB-idle-rss")
		if withAnchor {
			b.ReportMetric(r.ready/kasReady, r.prefix+"ready-ratio")
			b.ReportMetric(r.rss/kasRSS, r.prefix+"rss-ratio")
		}
	}
	if withAnchor {
		b.ReportMetric(kasReady/n, "kas-s-to-ready")
		b.ReportMetric(kasRSS/n, "kas-MiB-idle-rss")
	}
}

// coldStart starts the binary (startBinary: a new data dir, a free port, no fsync) and returns
// the time to its export line and its resident memory, children included, after idle.
func coldStart(b *testing.B, idle time.Duration, args ...string) (time.Duration, float64) {
	b.Helper()
	start := time.Now()
	r := startBinary(b, args...)
	ready := time.Since(start)
	defer r.stop(b)
	time.Sleep(idle) // the measurement itself: memory after an idle period, as the anchor does
	rss, err := anchor.RSSMiB(r.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	return ready, rss
}

// BenchmarkLoad runs anchor.Load's workload (-n 2000 -c 16: creates, gets, one list,
// watch delivery of 200 updates) against the chain binary (etcd without fsync, no metrics
// server) and then against kube-apiserver + etcd, and reports both and the ratios: for
// throughput chain/kube-apiserver (higher is better), for latency chain/kube-apiserver (lower
// is better).
func BenchmarkLoad(b *testing.B) {
	withAnchor, why := anchor.Available()
	if !withAnchor {
		b.Logf("no side-by-side figures: %s", why)
	}
	ctx := context.Background()
	var chainSum, kasSum loadSum
	for i := 0; i < b.N; i++ {
		// Like for like: kube-apiserver records no traces unless configured to, so neither does
		// the chain here (BenchmarkRecordingLoad measures what recording costs).
		chainSum.add(loadChain(b, "--record-traces=false"))
		if withAnchor {
			kas := anchor.Start(b, 0)
			f, err := anchor.Load(ctx, kas.Config, 2000, 16)
			if err != nil {
				b.Fatalf("kube-apiserver: %v", err)
			}
			kasSum.add(f)
			kas.Stop()
		}
	}
	chainSum.report(b, "", b.N)
	if withAnchor {
		kasSum.report(b, "kas-", b.N)
		b.ReportMetric(chainSum.creates/kasSum.creates, "creates-ratio")
		b.ReportMetric(chainSum.gets/kasSum.gets, "gets-ratio")
		b.ReportMetric(chainSum.list/kasSum.list, "list-latency-ratio")
		b.ReportMetric(chainSum.watch/kasSum.watch, "watch-latency-ratio")
	}
}

// loadChain runs anchor.Load's workload (-n 2000 -c 16) against a chain binary started for it
// (etcd without fsync, no metrics server), with flags (how it records traces).
func loadChain(b *testing.B, flags ...string) anchor.LoadFigures {
	// Authenticate as the anchor does, with a bearer token from --token-auth-file: an x509
	// client certificate costs a signature check on every request, in either server.
	tokens := filepath.Join(b.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admintoken,admin,1,system:masters\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	r := startBinary(b, append([]string{"--metrics=off", "--token-auth-file", tokens}, flags...)...)
	defer r.stop(b)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(r.dir, "admin.kubeconfig"))
	if err != nil {
		b.Fatal(err)
	}
	cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = nil, nil, "", ""
	cfg.BearerToken = "admintoken"
	f, err := anchor.Load(context.Background(), cfg, 2000, 16)
	if err != nil {
		b.Fatalf("chain %v: %v", flags, err)
	}
	return f
}

// BenchmarkRecordingLoad measures what recording traces costs the chain's throughput:
// anchor.Load's workload against the chain binary three ways, one after the other, their order
// turned every iteration: as `chain` runs by default (recording, once started, at most 100 new
// requests a second), recording every request
// (--record-traces-per-second=0), and not recording (--record-traces=false). It reports each,
// and what recording costs each throughput, in percent (issue 27's target: at most 5).
// test/tracing's BenchmarkRecording measures one client's create+get time instead: the cost
// of recording one request.
//
//	go test -run '^$' -bench RecordingLoad -benchtime 4x ./cmd/chain
func BenchmarkRecordingLoad(b *testing.B) {
	ways := []struct {
		prefix, cost string // names of its figures, and of what it costs beside off
		flags        []string
		sum          loadSum
	}{
		{prefix: "off-", flags: []string{"--record-traces=false"}},
		{prefix: "on-", cost: "recording"},
		{prefix: "every-", cost: "recording-every-request", flags: []string{"--record-traces-per-second=0"}},
	}
	for i := 0; i < b.N; i++ {
		for k := range ways {
			w := &ways[(i+k)%len(ways)]
			w.sum.add(loadChain(b, w.flags...))
		}
	}
	off := ways[0].sum
	for _, w := range ways {
		w.sum.report(b, w.prefix, b.N)
	}
	for _, w := range ways[1:] {
		b.ReportMetric(100*(1-w.sum.creates/off.creates), w.cost+"-creates-cost-%")
		b.ReportMetric(100*(1-w.sum.gets/off.gets), w.cost+"-gets-cost-%")
	}
}

type loadSum struct{ creates, gets, list, watch float64 }

func (s *loadSum) add(f anchor.LoadFigures) {
	s.creates += f.CreatesPerSecond
	s.gets += f.GetsPerSecond
	s.list += f.List.Seconds() * 1000
	s.watch += f.Watch.Seconds() * 1000
}

func (s loadSum) report(b *testing.B, prefix string, n int) {
	b.ReportMetric(s.creates/float64(n), prefix+"creates/s")
	b.ReportMetric(s.gets/float64(n), prefix+"gets/s")
	b.ReportMetric(s.list/float64(n), prefix+"list-ms")
	b.ReportMetric(s.watch/float64(n), prefix+"watch-200-ms")
}
