// Package flowcontrol_test holds the tests of API Priority and Fairness in the chain: the
// bootstrap FlowSchemas and PriorityLevelConfigurations that Core keeps (as kube-apiserver
// v1.37.2 creates them, test/reference), how the head classifies requests (the
// X-Kubernetes-PF-* response headers) and whom, and the /debug/api_priority_and_fairness/
// dumps and who may read them.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read the
// configuration and send requests; a test that changes the configuration, or needs the
// controllers, starts a chain of its own.
package flowcontrol_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
