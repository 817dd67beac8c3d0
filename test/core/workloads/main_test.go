// Package workloads_test holds Core's integration tests of the workloads: apps/v1 and batch/v1,
// and the autoscalers and disruption budgets that act on them (autoscaling/v2, policy/v1):
// CRUD and watch, the status and scale subresources, update strategies, validation and
// immutable fields through the API, field selectors, and kubectl.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package workloads_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
