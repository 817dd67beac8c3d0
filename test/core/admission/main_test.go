// Package admission_test holds Core's integration tests of admission: the built-in plugins
// (priority, default classes, defaults of nodes and pods) and the configurable kind, webhooks
// and validating/mutating admission policies (admissionregistration.k8s.io) called by a real
// server.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package admission_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
