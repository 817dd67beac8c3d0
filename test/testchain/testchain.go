// Package testchain starts a whole chain inside a test: a temp data dir, a free port, embedded
// etcd without fsync; it is stopped, and everything it made removed, when the test ends.
package testchain

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/servers/chain"
)

// NewOptions are the options of a test chain in dir: a free port, etcd without fsync, and, as
// envtest, nothing but the API servers (no metrics server, no controllers) unless a test asks.
// Tests must not run the metrics server as a child: the child would be the test binary.
func NewOptions(dir string) *chain.Options {
	o := chain.NewOptions()
	o.DataDir = dir
	o.SecurePort = 0
	o.UnsafeNoFsync = true
	o.Metrics = chain.MetricsOff
	o.Controllers = nil
	return o
}

// Start starts a chain for t, changed by mods, and returns it once it is ready.
func Start(t testing.TB, mods ...func(*chain.Options)) *chain.Chain {
	t.Helper()
	o := NewOptions(t.TempDir())
	for _, m := range mods {
		m(o)
	}
	c, err := StartWith(o, io.Discard)
	if err != nil {
		t.Fatalf("starting chain: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping chain: %v", err)
		}
	})
	return c
}

// StartWith starts a chain with options o, printing progress to out.
func StartWith(o *chain.Options, out io.Writer) (*chain.Chain, error) {
	completed, err := o.Complete()
	if err != nil {
		return nil, err
	}
	if errs := completed.Validate(); len(errs) > 0 {
		return nil, errs[0]
	}
	if o.Metrics == chain.MetricsChild {
		return nil, errors.New("testchain: --metrics=child would run the test binary as the metrics server; use in-process")
	}
	if os.Getenv("CHAIN_TEST_VERBOSE") != "" {
		out = os.Stderr
	}
	return chain.Start(context.Background(), completed, out)
}

// Clients returns a typed and a dynamic client for c's admin.
func Clients(t testing.TB, c *chain.Chain) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	return cs, dyn
}
