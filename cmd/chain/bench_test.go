package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkColdStart starts the chain binary on an empty data dir, as a user would, and reports
// the seconds until it prints its export line (/readyz ok) and its resident memory once it has
// been idle for a while (CHAIN_BENCH_IDLE, default 10s, as ../shared/anchor/envtest-like.sh
// measures kube-apiserver + etcd). The embedded etcd runs without fsync, as envtest runs etcd.
//
//	go test -run '^$' -bench ColdStart -benchtime 3x ./cmd/chain
func BenchmarkColdStart(b *testing.B) {
	bin := build(b)
	idle := 10 * time.Second
	if v := os.Getenv("CHAIN_BENCH_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			idle = d
		}
	}
	var readySum, rssSum float64
	for i := 0; i < b.N; i++ {
		ready, rss := coldStart(b, bin, idle)
		readySum += ready.Seconds()
		rssSum += rss
	}
	b.ReportMetric(readySum/float64(b.N), "s-to-ready")
	b.ReportMetric(rssSum/float64(b.N), "MiB-idle-rss")
}

func coldStart(b *testing.B, bin string, idle time.Duration) (time.Duration, float64) {
	b.Helper()
	cmd := exec.Command(bin, "--data-dir", b.TempDir(), "--secure-port", "0", "--unsafe-no-fsync")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "export KUBECONFIG=") {
			break
		}
	}
	ready := time.Since(start)
	go func() { // keep draining so the process never blocks on a full pipe
		for sc.Scan() {
		}
	}()
	time.Sleep(idle)
	return ready, rssMiB(b, cmd.Process.Pid)
}

func rssMiB(b *testing.B, pid int) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
