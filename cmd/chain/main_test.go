package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apichain/apichain/test/anchor"
)

// TestCommandStartsAndStopsOnSignal runs the real binary as a user would: it prints its
// progress and the export line, serves, and exits 0 on SIGTERM after a graceful shutdown that
// also stops its metrics server child.
func TestCommandStartsAndStopsOnSignal(t *testing.T) {
	r := startBinary(t)
	out := strings.Join(r.out, "\n")
	if want := fmt.Sprintf("export KUBECONFIG=%s", filepath.Join(r.dir, "admin.kubeconfig")); r.out[len(r.out)-1] != want {
		t.Errorf("last line %q, want %q", r.out[len(r.out)-1], want)
	}
	for _, stage := range []string{"ready: /readyz ok", "metrics: metrics server as a child process"} {
		if !regexp.MustCompile(`(?m)^\[ *\d+ms\] ` + regexp.QuoteMeta(stage)).MatchString(out) {
			t.Errorf("no %q line:\n%s", stage, out)
		}
	}
	child := waitChild(t, r.cmd.Process.Pid, 0)
	r.stop(t)
	if err := syscall.Kill(child, 0); err == nil {
		t.Errorf("the metrics server child %d outlived the chain", child)
	}
}

// running is the chain binary started by a test.
type running struct {
	cmd *exec.Cmd
	dir string
	out []string // stdout up to and including the export line
	// stderr is all the process wrote there.
	stderr *anchor.LockedBuffer
}

// startBinary starts the chain binary on a new data dir, etcd without fsync, and waits for its
// export line.
func startBinary(t testing.TB, args ...string) *running {
	t.Helper()
	return startBinaryIn(t, t.TempDir(), append([]string{"--unsafe-no-fsync"}, args...)...)
}

// startBinaryIn starts the chain binary on data dir dir (new or reused), adding only
// --data-dir and --secure-port 0 to args, and waits for its export line.
func startBinaryIn(t testing.TB, dir string, args ...string) *running {
	t.Helper()
	bin := build(t)
	cmd := exec.Command(bin, append([]string{"--data-dir", dir, "--secure-port", "0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &running{cmd: cmd, dir: dir, stderr: &anchor.LockedBuffer{}}
	cmd.Stderr = r.stderr
	if os.Getenv("CHAIN_TEST_VERBOSE") != "" {
		cmd.Stderr = io.MultiWriter(r.stderr, os.Stderr)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("chain exited before it was ready; output:\n%s", strings.Join(r.out, "\n"))
			}
			r.out = append(r.out, l)
			if strings.HasPrefix(l, "export KUBECONFIG=") {
				go func() {
					for range lines {
					}
				}()
				return r
			}
		case <-deadline:
			t.Fatalf("no export line within 2 minutes; output:\n%s", strings.Join(r.out, "\n"))
		}
	}
}

// stop sends SIGTERM and expects exit 0 within a minute.
func (r *running) stop(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("chain did not exit within a minute of SIGTERM")
	}
}

// waitChild waits for a child process of pid other than not, and returns its pid.
func waitChild(t *testing.T, pid, not int) int {
	t.Helper()
	var child int
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
			for _, f := range strings.Fields(string(b)) {
				if c, _ := strconv.Atoi(f); c != 0 && c != not {
					child = c
				}
			}
		}
		if child != 0 {
			return child
		}
		time.Sleep(50 * time.Millisecond) // polling /proc: there is nothing to wait on
	}
	t.Fatalf("process %d has no child", pid)
	return 0
}

func TestBadFlagsExitNonZero(t *testing.T) {
	bin := build(t)
	for _, args := range [][]string{
		{"--bind-address", "not-an-ip"},
		{"--service-cluster-ip-range", "banana"},
		{"--etcd-servers", "localhost:2379"},
		{"--no-such-flag"},
	} {
		out, err := exec.Command(bin, append([]string{"--data-dir", t.TempDir()}, args...)...).CombinedOutput()
		if err == nil {
			t.Errorf("chain %v succeeded", args)
			continue
		}
		if !strings.Contains(string(out), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("chain %v: the error does not name the flag:\n%s", args, out)
		}
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// build builds the chain binary once for all the tests of the package.
func build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chain-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "chain")
		if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// TestStartupFailuresSayWhatFailed: a port in use, an etcd that is not there.
func TestStartupFailuresSayWhatFailed(t *testing.T) {
	bin := build(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--secure-port", port}, "address already in use"},
		{[]string{"--secure-port", "0", "--etcd-servers", "http://127.0.0.1:1"}, "etcd grpc connection not ready"},
	} {
		out, err := exec.Command(bin, append(tc.args, "--data-dir", t.TempDir())...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("chain %v: err %v, output does not contain %q:\n%s", tc.args, err, tc.want, out)
		}
	}
}
