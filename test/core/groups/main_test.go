// Package groups_test holds Core's integration tests of the smaller built-in groups:
// admissionregistration, scheduling, networking, storage, certificates, and the core group's
// volumes and quotas: CRUD and watch, status subresources, validation messages, and
// certificate signing request approval.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package groups_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
