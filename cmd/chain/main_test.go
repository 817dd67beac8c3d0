package main

import (
	"bufio"
	"fmt"
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
)

// TestCommandStartsAndStopsOnSignal runs the real binary as a user would: it prints its
// progress and the export line, serves, and exits 0 on SIGTERM after a graceful shutdown.
func TestCommandStartsAndStopsOnSignal(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--data-dir", dir, "--secure-port", "0", "--unsafe-no-fsync")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	deadline := time.After(2 * time.Minute)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("chain exited before it was ready; output:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if strings.HasPrefix(l, "export KUBECONFIG=") {
				break wait
			}
		case <-deadline:
			t.Fatalf("no export line within 2 minutes; output:\n%s", strings.Join(seen, "\n"))
		}
	}
	out := strings.Join(seen, "\n")
	if want := fmt.Sprintf("export KUBECONFIG=%s", filepath.Join(dir, "admin.kubeconfig")); seen[len(seen)-1] != want {
		t.Errorf("last line %q, want %q", seen[len(seen)-1], want)
	}
	if !regexp.MustCompile(`(?m)^\[ *\d+ms\] ready: /readyz ok$`).MatchString(out) {
		t.Errorf("no ready line:\n%s", out)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("chain did not exit within a minute of SIGTERM")
	}
}

func TestBadFlagsExitNonZero(t *testing.T) {
	bin := build(t)
	for _, args := range [][]string{
		{"--bind-address", "not-an-ip"},
		{"--service-cluster-ip-range", "banana"},
		{"--etcd-servers", "localhost:2379"},
		{"--no-such-flag"},
	} {
		out, err := exec.Command(bin, append(args, "--data-dir", t.TempDir())...).CombinedOutput()
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
