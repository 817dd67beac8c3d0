package networking

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_NetworkPolicy: a policy that names no types is an Ingress policy, and an Egress
// one too when it has egress rules.
func SetDefaults_NetworkPolicy(np *networkingv1.NetworkPolicy) {
	if len(np.Spec.PolicyTypes) > 0 {
		return
	}
	np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	if len(np.Spec.Egress) > 0 {
		np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	}
}

// SetDefaults_NetworkPolicyPort: a port of a rule is a TCP port.
func SetDefaults_NetworkPolicyPort(p *networkingv1.NetworkPolicyPort) {
	fill.Nil(&p.Protocol, corev1.ProtocolTCP)
}

// SetDefaults_IngressClass: the parameters of an IngressClass are a cluster-scoped object.
func SetDefaults_IngressClass(ic *networkingv1.IngressClass) {
	if ic.Spec.Parameters != nil {
		fill.Nil(&ic.Spec.Parameters.Scope, networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}
