package validation

// policy/v1 validation, ported from kubernetes v1.37.2 pkg/apis/policy/validation/validation.go
// (PodDisruptionBudget spec and status) and called the way
// pkg/registry/policy/poddisruptionbudget/strategy.go calls it. The declarative rules of
// pkg/apis/policy/v1/zz_generated.validations.go (status.conditions) are +k8s:alpha in v1.37.
// Like upstream's strategy, ValidatePodDisruptionBudget does not validate metadata itself: the
// generic create and update paths of k8s.io/apiserver do.
//
// Evictions have no validation of their own upstream: the eviction subresource
// (pkg/registry/core/pod/storage/eviction.go) only rejects
// deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential, which ValidateEviction does.

import (
	"encoding/json"

	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

var supportedUnhealthyPodEvictionPolicies = sets.NewString(
	string(policyv1.IfHealthyBudget),
	string(policyv1.AlwaysAllow),
)

// ValidatePodDisruptionBudget is the poddisruptionbudget strategy's Validate.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	return validatePodDisruptionBudgetSpec(pdb.Spec, false, field.NewPath("spec"))
}

// ValidatePodDisruptionBudgetUpdate is the poddisruptionbudget strategy's ValidateUpdate: the
// new object validated as on create, tolerating a selector label value the old one had.
func ValidatePodDisruptionBudgetUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	return validatePodDisruptionBudgetSpec(pdb.Spec, hasInvalidLabelValueInLabelSelector(old), field.NewPath("spec"))
}

// ValidatePodDisruptionBudgetStatusUpdate is the poddisruptionbudget status strategy's
// ValidateUpdate for policy/v1.
func ValidatePodDisruptionBudgetStatusUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	status, fldPath := pdb.Status, field.NewPath("status")
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, metav1validation.ValidateConditions(status.Conditions, fldPath.Child("conditions"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.DisruptionsAllowed), fldPath.Child("disruptionsAllowed"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.CurrentHealthy), fldPath.Child("currentHealthy"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.DesiredHealthy), fldPath.Child("desiredHealthy"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.ExpectedPods), fldPath.Child("expectedPods"))...)
	return allErrs
}

func validatePodDisruptionBudgetSpec(spec policyv1.PodDisruptionBudgetSpec, allowInvalidLabelValueInSelector bool, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}

	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, internal(pdbSpecInternal{spec.MinAvailable, jsonTagged{spec.Selector}, spec.MaxUnavailable, spec.UnhealthyPodEvictionPolicy}), "minAvailable and maxUnavailable cannot be both set"))
	}

	if spec.MinAvailable != nil {
		allErrs = append(allErrs, ValidatePositiveIntOrPercent(*spec.MinAvailable, fldPath.Child("minAvailable"))...)
		allErrs = append(allErrs, IsNotMoreThan100Percent(*spec.MinAvailable, fldPath.Child("minAvailable"))...)
	}

	if spec.MaxUnavailable != nil {
		allErrs = append(allErrs, ValidatePositiveIntOrPercent(*spec.MaxUnavailable, fldPath.Child("maxUnavailable"))...)
		allErrs = append(allErrs, IsNotMoreThan100Percent(*spec.MaxUnavailable, fldPath.Child("maxUnavailable"))...)
	}

	labelSelectorValidationOptions := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValueInSelector}
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(spec.Selector, labelSelectorValidationOptions, fldPath.Child("selector"))...)

	if spec.UnhealthyPodEvictionPolicy != nil && !supportedUnhealthyPodEvictionPolicies.Has(string(*spec.UnhealthyPodEvictionPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("unhealthyPodEvictionPolicy"), *spec.UnhealthyPodEvictionPolicy, supportedUnhealthyPodEvictionPolicies.List()))
	}
	return allErrs
}

// pdbSpecInternal is upstream's internal PodDisruptionBudgetSpec, for error values: its own
// fields by Go name, the metav1.LabelSelector by its json tags.
type pdbSpecInternal struct {
	MinAvailable               *intstr.IntOrString
	Selector                   jsonTagged
	MaxUnavailable             *intstr.IntOrString
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

// jsonTagged renders a value of an apimachinery type, which upstream's internal types share
// with the versioned ones, by its json tags inside an internal() value.
type jsonTagged struct{ v interface{} }

// MarshalJSON implements json.Marshaler.
func (j jsonTagged) MarshalJSON() ([]byte, error) { return json.Marshal(j.v) }

func hasInvalidLabelValueInLabelSelector(pdb *policyv1.PodDisruptionBudget) bool {
	if pdb.Spec.Selector != nil {
		labelSelectorValidationOptions := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
		return len(metav1validation.ValidateLabelSelector(pdb.Spec.Selector, labelSelectorValidationOptions, nil)) > 0
	}
	return false
}

// ValidateEviction is the check the eviction subresource makes of the Eviction it receives.
func ValidateEviction(eviction *policyv1.Eviction) field.ErrorList {
	if eviction.DeleteOptions != nil && ptr.Deref(eviction.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		return field.ErrorList{
			field.Invalid(field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option"),
		}
	}
	return nil
}
