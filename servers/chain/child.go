package chain

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// child runs a program (the chain binary's metrics-server subcommand) as a supervised child
// process, as a kubelet would restart a crashed static pod: it is restarted with exponential
// backoff (1 s doubling to 30 s, reset after a minute of good health) until ctx is done, then
// stopped with SIGTERM (SIGKILL after 10 s).
type child struct {
	name string
	path string
	args []string
	log  io.Writer
	// started is told the pid of every start, for progress and tests.
	started func(pid int)
}

func (c *child) run(ctx context.Context) {
	backoff := time.Second
	for ctx.Err() == nil {
		began := time.Now()
		err := c.once(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute {
			backoff = time.Second
		}
		klog.InfoS("child process exited; restarting", "name", c.name, "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

func (c *child) once(ctx context.Context) error {
	cmd := exec.Command(c.path, c.args...)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	// Its own process group: a Ctrl-C in the terminal reaches the chain, which stops the child
	// itself, in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", c.name, err)
	}
	if c.started != nil {
		c.started(cmd.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return ctx.Err()
	}
}

// openLog opens (appending) the log file of a child process.
func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}
