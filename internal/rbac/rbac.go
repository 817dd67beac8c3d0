// Package rbac is the chain's Role-Based Access Control: the authorizer that kube-apiserver's
// --authorization-mode=RBAC puts at the head of the chain, and the check that stops anyone from
// granting, through a Role or a binding, more than they hold themselves (escalation.go).
//
// How a request is decided, in the order Authorize follows:
//
//  1. Which bindings apply. Every ClusterRoleBinding, and the RoleBindings of the request's
//     namespace. A binding applies when one of its subjects is the user: a User subject by
//     name, a Group subject by one of the user's groups, a ServiceAccount subject by the user
//     name system:serviceaccount:<namespace>:<name> (its namespace defaults to the binding's).
//  2. Which rules they bring. A binding names one role: a ClusterRole, or (a RoleBinding only) a
//     Role of its own namespace. A ClusterRole bound by a RoleBinding grants its rules in that
//     namespace only. An aggregated ClusterRole (admin, edit, view) is read like any other: the
//     clusterrole-aggregation controller has already copied the rules it gathers into it.
//  3. Whether a rule allows the request. A resource request needs the verb, the API group, the
//     resource (with "/subresource", e.g. pods/log) and the object's name to match; a request
//     for a path (/healthz, /metrics) needs the verb and the path. In a rule, "*" matches
//     anything, "*/scale" the scale subresource of any resource, a path ending in "*" every path
//     it prefixes, and no resourceNames every name.
//
// RBAC can only allow. When no rule allows, it has no opinion, and the chain's authorizer
// (servers/chain/auth.go) denies with the 403 kube-apiserver sends.
//
// Ours: the authorizer, the rule matching and the escalation check, written for this project.
// Imported: whether one set of rules covers another (k8s.io/component-helpers/auth/rbac/
// validation), which the escalation check asks.
//
// Two boxes of the chain use this package and neither may import the other: servers/chain
// builds the authorizer over the shared informers, and Core's rbac.authorization.k8s.io
// storage (servers/core/registry/rbac) runs the escalation check over its own stores.
package rbac

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Authorizer decides requests by the roles and bindings of its Source.
type Authorizer struct {
	source Source
}

// New returns an authorizer reading roles and bindings from source.
func New(source Source) *Authorizer { return &Authorizer{source: source} }

// Authorize allows a request that a rule bound to its user allows, and has no opinion on any
// other. The reason of an allow names the binding, as kube-apiserver's does; the reason of a
// no-opinion lists what could not be read (a binding to a missing role, say).
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var allowedBy *grant
	errs := a.visit(ctx, attrs.GetUser(), attrs.GetNamespace(), func(g *grant, rule *rbacv1.PolicyRule) bool {
		if allows(rule, attrs) {
			allowedBy = g
			return false
		}
		return true
	})
	if allowedBy != nil {
		return authorizer.DecisionAllow, "RBAC: allowed by " + allowedBy.String(), nil
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(errs).Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// Rules returns every rule that applies to u in namespace (cluster-wide ones only for ""). With
// an error the list may lack some, but every rule in it applies.
func (a *Authorizer) Rules(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	errs := a.visit(ctx, u, namespace, func(_ *grant, rule *rbacv1.PolicyRule) bool {
		rules = append(rules, *rule)
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// RulesFor implements authorizer.RuleResolver: what a SelfSubjectRulesReview (kubectl auth
// can-i --list) shows.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	rules, err := a.Rules(ctx, u, namespace)
	var resourceRules []authorizer.ResourceRuleInfo
	var pathRules []authorizer.NonResourceRuleInfo
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			pathRules = append(pathRules, &authorizer.DefaultNonResourceRuleInfo{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	return resourceRules, pathRules, false, err
}

// grant is a binding that applies to the user, kept to say why a request was allowed.
type grant struct {
	kind, name, namespace string // the binding's
	roleRef               rbacv1.RoleRef
	subject               rbacv1.Subject // the subject that is the user
}

// String is kube-apiserver's description: ClusterRoleBinding "x" of ClusterRole "y" to User "z".
func (g *grant) String() string {
	name, subject := g.name, g.subject.Name
	if g.namespace != "" {
		name += "/" + g.namespace
	}
	if g.subject.Kind == rbacv1.ServiceAccountKind {
		subject += "/" + cmp.Or(g.subject.Namespace, g.namespace)
	}
	return fmt.Sprintf("%s %q of %s %q to %s %q", g.kind, name, g.roleRef.Kind, g.roleRef.Name, g.subject.Kind, subject)
}

// visit calls fn with every rule that applies to u in namespace, ClusterRoleBindings first,
// until fn returns false. It returns what it could not read; it goes on past those.
func (a *Authorizer) visit(ctx context.Context, u user.Info, namespace string, fn func(*grant, *rbacv1.PolicyRule) bool) []error {
	var errs []error
	// through visits the rules of one binding; false when fn asked to stop.
	through := func(g grant, subjects []rbacv1.Subject) bool {
		i := slices.IndexFunc(subjects, func(s rbacv1.Subject) bool { return isUser(s, u, g.namespace) })
		if i < 0 {
			return true
		}
		g.subject = subjects[i]
		rules, err := a.roleRules(ctx, g.roleRef, g.namespace)
		if err != nil {
			errs = append(errs, err)
			return true
		}
		for i := range rules {
			if !fn(&g, &rules[i]) {
				return false
			}
		}
		return true
	}

	clusterBindings, err := a.source.ClusterRoleBindings(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, b := range clusterBindings {
		if !through(grant{kind: "ClusterRoleBinding", name: b.Name, roleRef: b.RoleRef}, b.Subjects) {
			return errs
		}
	}
	if namespace == "" {
		return errs
	}
	bindings, err := a.source.RoleBindings(ctx, namespace)
	if err != nil {
		errs = append(errs, err)
	}
	for _, b := range bindings {
		if !through(grant{kind: "RoleBinding", name: b.Name, namespace: namespace, roleRef: b.RoleRef}, b.Subjects) {
			return errs
		}
	}
	return errs
}

// roleRules returns the rules of the role a binding in namespace ("" for a ClusterRoleBinding)
// refers to.
func (a *Authorizer) roleRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "ClusterRole":
		r, err := a.source.ClusterRole(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	case "Role":
		r, err := a.source.Role(ctx, namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// isUser reports whether a subject of a binding in namespace is u.
func isUser(s rbacv1.Subject, u user.Info, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return s.Name == u.GetName()
	case rbacv1.GroupKind:
		return slices.Contains(u.GetGroups(), s.Name)
	case rbacv1.ServiceAccountKind:
		ns := cmp.Or(s.Namespace, namespace)
		return ns != "" && u.GetName() == serviceaccount.MakeUsername(ns, s.Name)
	}
	return false
}

// allows reports whether rule allows the request.
func allows(rule *rbacv1.PolicyRule, attrs authorizer.Attributes) bool {
	if !matches(rule.Verbs, attrs.GetVerb()) {
		return false
	}
	if !attrs.IsResourceRequest() {
		return slices.ContainsFunc(rule.NonResourceURLs, func(u string) bool { return pathMatches(u, attrs.GetPath()) })
	}
	return matches(rule.APIGroups, attrs.GetAPIGroup()) &&
		resourceMatches(rule.Resources, attrs.GetResource(), attrs.GetSubresource()) &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, attrs.GetName()))
}

// matches reports whether list holds value or "*".
func matches(list []string, value string) bool {
	return slices.Contains(list, value) || slices.Contains(list, "*")
}

// resourceMatches reports whether list names the resource with its subresource ("pods/log"),
// any resource's subresource ("*/log"), or everything ("*"). A plain "pods" is not "pods/log".
func resourceMatches(list []string, resource, subresource string) bool {
	if subresource == "" {
		return matches(list, resource)
	}
	return matches(list, resource+"/"+subresource) || slices.Contains(list, "*/"+subresource)
}

// pathMatches reports whether a rule's nonResourceURL is path, or a prefix of it ending in "*".
func pathMatches(ruleURL, path string) bool {
	if prefix, ok := strings.CutSuffix(ruleURL, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return ruleURL == path
}
