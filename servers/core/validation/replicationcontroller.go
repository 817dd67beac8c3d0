package validation

// PodTemplateSpec and ReplicationController validation, ported from kubernetes
// v1.37.2 pkg/apis/core/validation/validation.go (ValidatePodTemplateSpec,
// ValidateReplicationController*, ValidatePodTemplateSpecForRC, ValidateNonEmptySelector,
// ValidateHasLabel) and pkg/api/pod/util.go (GetValidationOptionsFromPodTemplate), called the
// way pkg/registry/core/replicationcontroller/strategy.go calls them (PodTemplates are
// validated by the pods package). The errors marked covered are reported by the generated
// declarative rules (+k8s:beta: metadata.name long name, spec.replicas required and minimum=0,
// spec.minReadySeconds minimum=0).

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podTemplateValidationOptions is GetValidationOptionsFromPodTemplate: the pod options without
// ResourceIsPod.
func podTemplateValidationOptions(template, oldTemplate *v1.PodTemplateSpec) podValidationOptions {
	var spec, oldSpec *v1.PodSpec
	var meta, oldMeta *metav1.ObjectMeta
	// we have to be careful about nil pointers here
	// replication controller in particular is prone to passing nil
	if template != nil {
		spec, meta = &template.Spec, &template.ObjectMeta
	}
	if oldTemplate != nil {
		oldSpec, oldMeta = &oldTemplate.Spec, &oldTemplate.ObjectMeta
	}
	if spec == nil {
		spec = &v1.PodSpec{}
	}
	opts := podValidationOptionsFor(spec, oldSpec, meta, oldMeta)
	opts.ResourceIsPod = false
	return opts
}

// validatePodTemplateSpec validates the spec of a pod template (upstream's ValidatePodTemplateSpec).
func validatePodTemplateSpec(spec *v1.PodTemplateSpec, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, unversionedvalidation.ValidateLabels(spec.Labels, fldPath.Child("labels"))...)
	allErrs = append(allErrs, ValidateAnnotations(spec.Annotations, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, validatePodSpecificAnnotations(spec.Annotations, &spec.Spec, fldPath.Child("annotations"), opts)...)
	allErrs = append(allErrs, validatePodSpec(&spec.Spec, nil, fldPath.Child("spec"), opts)...)
	allErrs = append(allErrs, validateSeccompAnnotationsAndFields(spec.ObjectMeta, &spec.Spec, fldPath.Child("spec"))...)
	allErrs = append(allErrs, validateAppArmorAnnotationsAndFieldsMatchOnCreate(spec.ObjectMeta, &spec.Spec, fldPath.Child("spec"))...)

	if len(spec.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return allErrs
}

// ValidateReplicationController is the replicationcontroller strategy's Validate.
func ValidateReplicationController(controller *v1.ReplicationController) field.ErrorList {
	opts := podTemplateValidationOptions(controller.Spec.Template, nil)
	validateLongName := func(fldPath *field.Path, name string) field.ErrorList {
		return validate.LongName(context.Background(), operation.Operation{}, fldPath, &name, nil).MarkCoveredByDeclarative()
	}
	// ValidateObjectMetaWithOpts of pkg/apis/core/validation: apimachinery's, plus the finalizer names.
	metaPath := field.NewPath("metadata")
	allErrs := apimachineryvalidation.ValidateObjectMetaWithOpts(&controller.ObjectMeta, true, validateLongName, metaPath)
	for i := range controller.Finalizers {
		allErrs = append(allErrs, validateKubeFinalizerName(controller.Finalizers[i], metaPath.Child("finalizers").Index(i))...)
	}
	return append(allErrs, validateReplicationControllerSpec(&controller.Spec, field.NewPath("spec"), opts)...)
}

// ValidateReplicationControllerUpdate is the replicationcontroller strategy's ValidateUpdate.
func ValidateReplicationControllerUpdate(controller, oldController *v1.ReplicationController) field.ErrorList {
	opts := podTemplateValidationOptions(controller.Spec.Template, oldController.Spec.Template)
	allErrs := ValidateObjectMetaUpdate(&controller.ObjectMeta, &oldController.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateReplicationControllerSpec(&controller.Spec, field.NewPath("spec"), opts)...)
	// The strategy's checks of NonConvertibleFields annotations concern objects converted from
	// other API versions; the chain serves v1 only.
	return allErrs
}

// ValidateReplicationControllerStatusUpdate is the replicationcontroller status strategy's ValidateUpdate.
func ValidateReplicationControllerStatusUpdate(controller, oldController *v1.ReplicationController) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&controller.ObjectMeta, &oldController.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateReplicationControllerStatus(controller.Status, field.NewPath("status"))...)
	return allErrs
}

func validateReplicationControllerStatus(status v1.ReplicationControllerStatus, statusPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.Replicas), statusPath.Child("replicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.FullyLabeledReplicas), statusPath.Child("fullyLabeledReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.ReadyReplicas), statusPath.Child("readyReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.AvailableReplicas), statusPath.Child("availableReplicas"))...)
	allErrs = append(allErrs, ValidateNonnegativeField(int64(status.ObservedGeneration), statusPath.Child("observedGeneration"))...)
	msg := "cannot be greater than status.replicas"
	if status.FullyLabeledReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("fullyLabeledReplicas"), status.FullyLabeledReplicas, msg))
	}
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}

// validateNonEmptySelector validates that the given selector is non-empty.
func validateNonEmptySelector(selectorMap map[string]string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	selector := labels.Set(selectorMap).AsSelector()
	if selector.Empty() {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	return allErrs
}

// validatePodTemplateSpecForRC validates the given template and ensures that it is in accordance
// with the desired selector and replicas.
func validatePodTemplateSpecForRC(template *v1.PodTemplateSpec, selectorMap map[string]string, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if template == nil {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	} else {
		selector := labels.Set(selectorMap).AsSelector()
		if !selector.Empty() {
			// Verify that the RC selector matches the labels in template.
			labels := labels.Set(template.Labels)
			if !selector.Matches(labels) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
			}
		}
		allErrs = append(allErrs, validatePodTemplateSpec(template, fldPath, opts)...)
		// RestartPolicy has already been first-order validated as per ValidatePodTemplateSpec().
		if template.Spec.RestartPolicy != v1.RestartPolicyAlways {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("spec", "restartPolicy"), template.Spec.RestartPolicy, []v1.RestartPolicy{v1.RestartPolicyAlways}))
		}
		if template.Spec.ActiveDeadlineSeconds != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
		}
	}
	return allErrs
}

// validateReplicationControllerSpec tests if required fields in the replication controller spec are set.
func validateReplicationControllerSpec(spec *v1.ReplicationControllerSpec, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds")).MarkCoveredByDeclarative()...)
	allErrs = append(allErrs, validateNonEmptySelector(spec.Selector, fldPath.Child("selector"))...)
	if spec.Replicas == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("replicas"), "").MarkCoveredByDeclarative())
	} else {
		allErrs = append(allErrs, ValidateNonnegativeField(int64(*spec.Replicas), fldPath.Child("replicas")).MarkCoveredByDeclarative()...)
	}
	allErrs = append(allErrs, validatePodTemplateSpecForRC(spec.Template, spec.Selector, fldPath.Child("template"), opts)...)
	return allErrs
}

// validateHasLabel requires that metav1.ObjectMeta has a Label with key and expectedValue.
func validateHasLabel(meta metav1.ObjectMeta, fldPath *field.Path, key, expectedValue string) field.ErrorList {
	allErrs := field.ErrorList{}
	actualValue, found := meta.Labels[key]
	if !found {
		allErrs = append(allErrs, field.Required(fldPath.Child("labels").Key(key), ""))
		return allErrs
	}
	if actualValue != expectedValue {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("labels").Key(key), meta.Labels, fmt.Sprintf("must be '%s'", expectedValue)))
	}
	return allErrs
}

// validateImmutableInternal is ValidateImmutableField for struct values, rendered like
// upstream's internal types.
func validateImmutableInternal(newVal, oldVal interface{}, fldPath *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(oldVal, newVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, internal(newVal), "field is immutable").WithOrigin("immutable")}
}
