// Package extensions_test holds the integration tests of ApiExtensions, the last server of the
// chain: a CustomResourceDefinition's life (established, served, its custom resources with
// schema, defaults, subresources and columns, deleted).
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package extensions_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
