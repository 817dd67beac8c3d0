// Package compare_test holds the integration tests that compare the chain's answers with
// kube-apiserver v1.37.2's, recorded in test/reference: defaults, validation messages, the
// validation corpus, kubectl's Table columns, for the core, workload and admission groups.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package compare_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
