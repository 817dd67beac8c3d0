package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/component-base/cli"

	"github.com/apichain/apichain/commands"
)

// RunAsChainEnv, set to 1 in a process's environment, makes a test binary whose TestMain calls
// ServeAsChainIfAsked the chain: what cmd/chain's main runs, the same command on the same
// command line, with the metrics server as its child (the chain starts its own executable for
// it). The soak and the scale benchmark so need no second link of the chain's 1,700 packages
// on a busy machine.
const RunAsChainEnv = "APICHAIN_SOAK_RUN_AS_CHAIN"

// ServeAsChainIfAsked runs the chain's command and exits with its code when RunAsChainEnv is
// set; otherwise it returns at once. A TestMain calls it first.
func ServeAsChainIfAsked() {
	if os.Getenv(RunAsChainEnv) == "1" {
		os.Exit(cli.Run(commands.NewCommand()))
	}
}

// Process is the chain binary run as a user runs it: `chain --data-dir D --nodes N ...`, its
// progress on stdout, the metrics server as its child process.
type Process struct {
	Bin     string
	DataDir string
	// Port is the chain's --secure-port, the same at every start, so that clients and their
	// kubeconfig stay valid across restarts.
	Port int
	// Args are the other flags; Env is added to its environment.
	Args []string
	Env  []string
	// Log receives the chain's stdout and stderr, of every start.
	Log io.Writer

	cmd    *exec.Cmd
	exited chan struct{}
}

// FreePort is a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Kubeconfig is the admin kubeconfig the chain writes into its data dir.
func (p *Process) Kubeconfig() string { return filepath.Join(p.DataDir, "admin.kubeconfig") }

// Start starts the chain and returns once it printed its export line (it is ready), or fails
// if it exits first or ctx ends.
func (p *Process) Start(ctx context.Context) error {
	args := append([]string{"--data-dir", p.DataDir, "--secure-port", strconv.Itoa(p.Port)}, p.Args...)
	cmd := exec.Command(p.Bin, args...)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stderr = p.Log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			fmt.Fprintln(p.Log, sc.Text())
			if strings.HasPrefix(sc.Text(), "export KUBECONFIG=") {
				close(ready)
			}
		}
		_ = cmd.Wait()
		close(p.exited)
	}()
	select {
	case <-ready:
		return nil
	case <-p.exited:
		return fmt.Errorf("chain exited before it was ready: %v", cmd.ProcessState)
	case <-ctx.Done():
		p.Kill()
		return ctx.Err()
	}
}

// Pid is the chain's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the current chain process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Kill sends SIGKILL, the crash of the whole process (and its embedded etcd), and waits for it
// to be gone. The metrics server child goes with it (it asked for SIGTERM on its parent's
// death); one still there after 30 s is killed too, so that none outlives the soak.
func (p *Process) Kill() {
	if p.cmd == nil {
		return
	}
	child := p.ChildPid()
	_ = p.cmd.Process.Kill()
	<-p.exited
	if child != 0 {
		waitGone(child, 30*time.Second)
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
}

// Stop stops the chain with SIGTERM, as Ctrl-C does, and returns how it exited; after a
// minute it is killed.
func (p *Process) Stop() error {
	if p.cmd == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		p.Kill()
		return errors.New("the chain did not exit within a minute of SIGTERM")
	}
	if !p.cmd.ProcessState.Success() {
		return fmt.Errorf("the chain exited with %v after SIGTERM", p.cmd.ProcessState)
	}
	return nil
}

// ChildPid is the pid of the chain's child process (the metrics server), 0 if it has none now.
func (p *Process) ChildPid() int {
	if p.cmd == nil {
		return 0
	}
	children := Children(p.Pid())
	if len(children) == 0 {
		return 0
	}
	return children[0]
}

// Children lists the child processes of pid, from /proc.
func Children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// waitGone waits until process pid no longer exists, at most d.
func waitGone(pid int, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond) // a process that is not ours to wait for: poll
	}
}

// ProcFigures are what /proc says of one process.
type ProcFigures struct {
	RSSBytes int64
	// AnonBytes and FileBytes split RSSBytes: the process's own memory (the Go heap, stacks)
	// and the pages of files it maps (its binary, etcd's database file).
	AnonBytes, FileBytes int64
	FDs                  int
	Threads              int
}

// ReadProc reads pid's resident memory, open file descriptors and threads from /proc.
func ReadProc(pid int) (ProcFigures, error) {
	var f ProcFigures
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return f, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		fields := strings.Fields(l)
		if len(fields) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmRSS:":
			f.RSSBytes = n * 1024
		case "RssAnon:":
			f.AnonBytes = n * 1024
		case "RssFile:":
			f.FileBytes = n * 1024
		case "Threads:":
			f.Threads = int(n)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return f, err
	}
	f.FDs = len(fds)
	return f, nil
}

// DirBytes is the size of the files under dir (what etcd's data takes on disk: its WAL,
// snapshots and database).
func DirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
