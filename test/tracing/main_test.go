// Package tracing_test holds the chain's integration tests of request tracing: a real chain,
// recording, driven by client-go and kubectl; each test reads the traces back from
// /debug/apichain/traces, as `chain trace` does, and checks the hops a request passed, in
// order, with their attributes.
//
// TestMain starts one chain, recording traces, for the package's tests; each finds its own
// requests in the ring by a path no other test uses.
package tracing_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) {
	testchain.Main(m, &shared, func(o *chain.Options) { o.RecordTraces = true })
}
