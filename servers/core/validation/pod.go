package validation

// The pod-specific annotation checks of pod templates, ported from kubernetes v1.37.2
// pkg/apis/core/validation/validation.go. (Pods themselves are validated by the
// pods package; what is left here serves the workload kinds' pod templates.)

import (
	"encoding/json"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validatePodSpecificAnnotations(annotations map[string]string, spec *v1.PodSpec, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	if value, isMirror := annotations[v1.MirrorPodAnnotationKey]; isMirror {
		if len(spec.NodeName) == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Key(v1.MirrorPodAnnotationKey), value, "must set spec.nodeName if mirror pod annotation is set"))
		}
	}

	if annotations[v1.TolerationsAnnotationKey] != "" {
		allErrs = append(allErrs, validateTolerationsInPodAnnotations(annotations, fldPath, opts)...)
	}

	if !opts.AllowInvalidPodDeletionCost {
		if _, err := getDeletionCostFromPodAnnotations(annotations); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Key(v1.PodDeletionCost), annotations[v1.PodDeletionCost], "must be a 32bit integer"))
		}
	}

	allErrs = append(allErrs, ValidateSeccompPodAnnotations(annotations, fldPath)...)
	allErrs = append(allErrs, ValidateAppArmorPodAnnotations(annotations, spec, fldPath)...)

	return allErrs
}

// validateTolerationsInPodAnnotations tests that the serialized tolerations in Pod.Annotations has valid data
func validateTolerationsInPodAnnotations(annotations map[string]string, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	var tolerations []v1.Toleration
	if err := json.Unmarshal([]byte(annotations[v1.TolerationsAnnotationKey]), &tolerations); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, v1.TolerationsAnnotationKey, err.Error()))
		return allErrs
	}

	if len(tolerations) > 0 {
		allErrs = append(allErrs, validateTolerations(tolerations, fldPath.Child(v1.TolerationsAnnotationKey), opts, false)...)
	}

	return allErrs
}

// validateContainerOnlyForPod does pod-only (i.e. not pod template) validation for a single container.
func validateContainerOnlyForPod(ctr *v1.Container, path *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(ctr.Image) != len(strings.TrimSpace(ctr.Image)) {
		allErrs = append(allErrs, field.Invalid(path.Child("image"), ctr.Image, "must not have leading or trailing whitespace"))
	}
	return allErrs
}
