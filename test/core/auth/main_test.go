// Package auth_test holds Core's integration tests of who may do what: RBAC
// (rbac.authorization.k8s.io: roles, bindings, escalation prevention, aggregation, the
// bootstrap policy), the reviews (authentication.k8s.io and authorization.k8s.io), and tokens
// (service-account TokenRequests, a token auth file).
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package auth_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
