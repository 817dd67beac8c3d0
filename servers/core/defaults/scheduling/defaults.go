package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_PriorityClass: pods of this priority may preempt pods of lower priority.
func SetDefaults_PriorityClass(pc *schedulingv1.PriorityClass) {
	fill.Nil(&pc.PreemptionPolicy, corev1.PreemptLowerPriority)
}
