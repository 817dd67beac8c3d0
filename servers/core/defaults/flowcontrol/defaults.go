package flowcontrol

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_FlowSchemaSpec: a schema that names no precedence is matched after the ones
// that do (lower numbers are tried first; 1000 of 10000).
func SetDefaults_FlowSchemaSpec(spec *flowcontrolv1.FlowSchemaSpec) {
	fill.Zero(&spec.MatchingPrecedence, 1000)
}

// SetDefaults_LimitedPriorityLevelConfiguration: 30 shares of the server's concurrency, none
// of them lent to other levels.
func SetDefaults_LimitedPriorityLevelConfiguration(l *flowcontrolv1.LimitedPriorityLevelConfiguration) {
	fill.Nil(&l.NominalConcurrencyShares, 30)
	fill.Nil(&l.LendablePercent, 0)
}

// SetDefaults_ExemptPriorityLevelConfiguration: an exempt level holds no shares and lends none.
func SetDefaults_ExemptPriorityLevelConfiguration(e *flowcontrolv1.ExemptPriorityLevelConfiguration) {
	fill.Nil(&e.NominalConcurrencyShares, 0)
	fill.Nil(&e.LendablePercent, 0)
}

// SetDefaults_QueuingConfiguration: 64 queues of at most 50 requests; each flow is dealt a
// hand of 8 of them (shuffle sharding).
func SetDefaults_QueuingConfiguration(q *flowcontrolv1.QueuingConfiguration) {
	fill.Zero(&q.HandSize, 8)
	fill.Zero(&q.Queues, 64)
	fill.Zero(&q.QueueLengthLimit, 50)
}
