// Package flowcontrol_test holds the tests of API Priority and Fairness in the chain: the
// bootstrap FlowSchemas and PriorityLevelConfigurations that Core keeps (as kube-apiserver
// v1.37.2 creates them, test/reference), how the head classifies requests (the
// X-Kubernetes-PF-* response headers) and rejects them when a priority level is full, the
// /debug/api_priority_and_fairness/ dumps, who may read and change the objects, an aggregated
// server's configuration controller reading them, and the chain with APF turned off.
//
// TestMain starts one chain (test/testchain) for the package's tests, which only read the
// configuration and send requests; a test that changes the configuration starts a chain of its
// own, except TestDeletedMandatoryComesBack, which runs last (parallel tests wait for the
// others) and leaves the shared one as it found it.
package flowcontrol_test

import (
	"testing"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is the chain the package's tests share.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }
