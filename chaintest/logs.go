package chaintest

import (
	"flag"
	"os"
	"sync"
	"sync/atomic"

	"k8s.io/klog/v2"
)

// The chain runs inside the test process, and the libraries it is built from (k8s.io/apiserver,
// client-go, etcd's client, ...) log through klog, which is process-wide. envtest prints nothing
// of kube-apiserver's unless AttachControlPlaneOutput is set; so here, while Environments run,
// klog prints nothing, unless one of them attaches its output or the test has raised klog's
// verbosity itself (klog.InitFlags and -v=1 or more). When the last Environment stops, klog is
// as it was before the first started.
//
// klogGate is package state because klog's is: one per process, shared by every Environment,
// parallel or one after another.
var klogGate gate

type gate struct {
	mu      sync.Mutex
	running int        // Environments between hold and release
	restore klog.State // klog's settings before the first of them
	// attached counts the running Environments that want the output; Write reads it while
	// klog holds its own lock, so it is an atomic rather than under mu.
	attached atomic.Int32
}

// hold routes klog through the gate for one more running Environment, which wants the output
// if attach. It returns what to pass to release, which undoes it.
func (g *gate) hold(attach bool) (attached bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if klog.V(1).Enabled() {
		attach = true // the test asked for the libraries' logs
	}
	if attach {
		g.attached.Add(1)
	}
	g.running++
	if g.running > 1 {
		return attach
	}
	g.restore = klog.CaptureState()
	// Everything to the gate, each line once (one_output), and nothing straight to stderr but
	// what ends the process (stderrthreshold).
	fs := flag.NewFlagSet("chaintest-klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "one_output": "true", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			panic("chaintest: klog flag " + name + ": " + err.Error()) // klog's own flags: cannot fail
		}
	}
	klog.SetOutput(g)
	return attach
}

func (g *gate) release(attached bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if attached {
		g.attached.Add(-1)
	}
	g.running--
	if g.running == 0 {
		klog.Flush()
		g.restore.Restore()
	}
}

// Write is klog's output while Environments run: stderr if one of them attaches, else nothing.
func (g *gate) Write(p []byte) (int, error) {
	if g.attached.Load() > 0 {
		return os.Stderr.Write(p)
	}
	return len(p), nil
}
