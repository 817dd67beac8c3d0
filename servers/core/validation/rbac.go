package validation

// Ported from kubernetes v1.37.2 pkg/apis/rbac/validation/validation.go, on the rbac/v1 types.
// The errors marked covered are reported by the generated declarative rules (+k8s:beta:
// rules[*].verbs, roleRef.name and subjects[*].name required). roleRef immutability is alpha
// declaratively, so the handwritten error is the one users see.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateRBACName is the name check of Roles, ClusterRoles and their bindings: any name that
// can be a path segment.
func ValidateRBACName(name string, prefix bool) []string {
	return content.IsPathSegmentName(name)
}

// ValidateRole validates a Role on create.
func ValidateRole(role *rbacv1.Role) field.ErrorList {
	allErrs := ValidateObjectMeta(&role.ObjectMeta, true, ValidateRBACName, field.NewPath("metadata"))
	for i, rule := range role.Rules {
		allErrs = append(allErrs, ValidatePolicyRule(rule, true, field.NewPath("rules").Index(i))...)
	}
	return allErrs
}

// ValidateRoleUpdate validates a Role on update.
func ValidateRoleUpdate(role, oldRole *rbacv1.Role) field.ErrorList {
	allErrs := ValidateRole(role)
	return append(allErrs, ValidateObjectMetaUpdate(&role.ObjectMeta, &oldRole.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateClusterRole validates a ClusterRole on create.
func ValidateClusterRole(role *rbacv1.ClusterRole) field.ErrorList {
	return validateClusterRole(role, false)
}

func validateClusterRole(role *rbacv1.ClusterRole, allowInvalidLabelValueInSelector bool) field.ErrorList {
	allErrs := ValidateObjectMeta(&role.ObjectMeta, false, ValidateRBACName, field.NewPath("metadata"))
	for i, rule := range role.Rules {
		allErrs = append(allErrs, ValidatePolicyRule(rule, false, field.NewPath("rules").Index(i))...)
	}
	opts := metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValueInSelector}
	if role.AggregationRule != nil {
		if len(role.AggregationRule.ClusterRoleSelectors) == 0 {
			allErrs = append(allErrs, field.Required(field.NewPath("aggregationRule", "clusterRoleSelectors"), "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i, selector := range role.AggregationRule.ClusterRoleSelectors {
			fieldPath := field.NewPath("aggregationRule", "clusterRoleSelectors").Index(i)
			allErrs = append(allErrs, metavalidation.ValidateLabelSelector(&selector, opts, fieldPath)...)
			// As upstream: the value reported is the (nil) parsed selector.
			selector, err := metav1.LabelSelectorAsSelector(&selector)
			if err != nil {
				allErrs = append(allErrs, field.Invalid(fieldPath, selector, "invalid label selector."))
			}
		}
	}
	return allErrs
}

// ValidateClusterRoleUpdate validates a ClusterRole on update; a stored aggregation selector
// with an invalid label value may stay (pkg/registry/rbac/clusterrole/strategy.go).
func ValidateClusterRoleUpdate(role, oldRole *rbacv1.ClusterRole) field.ErrorList {
	allErrs := validateClusterRole(role, aggregationRuleHasInvalidLabelValue(oldRole))
	return append(allErrs, ValidateObjectMetaUpdate(&role.ObjectMeta, &oldRole.ObjectMeta, field.NewPath("metadata"))...)
}

func aggregationRuleHasInvalidLabelValue(role *rbacv1.ClusterRole) bool {
	if role.AggregationRule == nil {
		return false
	}
	opts := metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
	for _, selector := range role.AggregationRule.ClusterRoleSelectors {
		if len(metavalidation.ValidateLabelSelector(&selector, opts, nil)) > 0 {
			return true
		}
	}
	return false
}

// ValidatePolicyRule validates one rule; namespaced rules may not name non-resource URLs.
func ValidatePolicyRule(rule rbacv1.PolicyRule, isNamespaced bool, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(rule.Verbs) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("verbs"), "verbs must contain at least one value").MarkCoveredByDeclarative())
	}
	if len(rule.NonResourceURLs) > 0 {
		if isNamespaced {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return allErrs
	}
	if len(rule.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	}
	return allErrs
}

// ValidateRoleBinding validates a RoleBinding on create.
func ValidateRoleBinding(roleBinding *rbacv1.RoleBinding) field.ErrorList {
	allErrs := ValidateObjectMeta(&roleBinding.ObjectMeta, true, ValidateRBACName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRoleRef(roleBinding.RoleRef, []string{"Role", "ClusterRole"})...)
	subjectsPath := field.NewPath("subjects")
	for i, subject := range roleBinding.Subjects {
		allErrs = append(allErrs, ValidateRoleBindingSubject(subject, true, subjectsPath.Index(i))...)
	}
	return allErrs
}

// ValidateRoleBindingUpdate validates a RoleBinding on update: roleRef is immutable.
func ValidateRoleBindingUpdate(roleBinding, oldRoleBinding *rbacv1.RoleBinding) field.ErrorList {
	allErrs := ValidateRoleBinding(roleBinding)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&roleBinding.ObjectMeta, &oldRoleBinding.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, ValidateImmutableField(roleBinding.RoleRef, oldRoleBinding.RoleRef, field.NewPath("roleRef")).WithOrigin("immutable").MarkAlpha().MarkCoveredByDeclarative()...)
}

// ValidateClusterRoleBinding validates a ClusterRoleBinding on create.
func ValidateClusterRoleBinding(roleBinding *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := ValidateObjectMeta(&roleBinding.ObjectMeta, false, ValidateRBACName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRoleRef(roleBinding.RoleRef, []string{"ClusterRole"})...)
	subjectsPath := field.NewPath("subjects")
	for i, subject := range roleBinding.Subjects {
		allErrs = append(allErrs, ValidateRoleBindingSubject(subject, false, subjectsPath.Index(i))...)
	}
	return allErrs
}

// ValidateClusterRoleBindingUpdate validates a ClusterRoleBinding on update: roleRef is immutable.
func ValidateClusterRoleBindingUpdate(roleBinding, oldRoleBinding *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := ValidateClusterRoleBinding(roleBinding)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&roleBinding.ObjectMeta, &oldRoleBinding.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, ValidateImmutableField(roleBinding.RoleRef, oldRoleBinding.RoleRef, field.NewPath("roleRef")).WithOrigin("immutable").MarkCoveredByDeclarative()...)
}

// validateRoleRef is the roleRef part of ValidateRoleBinding and ValidateClusterRoleBinding.
func validateRoleRef(roleRef rbacv1.RoleRef, kinds []string) field.ErrorList {
	var allErrs field.ErrorList
	if roleRef.APIGroup != rbacv1.GroupName {
		allErrs = append(allErrs, field.NotSupported(field.NewPath("roleRef", "apiGroup"), roleRef.APIGroup, []string{rbacv1.GroupName}))
	}
	known := false
	for _, k := range kinds {
		known = known || roleRef.Kind == k
	}
	if !known {
		allErrs = append(allErrs, field.NotSupported(field.NewPath("roleRef", "kind"), roleRef.Kind, kinds))
	}
	if len(roleRef.Name) == 0 {
		allErrs = append(allErrs, field.Required(field.NewPath("roleRef", "name"), "").MarkCoveredByDeclarative())
	} else {
		for _, msg := range ValidateRBACName(roleRef.Name, false) {
			allErrs = append(allErrs, field.Invalid(field.NewPath("roleRef", "name"), roleRef.Name, msg))
		}
	}
	return allErrs
}

// ValidateRoleBindingSubject validates one subject; a ServiceAccount in a ClusterRoleBinding
// needs a namespace.
func ValidateRoleBindingSubject(subject rbacv1.Subject, isNamespaced bool, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(subject.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "").MarkCoveredByDeclarative())
	}
	switch subject.Kind {
	case rbacv1.ServiceAccountKind:
		if len(subject.Name) > 0 {
			for _, msg := range ValidateServiceAccountName(subject.Name, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), subject.Name, msg))
			}
		}
		if len(subject.APIGroup) > 0 {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("apiGroup"), subject.APIGroup, []string{""}))
		}
		if !isNamespaced && len(subject.Namespace) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if subject.APIGroup != rbacv1.GroupName {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("apiGroup"), subject.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), subject.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return allErrs
}
