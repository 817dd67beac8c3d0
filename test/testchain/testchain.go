// Package testchain starts the chain the project's own tests run against. It is chaintest, the
// envtest of this project's users, with what those tests want instead of chaintest's defaults:
// nothing but the API servers (no controllers, no metrics server) unless a test asks, the
// chain's options at hand (each mod changes them last), and bounds on start and stop generous
// enough for a busy machine. One thing starts a chain for tests: chaintest.Environment.
//
// Where it sits: in test/, above everything; only tests import it.
package testchain

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/apichain/apichain/chaintest"
	"github.com/apichain/apichain/servers/chain"
)

// Environment is a test chain's chaintest.Environment, changed by mods (chain.Options, applied
// last). Its data dir is a temp dir that Stop removes, unless the caller sets DataDir.
// CHAIN_TEST_VERBOSE=1 shows its start-up progress and the libraries' logs.
func Environment(mods ...func(*chain.Options)) *chaintest.Environment {
	return &chaintest.Environment{
		Controllers:              []string{}, // as envtest's bare kube-apiserver
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  2 * time.Minute,
		AttachControlPlaneOutput: os.Getenv("CHAIN_TEST_VERBOSE") != "",
		ChainOptions: func(o *chain.Options) {
			for _, m := range mods {
				m(o)
			}
		},
	}
}

// Start starts a chain for t, changed by mods, and returns it once it is ready. It is stopped,
// and its data dir removed, when t ends.
func Start(t testing.TB, mods ...func(*chain.Options)) *chain.Chain {
	t.Helper()
	env := Environment(mods...)
	if _, err := env.Start(); err != nil {
		t.Fatalf("starting chain: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping chain: %v", err)
		}
	})
	return env.Chain()
}

// Chain is a chain started by StartIn. Its Stop is the Environment's: it also gives back what
// the Environment took (klog's output, temp files), so stop it through here, not through the
// embedded *chain.Chain.
type Chain struct {
	*chain.Chain
	env *chaintest.Environment
}

// Stop stops the chain; its data dir stays.
func (c *Chain) Stop() error { return c.env.Stop() }

// StartIn starts a chain on data dir dir, changed by mods, printing its start-up progress to
// out (nil: nowhere). The caller stops it; dir stays, so that a test can start another chain
// on what this one left (a restart).
func StartIn(dir string, out io.Writer, mods ...func(*chain.Options)) (*Chain, error) {
	env := Environment(mods...)
	env.DataDir, env.Progress = dir, out
	if _, err := env.Start(); err != nil {
		return nil, err
	}
	return &Chain{Chain: env.Chain(), env: env}, nil
}

// Main runs a test package's tests (m) against one chain, started for them all before the first
// and stopped after the last, and exits with their result. *shared is the chain while they run.
// A fuzzing run (go test -fuzz, in the coordinator and in each worker) runs only a fuzz target,
// which starts what it needs itself, and go test -list runs nothing: Main starts no chain for
// either.
func Main(m *testing.M, shared **chain.Chain, mods ...func(*chain.Options)) {
	flag.Parse()
	for _, name := range []string{"test.fuzz", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			os.Exit(m.Run())
		}
	}
	env := Environment(mods...)
	if _, err := env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "starting the shared chain: %v\n", err)
		os.Exit(1)
	}
	*shared = env.Chain()
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the shared chain: %v\n", err)
		code = 1
	}
	os.Exit(code)
}
