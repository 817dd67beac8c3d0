// Package policy validates the policy kinds of the Core server: PodDisruptionBudget (and its
// status) and the Eviction posted to a pod's eviction subresource.
//
// It sits in the Core server of the chain: the PodDisruptionBudget Definition
// (servers/core/registry/policy) calls these functions as its Validate hooks, and the eviction
// subresource (servers/core/registry/core/evictions.go) calls ValidateEviction before it
// evicts; a non-empty error list becomes kube-apiserver's 422 Invalid. The rules, paths and
// messages are kube-apiserver v1.37.2's, as observed.
//
// A budget's metadata is checked only by k8s.io/apiserver's generic rules, as in
// kube-apiserver, so a budget may have a name like "Bad_Name". Left out: nothing; the
// generated rules for status.conditions are alpha, shadowed by the ones here.
package policy

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidatePodDisruptionBudget is the rule list of a new budget.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	return spec(field.NewPath("spec"), &pdb.Spec, nil)
}

// ValidatePodDisruptionBudgetUpdate is the rule list of an update: the budget as if new, but
// a label value the stored selector already has stays allowed.
func ValidatePodDisruptionBudgetUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	return spec(field.NewPath("spec"), &pdb.Spec, &old.Spec)
}

// spec: a budget keeps either a number (or share) of pods available or a number unavailable,
// not both.
func spec(path *field.Path, s, old *policyv1.PodDisruptionBudgetSpec) field.ErrorList {
	var oldSelector *metav1.LabelSelector
	if old != nil {
		oldSelector = old.Selector
	}
	return validation.Join(
		validation.When(s.MinAvailable != nil && s.MaxUnavailable != nil,
			field.Invalid(path, validation.Internal(s), "minAvailable and maxUnavailable cannot be both set")),
		validation.IfSet(path.Child("minAvailable"), s.MinAvailable, budget),
		validation.IfSet(path.Child("maxUnavailable"), s.MaxUnavailable, budget),
		validation.SelectorKeepingOld(path.Child("selector"), s.Selector, oldSelector),
		validation.IfSet(path.Child("unhealthyPodEvictionPolicy"), s.UnhealthyPodEvictionPolicy, evictionPolicy),
	)
}

func budget(path *field.Path, v intstr.IntOrString) field.ErrorList {
	return validation.Join(validation.NonNegativeIntOrPercent(path, v), validation.AtMost100Percent(path, v))
}

// evictionPolicy: whether pods that are not ready yet may be evicted even when the budget
// would not allow it.
func evictionPolicy(path *field.Path, p policyv1.UnhealthyPodEvictionPolicyType) field.ErrorList {
	return validation.Supported(path, p, policyv1.AlwaysAllow, policyv1.IfHealthyBudget)
}

// ValidatePodDisruptionBudgetStatusUpdate is the rule list of a /status update, which the
// disruption controller writes.
func ValidatePodDisruptionBudgetStatusUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	path, s := field.NewPath("status"), &pdb.Status
	return validation.Join(
		metavalidation.ValidateConditions(s.Conditions, path.Child("conditions")),
		validation.NonNegative(path.Child("disruptionsAllowed"), int64(s.DisruptionsAllowed)),
		validation.NonNegative(path.Child("currentHealthy"), int64(s.CurrentHealthy)),
		validation.NonNegative(path.Child("desiredHealthy"), int64(s.DesiredHealthy)),
		validation.NonNegative(path.Child("expectedPods"), int64(s.ExpectedPods)),
	)
}

// ValidateEviction is the check of an Eviction: it may not ask to delete a pod that cannot
// be read from storage (an option of DELETE meant for corrupt objects, not for evictions).
func ValidateEviction(e *policyv1.Eviction) field.ErrorList {
	o := e.DeleteOptions
	return validation.When(o != nil && o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential,
		field.Invalid(field.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"), true,
			"can not be set for pod eviction, try after removing the option"))
}
