// Package core_test holds Core's integration tests of the core group (/api/v1): CRUD and watch
// of every core resource, namespaces, secrets, pods (defaults, status, binding, field
// selectors), services (cluster IP and node port allocation), events (v1 and events.k8s.io),
// evictions against disruption budgets, the kubelet proxy (logs, exec, port-forward through
// the chain), server-side apply, and kubectl against all of it. Each test runs against a real
// chain, through real clients.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read or create
// uniquely named objects; a test that needs a chain of its own starts it.
package core_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
