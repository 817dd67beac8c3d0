package validation

// Table tests for policy/v1 validation. Cases and messages follow kubernetes v1.37.2
// pkg/apis/policy/validation/validation_test.go (TestValidateMinAvailablePodDisruptionBudgetSpec,
// TestValidateUnhealthyPodEvictionPolicyDisruptionBudgetSpec, TestValidatePodDisruptionBudgetStatus).

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func pdbWith(mutate func(*policyv1.PodDisruptionBudget)) *policyv1.PodDisruptionBudget {
	p := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", ResourceVersion: "1"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func TestValidatePodDisruptionBudget(t *testing.T) {
	cases := []struct {
		name string
		obj  *policyv1.PodDisruptionBudget
		want []string
	}{
		{"valid", pdbWith(nil), nil},
		{"percent", pdbWith(func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromString("50%")) }), nil},
		{"both", pdbWith(func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1)) }),
			[]string{`spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"a"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`}},
		{"negative", pdbWith(func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromInt32(-1)) }),
			[]string{"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"}},
		{"over 100%", pdbWith(func(p *policyv1.PodDisruptionBudget) {
			p.Spec.MinAvailable = nil
			p.Spec.MaxUnavailable = ptr.To(intstr.FromString("101%"))
		}), []string{`spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%`}},
		{"eviction policy", pdbWith(func(p *policyv1.PodDisruptionBudget) {
			p.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.UnhealthyPodEvictionPolicyType("Invalid"))
		}), []string{`spec.unhealthyPodEvictionPolicy: Unsupported value: "Invalid": supported values: "AlwaysAllow", "IfHealthyBudget"`}},
		{"selector value", pdbWith(func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector.MatchLabels["app"] = "a b" }),
			[]string{`spec.selector.matchLabels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidatePodDisruptionBudget(tc.obj), tc.want)
	}
	// An invalid selector expression value the stored budget already had is tolerated on update.
	bad := pdbWith(func(p *policyv1.PodDisruptionBudget) {
		p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a b"}}}
	})
	expectErrorPrefixes(t, "invalid selector value", ValidatePodDisruptionBudget(bad), []string{`spec.selector.matchExpressions[0].values[0]: Invalid value: "a b": a valid label must be`})
	expectErrors(t, "update tolerates old invalid selector", ValidatePodDisruptionBudgetUpdate(bad, bad.DeepCopy()), nil)

	expectErrors(t, "status", ValidatePodDisruptionBudgetStatusUpdate(pdbWith(func(p *policyv1.PodDisruptionBudget) {
		p.Status = policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: -1, CurrentHealthy: -1}
	}), pdbWith(nil)), []string{
		"status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
		"status.currentHealthy: Invalid value: -1: must be greater than or equal to 0",
	})
	expectErrors(t, "eviction", ValidateEviction(&policyv1.Eviction{DeleteOptions: &metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true)}}),
		[]string{"deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option"})
}
