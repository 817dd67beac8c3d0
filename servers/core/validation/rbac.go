package validation

// Ported from kubernetes v1.37.2 pkg/apis/rbac/validation/validation.go, on the rbac/v1 types,
// with the declarative rules of pkg/apis/rbac/v1/zz_generated.validations.go that v1.37 enforces:
// the rbac strategies (pkg/registry/rbac/*/strategy.go) embed rest.DeclarativeValidation, so
// kube-apiserver merges both the way rest.ValidateDeclarativelyWithMigrationChecks does.
//
// Beta declarative rules (enforced, DeclarativeValidationBeta on): rules[*].verbs required,
// roleRef.name required, subjects[*].name required. They replace the handwritten errors they
// cover, and come last. roleRef immutability is alpha declaratively, so the handwritten error
// stays.

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
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
	return rbacDeclaratively(validateRole(role), role.Rules, nil, nil, nil, false)
}

func validateRole(role *rbacv1.Role) field.ErrorList {
	allErrs := ValidateObjectMeta(&role.ObjectMeta, true, ValidateRBACName, field.NewPath("metadata"))
	for i, rule := range role.Rules {
		allErrs = append(allErrs, ValidatePolicyRule(rule, true, field.NewPath("rules").Index(i))...)
	}
	return allErrs
}

// ValidateRoleUpdate validates a Role on update.
func ValidateRoleUpdate(role, oldRole *rbacv1.Role) field.ErrorList {
	allErrs := validateRole(role)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&role.ObjectMeta, &oldRole.ObjectMeta, field.NewPath("metadata"))...)
	return rbacDeclaratively(allErrs, role.Rules, oldRole.Rules, nil, nil, true)
}

// ValidateClusterRole validates a ClusterRole on create.
func ValidateClusterRole(role *rbacv1.ClusterRole) field.ErrorList {
	return rbacDeclaratively(validateClusterRole(role, false), role.Rules, nil, nil, nil, false)
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
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&role.ObjectMeta, &oldRole.ObjectMeta, field.NewPath("metadata"))...)
	return rbacDeclaratively(allErrs, role.Rules, oldRole.Rules, nil, nil, true)
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
	errs := validateRoleBinding(roleBinding)
	return rbacDeclaratively(errs, nil, nil, &roleBinding.RoleRef, nil, false, bindingSubjects{roleBinding.Subjects, nil})
}

func validateRoleBinding(roleBinding *rbacv1.RoleBinding) field.ErrorList {
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
	allErrs := validateRoleBinding(roleBinding)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&roleBinding.ObjectMeta, &oldRoleBinding.ObjectMeta, field.NewPath("metadata"))...)
	allErrs = append(allErrs, ValidateImmutableField(roleBinding.RoleRef, oldRoleBinding.RoleRef, field.NewPath("roleRef")).WithOrigin("immutable").MarkAlpha().MarkCoveredByDeclarative()...)
	return rbacDeclaratively(allErrs, nil, nil, &roleBinding.RoleRef, &oldRoleBinding.RoleRef, true, bindingSubjects{roleBinding.Subjects, oldRoleBinding.Subjects})
}

// ValidateClusterRoleBinding validates a ClusterRoleBinding on create.
func ValidateClusterRoleBinding(roleBinding *rbacv1.ClusterRoleBinding) field.ErrorList {
	errs := validateClusterRoleBinding(roleBinding)
	return rbacDeclaratively(errs, nil, nil, &roleBinding.RoleRef, nil, false, bindingSubjects{roleBinding.Subjects, nil})
}

func validateClusterRoleBinding(roleBinding *rbacv1.ClusterRoleBinding) field.ErrorList {
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
	allErrs := validateClusterRoleBinding(roleBinding)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&roleBinding.ObjectMeta, &oldRoleBinding.ObjectMeta, field.NewPath("metadata"))...)
	allErrs = append(allErrs, ValidateImmutableField(roleBinding.RoleRef, oldRoleBinding.RoleRef, field.NewPath("roleRef")).WithOrigin("immutable").MarkCoveredByDeclarative()...)
	return rbacDeclaratively(allErrs, nil, nil, &roleBinding.RoleRef, &oldRoleBinding.RoleRef, true, bindingSubjects{roleBinding.Subjects, oldRoleBinding.Subjects})
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

// --- declarative rules (zz_generated.validations.go) and the merge ---

type bindingSubjects struct{ subjects, old []rbacv1.Subject }

// rbacDeclaratively runs the enforced declarative rules of the kind (rules for roles; roleRef
// and subjects for bindings) and merges them into the handwritten errors as
// rest.ValidateDeclarativelyWithMigrationChecks does with DeclarativeValidationBeta on.
// Unchanged fields are not revalidated on update.
func rbacDeclaratively(handwritten field.ErrorList, rules, oldRules []rbacv1.PolicyRule, roleRef, oldRoleRef *rbacv1.RoleRef, update bool, subjects ...bindingSubjects) field.ErrorList {
	ctx := context.Background()
	op := operation.Operation{Type: operation.Create}
	if update {
		op.Type = operation.Update
	}
	var dv field.ErrorList
	if !(update && apiequality.Semantic.DeepEqual(rules, oldRules)) {
		dv = append(dv, validate.EachValSliceVal(ctx, op, field.NewPath("rules"), rules, oldRules, nil, nil, validatePolicyRuleDeclaratively)...)
	}
	if roleRef != nil && !(update && oldRoleRef != nil && *roleRef == *oldRoleRef) {
		// roleRef: +k8s:alpha immutable (not enforced), then the RoleRef rules.
		var oldName *string
		if oldRoleRef != nil {
			oldName = &oldRoleRef.Name
		}
		if !(update && oldName != nil && *oldName == roleRef.Name) {
			dv = append(dv, validate.RequiredValue(ctx, op, field.NewPath("roleRef", "name"), &roleRef.Name, oldName).MarkBeta()...)
		}
	}
	for _, s := range subjects {
		if !(update && apiequality.Semantic.DeepEqual(s.subjects, s.old)) {
			dv = append(dv, validate.EachValSliceVal(ctx, op, field.NewPath("subjects"), s.subjects, s.old, nil, nil, validateSubjectDeclaratively)...)
		}
	}
	enforced := validate.FilterEnforcedDeclarativeErrors(ctx, dv, true)
	errs := validate.FilterCoveredHandwrittenErrors(ctx, handwritten.MarkFromImperative(), enforced, true)
	return append(errs, enforced...)
}

func validatePolicyRuleDeclaratively(ctx context.Context, op operation.Operation, fldPath *field.Path, obj, oldObj *rbacv1.PolicyRule) field.ErrorList {
	var oldVerbs []string
	if oldObj != nil {
		oldVerbs = oldObj.Verbs
		if op.Type == operation.Update && apiequality.Semantic.DeepEqual(obj.Verbs, oldVerbs) {
			return nil
		}
	}
	return validate.RequiredSlice(ctx, op, fldPath.Child("verbs"), obj.Verbs, oldVerbs).MarkBeta()
}

func validateSubjectDeclaratively(ctx context.Context, op operation.Operation, fldPath *field.Path, obj, oldObj *rbacv1.Subject) field.ErrorList {
	var oldName *string
	if oldObj != nil {
		oldName = &oldObj.Name
		if op.Type == operation.Update && obj.Name == oldObj.Name {
			return nil
		}
	}
	return validate.RequiredValue(ctx, op, fldPath.Child("name"), &obj.Name, oldName).MarkBeta()
}
