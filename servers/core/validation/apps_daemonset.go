package validation

// apps/v1 DaemonSet and ControllerRevision validation, ported from kubernetes v1.37.2
// pkg/apis/apps/validation/validation.go (see apps.go).

import (
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// DaemonSetTemplateGeneration returns a DaemonSet's spec.templateGeneration, which apps/v1 keeps
// in the deprecated.daemonset.template.generation annotation (0 when absent or unparsable).
func DaemonSetTemplateGeneration(ds *appsv1.DaemonSet) int64 {
	g, _ := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	return g
}

// ---- ControllerRevision ----

func validateControllerRevision(revision *appsv1.ControllerRevision) field.ErrorList {
	errs := field.ErrorList{}
	errs = append(errs, ValidateObjectMeta(&revision.ObjectMeta, true, ValidateControllerRevisionName, field.NewPath("metadata"))...)
	errs = append(errs, ValidateNonnegativeField(revision.Revision, field.NewPath("revision"))...)
	return errs
}

// ValidateControllerRevisionCreate is the controllerrevision strategy's Validate.
func ValidateControllerRevisionCreate(revision *appsv1.ControllerRevision) field.ErrorList {
	errs := field.ErrorList{}
	errs = append(errs, validateControllerRevision(revision)...)

	var v any
	if revision.Data.Raw == nil {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	} else if err := json.Unmarshal(revision.Data.Raw, &v); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("data"), "<value omitted>", fmt.Sprintf("error parsing data: %v", err.Error())))
	} else if v == nil {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	} else if _, isObject := v.(map[string]any); !isObject {
		errs = append(errs, field.Required(field.NewPath("data"), "data must be a valid JSON object"))
	}
	return errs
}

// ValidateControllerRevisionUpdate is the controllerrevision strategy's ValidateUpdate: data is immutable.
func ValidateControllerRevisionUpdate(newHistory, oldHistory *appsv1.ControllerRevision) field.ErrorList {
	errs := field.ErrorList{}
	errs = append(errs, ValidateObjectMetaUpdate(&newHistory.ObjectMeta, &oldHistory.ObjectMeta, field.NewPath("metadata"))...)
	errs = append(errs, validateControllerRevision(newHistory)...)
	errs = append(errs, ValidateImmutableField(newHistory.Data, oldHistory.Data, field.NewPath("data"))...)
	return errs
}

// ---- DaemonSet ----

// ValidateDaemonSet is the daemonset strategy's Validate.
func ValidateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	opts := podTemplateValidationOptions(&ds.Spec.Template, nil)
	allErrs := ValidateObjectMeta(&ds.ObjectMeta, true, ValidateDaemonSetName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateDaemonSetSpec(&ds.Spec, DaemonSetTemplateGeneration(ds), field.NewPath("spec"), opts)...)
	return allErrs
}

// ValidateDaemonSetUpdate is the daemonset strategy's ValidateUpdate.
func ValidateDaemonSetUpdate(ds, oldDS *appsv1.DaemonSet) field.ErrorList {
	opts := podTemplateValidationOptions(&ds.Spec.Template, &oldDS.Spec.Template)
	opts.AllowInvalidLabelValueInSelector = opts.AllowInvalidLabelValueInSelector || unversionedvalidation.LabelSelectorHasInvalidLabelValue(oldDS.Spec.Selector)
	allErrs := ValidateObjectMetaUpdate(&ds.ObjectMeta, &oldDS.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateDaemonSetSpecUpdate(&ds.Spec, &oldDS.Spec, DaemonSetTemplateGeneration(ds), DaemonSetTemplateGeneration(oldDS), field.NewPath("spec"))...)
	allErrs = append(allErrs, validateDaemonSetSpec(&ds.Spec, DaemonSetTemplateGeneration(ds), field.NewPath("spec"), opts)...)
	return allErrs
}

// validateDaemonSetSpecUpdate tests if an update to a DaemonSetSpec is valid.
func validateDaemonSetSpecUpdate(newSpec, oldSpec *appsv1.DaemonSetSpec, newGeneration, oldGeneration int64, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}

	// TemplateGeneration shouldn't be decremented
	if newGeneration < oldGeneration {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("templateGeneration"), newGeneration, "must not be decremented"))
	}

	// TemplateGeneration should be increased when and only when template is changed
	templateUpdated := !apiequality.Semantic.DeepEqual(newSpec.Template, oldSpec.Template)
	if newGeneration == oldGeneration && templateUpdated {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("templateGeneration"), newGeneration, "must be incremented upon template update"))
	} else if newGeneration > oldGeneration && !templateUpdated {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("templateGeneration"), newGeneration, "must not be incremented without template update"))
	}

	// Spec.Selector is immutable
	allErrs = append(allErrs, ValidateImmutableField(newSpec.Selector, oldSpec.Selector, field.NewPath("spec").Child("selector"))...)
	return allErrs
}

func validateDaemonSetStatus(status *appsv1.DaemonSetStatus, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.CurrentNumberScheduled), fldPath.Child("currentNumberScheduled"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.NumberMisscheduled), fldPath.Child("numberMisscheduled"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.DesiredNumberScheduled), fldPath.Child("desiredNumberScheduled"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.NumberReady), fldPath.Child("numberReady"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(status.ObservedGeneration, fldPath.Child("observedGeneration"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.UpdatedNumberScheduled), fldPath.Child("updatedNumberScheduled"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.NumberAvailable), fldPath.Child("numberAvailable"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.NumberUnavailable), fldPath.Child("numberUnavailable"))...)
	if status.CollisionCount != nil {
		allErrs = append(allErrs, ValidateNonnegativeField(int64(*status.CollisionCount), fldPath.Child("collisionCount"))...)
	}
	return allErrs
}

// ValidateDaemonSetStatusUpdate is the daemonset status strategy's ValidateUpdate.
func ValidateDaemonSetStatusUpdate(ds, oldDS *appsv1.DaemonSet) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&ds.ObjectMeta, &oldDS.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateDaemonSetStatus(&ds.Status, field.NewPath("status"))...)
	if isDecremented(ds.Status.CollisionCount, oldDS.Status.CollisionCount) {
		value := ptr.Deref(ds.Status.CollisionCount, 0)
		allErrs = append(allErrs, field.Invalid(field.NewPath("status").Child("collisionCount"), value, "cannot be decremented"))
	}
	return allErrs
}

func validateDaemonSetSpec(spec *appsv1.DaemonSetSpec, templateGeneration int64, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	labelSelectorValidationOpts := unversionedvalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.AllowInvalidLabelValueInSelector}

	allErrs = append(allErrs, unversionedvalidation.ValidateLabelSelector(spec.Selector, labelSelectorValidationOpts, fldPath.Child("selector"))...)

	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err == nil && !selector.Matches(labels.Set(spec.Template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("selector"), spec.Selector, "empty selector is invalid for daemonset"))
	}

	allErrs = append(allErrs, validatePodTemplateSpec(&spec.Template, fldPath.Child("template"), opts)...)
	// RestartPolicy has already been first-order validated as per ValidatePodTemplateSpec().
	if spec.Template.Spec.RestartPolicy != v1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("template", "spec", "restartPolicy"), spec.Template.Spec.RestartPolicy, []string{string(v1.RestartPolicyAlways)}))
	}
	if spec.Template.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(templateGeneration, fldPath.Child("templateGeneration"))...)

	allErrs = append(allErrs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, fldPath.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		// zero is a valid RevisionHistoryLimit
		allErrs = append(allErrs, ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), fldPath.Child("revisionHistoryLimit"))...)
	}
	return allErrs
}

func validateRollingUpdateDaemonSet(rollingUpdate *appsv1.RollingUpdateDaemonSet, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	// Defaulting always sets both in apps/v1; the internal fields are values.
	maxUnavailable := ptr.Deref(rollingUpdate.MaxUnavailable, intstr.IntOrString{})
	maxSurge := ptr.Deref(rollingUpdate.MaxSurge, intstr.IntOrString{})

	// Validate both fields are positive ints or have a percentage value
	allErrs = append(allErrs, ValidatePositiveIntOrPercent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
	allErrs = append(allErrs, ValidatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)

	// Validate that MaxUnavailable and MaxSurge are not more than 100%.
	allErrs = append(allErrs, IsNotMoreThan100Percent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
	allErrs = append(allErrs, IsNotMoreThan100Percent(maxSurge, fldPath.Child("maxSurge"))...)

	// Validate exactly one of MaxSurge or MaxUnavailable is non-zero
	hasUnavailable := getIntOrPercentValue(maxUnavailable) != 0
	hasSurge := getIntOrPercentValue(maxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxSurge"), maxSurge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		allErrs = append(allErrs, field.Required(fldPath.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
	}
	return allErrs
}

func validateDaemonSetUpdateStrategy(strategy *appsv1.DaemonSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	switch strategy.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		// Make sure RollingUpdate field isn't nil.
		if strategy.RollingUpdate == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("rollingUpdate"), ""))
			return allErrs
		}
		allErrs = append(allErrs, validateRollingUpdateDaemonSet(strategy.RollingUpdate, fldPath.Child("rollingUpdate"))...)
	default:
		validValues := []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}
		allErrs = append(allErrs, field.NotSupported(fldPath, internal(daemonSetUpdateStrategyInternalOf(*strategy)), validValues))
	}
	return allErrs
}

type rollingUpdateDaemonSetInternal struct {
	MaxUnavailable intstr.IntOrString
	MaxSurge       intstr.IntOrString
}

type daemonSetUpdateStrategyInternal struct {
	Type          appsv1.DaemonSetUpdateStrategyType
	RollingUpdate *rollingUpdateDaemonSetInternal
}

func daemonSetUpdateStrategyInternalOf(s appsv1.DaemonSetUpdateStrategy) daemonSetUpdateStrategyInternal {
	out := daemonSetUpdateStrategyInternal{Type: s.Type}
	if s.RollingUpdate != nil {
		out.RollingUpdate = &rollingUpdateDaemonSetInternal{
			MaxUnavailable: ptr.Deref(s.RollingUpdate.MaxUnavailable, intstr.IntOrString{}),
			MaxSurge:       ptr.Deref(s.RollingUpdate.MaxSurge, intstr.IntOrString{}),
		}
	}
	return out
}
