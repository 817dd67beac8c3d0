// Package testchain starts a whole chain inside a test: a temp data dir, a free port, embedded
// etcd without fsync; it is stopped, and everything it made removed, when the test ends.
package testchain

import (
	"context"
	"io"
	"os"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/servers/chain"
)

// Start starts a chain for t, changed by mods, and returns it once it is ready.
func Start(t testing.TB, mods ...func(*chain.Options)) *chain.Chain {
	t.Helper()
	o := chain.NewOptions()
	o.DataDir = t.TempDir()
	o.SecurePort = 0
	o.UnsafeNoFsync = true
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
