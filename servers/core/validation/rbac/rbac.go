// Package rbac validates the rbac.authorization.k8s.io kinds of the Core server: Role,
// ClusterRole, RoleBinding and ClusterRoleBinding. (Whether a request is allowed is
// internal/rbac's business, the authorizer; this package only says whether an object is
// well-formed.)
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/rbac call
// these functions as their Validate hooks, after the request is decoded and defaulted and
// before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, paths and messages are kube-apiserver v1.37.2's, as observed. The generated
// declarative rules report that rules[*].verbs, roleRef.name and subjects[*].name are
// required: ours, marked as covered by them, are dropped in favour of theirs. Nothing is left
// out.
package rbac

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var metadata = field.NewPath("metadata")

// ValidateRole is the rule list of a new Role. RBAC objects may have any name that fits in a
// URL path.
func ValidateRole(role *rbacv1.Role) field.ErrorList {
	return validation.Join(
		validation.Meta(&role.ObjectMeta, true, validation.PathSegmentName, metadata),
		validation.Each(field.NewPath("rules"), role.Rules, namespacedRule),
	)
}

// ValidateRoleUpdate is the rule list of a Role update: the role as if new, then the metadata
// rules of an update.
func ValidateRoleUpdate(role, old *rbacv1.Role) field.ErrorList {
	return validation.Join(ValidateRole(role), validation.MetaUpdate(&role.ObjectMeta, &old.ObjectMeta, metadata))
}

// ValidateClusterRole is the rule list of a new ClusterRole.
func ValidateClusterRole(role *rbacv1.ClusterRole) field.ErrorList {
	return clusterRole(role, nil)
}

// ValidateClusterRoleUpdate is the rule list of a ClusterRole update; the invalid label values
// of the stored aggregation selectors stay allowed.
func ValidateClusterRoleUpdate(role, old *rbacv1.ClusterRole) field.ErrorList {
	return validation.Join(clusterRole(role, old), validation.MetaUpdate(&role.ObjectMeta, &old.ObjectMeta, metadata))
}

func clusterRole(role, old *rbacv1.ClusterRole) field.ErrorList {
	return validation.Join(
		validation.Meta(&role.ObjectMeta, false, validation.PathSegmentName, metadata),
		validation.Each(field.NewPath("rules"), role.Rules, clusterRule),
		aggregation(field.NewPath("aggregationRule", "clusterRoleSelectors"), role.AggregationRule, old),
	)
}

func namespacedRule(path *field.Path, rule *rbacv1.PolicyRule) field.ErrorList {
	return policyRule(path, rule, true)
}

func clusterRule(path *field.Path, rule *rbacv1.PolicyRule) field.ErrorList {
	return policyRule(path, rule, false)
}

// policyRule: a rule grants verbs either on resources of API groups or on non-resource URLs
// (such as /healthz, which only a ClusterRole can grant).
func policyRule(path *field.Path, rule *rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	if len(rule.NonResourceURLs) > 0 {
		urls := path.Child("nonResourceURLs")
		return validation.Join(
			validation.When(len(rule.Verbs) == 0, field.Required(path.Child("verbs"), "verbs must contain at least one value").MarkCoveredByDeclarative()),
			validation.When(namespaced, field.Invalid(urls, rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs")),
			validation.When(len(rule.APIGroups)+len(rule.Resources)+len(rule.ResourceNames) > 0,
				field.Invalid(urls, rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs")),
		)
	}
	return validation.Join(
		validation.When(len(rule.Verbs) == 0, field.Required(path.Child("verbs"), "verbs must contain at least one value").MarkCoveredByDeclarative()),
		validation.When(len(rule.APIGroups) == 0, field.Required(path.Child("apiGroups"), "resource rules must supply at least one api group")),
		validation.When(len(rule.Resources) == 0, field.Required(path.Child("resources"), "resource rules must supply at least one resource")),
	)
}

// aggregation: an aggregated ClusterRole gathers the rules of the ClusterRoles its selectors
// match (controllers/clusterroleaggregation), so it needs one selector at least.
func aggregation(path *field.Path, rule *rbacv1.AggregationRule, old *rbacv1.ClusterRole) field.ErrorList {
	if rule == nil {
		return nil
	}
	var stored []metav1.LabelSelector
	if old != nil && old.AggregationRule != nil {
		stored = old.AggregationRule.ClusterRoleSelectors
	}
	errs := validation.When(len(rule.ClusterRoleSelectors) == 0,
		field.Required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	for i := range rule.ClusterRoleSelectors {
		s := &rule.ClusterRoleSelectors[i]
		errs = append(errs, validation.SelectorKeepingOld(path.Index(i), s, keptInvalid(stored))...)
		if _, err := metav1.LabelSelectorAsSelector(s); err != nil {
			// kube-apiserver shows the selector it failed to make: none.
			errs = append(errs, field.Invalid(path.Index(i), nil, "invalid label selector."))
		}
	}
	return errs
}

// keptInvalid returns a stored selector with an invalid label value, if any: its presence lets
// the update keep such values.
func keptInvalid(stored []metav1.LabelSelector) *metav1.LabelSelector {
	for i := range stored {
		if metavalidation.LabelSelectorHasInvalidLabelValue(&stored[i]) {
			return &stored[i]
		}
	}
	return nil
}

// ValidateRoleBinding is the rule list of a new RoleBinding: it may grant a Role of its
// namespace or a ClusterRole.
func ValidateRoleBinding(b *rbacv1.RoleBinding) field.ErrorList {
	return validation.Join(
		validation.Meta(&b.ObjectMeta, true, validation.PathSegmentName, metadata),
		roleRef(b.RoleRef, "Role", "ClusterRole"),
		subjects(b.Subjects, true),
	)
}

// ValidateRoleBindingUpdate is the rule list of a RoleBinding update: what it grants cannot
// change, only to whom.
func ValidateRoleBindingUpdate(b, old *rbacv1.RoleBinding) field.ErrorList {
	return validation.Join(
		ValidateRoleBinding(b),
		validation.MetaUpdate(&b.ObjectMeta, &old.ObjectMeta, metadata),
		sameRoleRef(b.RoleRef, old.RoleRef),
	)
}

// ValidateClusterRoleBinding is the rule list of a new ClusterRoleBinding.
func ValidateClusterRoleBinding(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	return validation.Join(
		validation.Meta(&b.ObjectMeta, false, validation.PathSegmentName, metadata),
		roleRef(b.RoleRef, "ClusterRole"),
		subjects(b.Subjects, false),
	)
}

// ValidateClusterRoleBindingUpdate is the rule list of a ClusterRoleBinding update.
func ValidateClusterRoleBindingUpdate(b, old *rbacv1.ClusterRoleBinding) field.ErrorList {
	return validation.Join(
		ValidateClusterRoleBinding(b),
		validation.MetaUpdate(&b.ObjectMeta, &old.ObjectMeta, metadata),
		sameRoleRef(b.RoleRef, old.RoleRef),
	)
}

func sameRoleRef(ref, old rbacv1.RoleRef) field.ErrorList {
	return validation.When(ref != old, field.Invalid(field.NewPath("roleRef"), validation.Internal(ref), "field is immutable").
		WithOrigin("immutable").MarkCoveredByDeclarative())
}

// roleRef names the role granted, of one of kinds.
func roleRef(ref rbacv1.RoleRef, kinds ...string) field.ErrorList {
	path := field.NewPath("roleRef")
	return validation.Join(
		validation.When(ref.APIGroup != rbacv1.GroupName, field.NotSupported(path.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName})),
		validation.When(!slices.Contains(kinds, ref.Kind), field.NotSupported(path.Child("kind"), ref.Kind, kinds)),
		validation.When(ref.Name == "", field.Required(path.Child("name"), "").MarkCoveredByDeclarative()),
		nameIfSet(path.Child("name"), ref.Name, validation.PathSegmentName),
	)
}

func nameIfSet(path *field.Path, name string, rule validation.NameRule) field.ErrorList {
	var errs field.ErrorList
	if name != "" {
		for _, msg := range rule(name, false) {
			errs = append(errs, field.Invalid(path, name, msg))
		}
	}
	return errs
}

// subjects: users and groups are RBAC's own names; a service account is an object, named by a
// DNS subdomain, in a namespace (the binding's, unless a ClusterRoleBinding says which).
func subjects(list []rbacv1.Subject, namespaced bool) field.ErrorList {
	return validation.Each(field.NewPath("subjects"), list, func(path *field.Path, s *rbacv1.Subject) field.ErrorList {
		return validation.Join(validation.When(s.Name == "", field.Required(path.Child("name"), "").MarkCoveredByDeclarative()), subject(path, s, namespaced))
	})
}

func subject(path *field.Path, s *rbacv1.Subject, namespaced bool) field.ErrorList {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		return validation.Join(
			nameIfSet(path.Child("name"), s.Name, validation.SubdomainName),
			validation.When(s.APIGroup != "", field.NotSupported(path.Child("apiGroup"), s.APIGroup, []string{""})),
			validation.When(!namespaced && s.Namespace == "", field.Required(path.Child("namespace"), "")),
		)
	case rbacv1.UserKind, rbacv1.GroupKind:
		return validation.When(s.APIGroup != rbacv1.GroupName, field.NotSupported(path.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
	}
	return field.ErrorList{field.NotSupported(path.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind})}
}
