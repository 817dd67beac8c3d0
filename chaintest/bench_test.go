package chaintest_test

import (
	"bufio"
	"errors"
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
// suite of parallel tests does, and reports the time until the last of them is ready, the
// process's peak resident memory during the starts (what the machine must have for such a
// suite; VmHWM, reset before each iteration), and its resident memory once all are ready and
// the start-up garbage is returned, also per Environment. CHAINTEST_HEAP_PROFILE names a file
// for a heap profile taken while all run.
func BenchmarkParallelEnvironments(b *testing.B) {
	const n = 20
	var ready, peak, rss float64
	for i := 0; i < b.N; i++ {
		resetPeak(b)
		envs := make([]*chaintest.Environment, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		t0 := time.Now()
		for j := range envs {
			// The time to all ready is what is measured: no start timeout cuts it short on a
			// loaded machine.
			envs[j] = &chaintest.Environment{ControlPlaneStartTimeout: 5 * time.Minute}
			wg.Go(func() { _, errs[j] = envs[j].Start() })
		}
		wg.Wait()
		ready += time.Since(t0).Seconds()
		peak += procStatusMiB(b, "VmHWM")
		if err := errors.Join(errs...); err != nil {
			for _, env := range envs {
				env.Stop() // those that started; Stop after a failed Start does nothing
			}
			b.Fatal(err)
		}
		// Memory as the suite's tests would find it: once what every start returns to the OS
		// in the background has been returned.
		debug.FreeOSMemory()
		rss += procStatusMiB(b, "VmRSS")
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
	b.ReportMetric(peak/float64(b.N), "MiB-peak")
	b.ReportMetric(rss/float64(b.N), "MiB-rss")
	b.ReportMetric(rss/float64(b.N)/n, "MiB-rss/env")
}

// resetPeak resets the process's peak resident memory (VmHWM) to its resident memory now.
func resetPeak(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
}

// procStatusMiB is a memory figure of this process's /proc/self/status (VmRSS, VmHWM).
func procStatusMiB(b *testing.B, field string) float64 {
	b.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	for s := bufio.NewScanner(f); s.Scan(); {
		if rest, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kib / 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
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
