// Package discovery_test holds Core's integration tests of what the chain says it serves:
// legacy and aggregated discovery, `kubectl api-resources` compared with kube-apiserver's, the
// local APIServices, and OpenAPI v2 and v3.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package discovery_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
