package validation

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Access reviews, following kubernetes pkg/apis/authorization/validation/validation.go.

const oneOfAttributes = `exactly one of nonResourceAttributes or resourceAttributes must be specified`

// ValidateSubjectAccessReview validates a SubjectAccessReview.
func ValidateSubjectAccessReview(sar *authorizationv1.SubjectAccessReview) field.ErrorList {
	errs := validateSubjectAccessReviewSpec(sar.Spec, field.NewPath("spec"))
	return append(errs, metadataMustBeEmpty(sar.ObjectMeta, false)...)
}

// ValidateSelfSubjectAccessReview validates a SelfSubjectAccessReview.
func ValidateSelfSubjectAccessReview(sar *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	errs := validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, field.NewPath("spec"))
	return append(errs, metadataMustBeEmpty(sar.ObjectMeta, false)...)
}

// ValidateLocalSubjectAccessReview validates a LocalSubjectAccessReview.
func ValidateLocalSubjectAccessReview(sar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	errs := validateSubjectAccessReviewSpec(sar.Spec, field.NewPath("spec"))
	errs = append(errs, metadataMustBeEmpty(sar.ObjectMeta, true)...)
	if ra := sar.Spec.ResourceAttributes; ra != nil && ra.Namespace != sar.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, `must match metadata.namespace`))
	}
	if nra := sar.Spec.NonResourceAttributes; nra != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), nra, `disallowed on this kind of request`))
	}
	return errs
}

func validateSubjectAccessReviewSpec(spec authorizationv1.SubjectAccessReviewSpec, fldPath *field.Path) field.ErrorList {
	errs := validateOneOfAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, fldPath)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("user"), spec.User, `at least one of user or group must be specified`))
	}
	return append(errs, validateResourceAttributes(spec.ResourceAttributes)...)
}

func validateAttributes(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes, fldPath *field.Path) field.ErrorList {
	return append(validateOneOfAttributes(ra, nra, fldPath), validateResourceAttributes(ra)...)
}

func validateOneOfAttributes(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes, fldPath *field.Path) field.ErrorList {
	if (ra == nil) == (nra == nil) {
		return field.ErrorList{field.Invalid(fldPath, nra, oneOfAttributes)}
	}
	return nil
}

func validateResourceAttributes(ra *authorizationv1.ResourceAttributes) field.ErrorList {
	if ra == nil {
		return nil
	}
	var errs field.ErrorList
	path := field.NewPath("spec.resourceAttributes")
	if fs := ra.FieldSelector; fs != nil {
		errs = append(errs, validateSelectorAttributes(fs.RawSelector, len(fs.Requirements), path.Child("fieldSelector"))...)
		for i, r := range fs.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}, path.Child("fieldSelector", "requirements").Index(i))...)
		}
	}
	if ls := ra.LabelSelector; ls != nil {
		errs = append(errs, validateSelectorAttributes(ls.RawSelector, len(ls.Requirements), path.Child("labelSelector"))...)
		for i, r := range ls.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}, path.Child("labelSelector", "requirements").Index(i))...)
		}
	}
	return errs
}

func validateSelectorAttributes(raw string, requirements int, fldPath *field.Path) field.ErrorList {
	switch {
	case raw != "" && requirements > 0:
		return field.ErrorList{field.Invalid(fldPath.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	case raw == "" && requirements == 0:
		return field.ErrorList{field.Required(fldPath.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", fldPath))}
	}
	return nil
}

// metadataMustBeEmpty: a review is a question, not an object; only a local review has a namespace.
func metadataMustBeEmpty(m metav1.ObjectMeta, namespaced bool) field.ErrorList {
	m.ManagedFields = nil
	msg := `must be empty`
	if namespaced {
		m.Namespace = ""
		msg = `must be empty except for namespace`
	}
	if !equality.Semantic.DeepEqual(metav1.ObjectMeta{}, m) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, msg)}
	}
	return nil
}
