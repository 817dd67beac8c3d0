// Package anchor runs the reference the performance benchmarks compare the chain against: the
// real kube-apiserver v1.37.2 and etcd v3.7.0, started the way controller-runtime's envtest
// starts them (etcd with --unsafe-no-fsync), on the same machine in the same run. It also holds
// the client-go workload both servers are measured with (Load), so that they get exactly the
// same requests.
//
// What it needs, and skips cleanly without: the reference build of kube-apiserver v1.37.2 and
// etcd v3.7.0 in $ANCHOR_BIN (default /tmp/anchor-bin), and the script that starts them
// envtest-style, envtest-like.sh, in $APICHAIN_ANCHOR.
//
// Where it sits: in test/, outside the chain; only benchmarks use it (docs/performance.md).
package anchor

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Server is a running kube-apiserver + etcd.
type Server struct {
	// Config reaches it as a system:masters user (token auth, as the script sets it up).
	Config *rest.Config
	// ReadySeconds is the time from start to /readyz ok.
	ReadySeconds float64
	// RSSMiB is kube-apiserver's plus etcd's resident memory after the idle period.
	RSSMiB float64

	cmd      *exec.Cmd
	stopOnce sync.Once
}

// Script finds envtest-like.sh, the script that starts the reference: in $APICHAIN_ANCHOR, else
// in a folder shared/anchor beside the checkout or one of its parents, where the team keeps it.
func Script() (string, bool) {
	if dir := os.Getenv("APICHAIN_ANCHOR"); dir != "" {
		p := filepath.Join(dir, "envtest-like.sh")
		_, err := os.Stat(p)
		return p, err == nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "anchor", "envtest-like.sh")
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// Bin is where the reference binaries are: $ANCHOR_BIN, default /tmp/anchor-bin.
func Bin() string {
	if b := os.Getenv("ANCHOR_BIN"); b != "" {
		return b
	}
	return "/tmp/anchor-bin"
}

// Available says whether the reference can run here, and if not, why.
func Available() (bool, string) {
	if _, ok := Script(); !ok {
		return false, "the reference's start script envtest-like.sh was not found (set APICHAIN_ANCHOR to its folder)"
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(Bin(), b)); err != nil {
			return false, fmt.Sprintf("%s not found: the reference build of kube-apiserver v1.37.2 and etcd v3.7.0 goes there (or set ANCHOR_BIN to its folder)", filepath.Join(Bin(), b))
		}
	}
	return true, ""
}

// Start runs the reference, waits until it has been idle for idle (as the script measures its
// resident memory), and stops it when tb ends.
func Start(tb testing.TB, idle time.Duration) *Server {
	tb.Helper()
	script, _ := Script()
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "ANCHOR_BIN="+Bin(), "IDLE_S="+strconv.FormatFloat(idle.Seconds(), 'f', 1, 64), "HOLD=3600")
	// Its stderr is shown only if it fails: bash's complaints from its exit trap when it is
	// stopped ("wait_for: No record of process") otherwise land in the middle of the benchmark
	// result lines.
	stderr := &LockedBuffer{}
	cmd.Stderr = stderr
	// Its own process group, so that stop can make sure nothing it started outlives it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &Server{cmd: cmd}
	tb.Cleanup(s.Stop)

	// The script prints one line of figures, then "holding; ...".
	sc := bufio.NewScanner(out)
	fields := map[string]string{}
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "readyz_s=") {
			for _, kv := range strings.Fields(sc.Text()) {
				k, v, _ := strings.Cut(kv, "=")
				fields[k] = v
			}
			break
		}
	}
	go func() { // keep draining so the script never blocks on a full pipe
		for sc.Scan() {
		}
	}()
	if fields["port"] == "" {
		tb.Fatalf("the anchor script printed no figures (%v); its stderr:\n%s", sc.Err(), stderr)
	}
	num := func(k string) float64 {
		f, err := strconv.ParseFloat(fields[k], 64)
		if err != nil {
			tb.Fatalf("anchor figure %s=%q: %v", k, fields[k], err)
		}
		return f
	}
	s.ReadySeconds = num("readyz_s")
	s.RSSMiB = num("rss_kas_mib") + num("rss_etcd_mib")
	s.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + fields["port"],
		BearerToken:     "admintoken",
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1, // no client-side rate limit: measure the server
	}
	return s
}

// Pid is the process id of the start script, the parent of etcd and kube-apiserver.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Stop stops it (also done when the test or benchmark ends).
func (s *Server) Stop() { s.stopOnce.Do(s.stop) }

func (s *Server) stop() {
	// SIGTERM to the whole group: etcd and kube-apiserver stop, and the script's exit trap
	// removes its temp dir. Whatever is left after a while is killed.
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-done
}

// RSSMiB is the resident memory of pid and all its descendants, in MiB.
func RSSMiB(pid int) (float64, error) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	var total float64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			total = kb / 1024
		}
	}
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, c := range strings.Fields(string(b)) {
			child, _ := strconv.Atoi(c)
			if r, err := RSSMiB(child); err == nil {
				total += r
			}
		}
	}
	return total, nil
}

// LockedBuffer collects a process's output while the process writes it, safe to read
// meanwhile (the anchor script's stderr; the chain binary's logs in cmd/chain's tests).
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
