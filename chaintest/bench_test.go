package chaintest_test

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apichain/apichain/chaintest"
)

// BenchmarkParallelEnvironments starts 20 zero-value Environments at once in this process, as a
// suite of parallel tests does, and reports the time until the last of them is ready and the
// process's resident memory then (what the machine must have for such a suite), and per
// Environment. CHAINTEST_HEAP_PROFILE names a file for a heap profile taken while all run.
func BenchmarkParallelEnvironments(b *testing.B) {
	const n = 20
	var ready, rss float64
	for i := 0; i < b.N; i++ {
		envs := make([]*chaintest.Environment, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		t0 := time.Now()
		for j := range envs {
			envs[j] = &chaintest.Environment{}
			wg.Go(func() { _, errs[j] = envs[j].Start() })
		}
		wg.Wait()
		ready += time.Since(t0).Seconds()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		// Memory as the suite's tests would find it: once what every start returns to the OS
		// in the background has been returned.
		debug.FreeOSMemory()
		rss += residentMiB(b)
		if path := os.Getenv("CHAINTEST_HEAP_PROFILE"); path != "" && i == 0 {
			writeHeapProfile(b, path)
		}
		for _, env := range envs {
			wg.Go(func() {
				if err := env.Stop(); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(ready/float64(b.N), "s-all-ready")
	b.ReportMetric(rss/float64(b.N), "MiB-rss")
	b.ReportMetric(rss/float64(b.N)/n, "MiB-rss/env")
}

// residentMiB is this process's resident memory (VmRSS).
func residentMiB(b *testing.B) float64 {
	b.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	for s := bufio.NewScanner(f); s.Scan(); {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kib / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func writeHeapProfile(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}
