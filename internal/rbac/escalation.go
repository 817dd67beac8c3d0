package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// EscalationCheck stops a user from granting, by writing a Role, ClusterRole, RoleBinding or
// ClusterRoleBinding, permissions the user does not hold, as kube-apiserver's RBAC storage does:
//
//   - A role's rules must all be the writer's own, in the role's namespace (cluster-wide for a
//     ClusterRole), unless the writer may "escalate" that kind of role.
//   - An aggregationRule (set now, or before this update) needs every permission there is: it
//     can gather any rules, and removing it can keep a role from being tightened.
//   - A binding's role must be the writer's own in the binding's namespace, unless the writer
//     may "bind" that role.
//   - system:masters is exempt, and so is an update that changes only what the garbage
//     collector changes (owner references, finalizers).
//
// A refusal is a 403 with kube-apiserver's message, which lists what the writer lacks.
type EscalationCheck struct {
	// Rules finds the writer's rules (over Core's own storage: an escalation check must not
	// trust a cache that may lag the write it checks).
	Rules *Authorizer
	// Authorizer answers whether the writer may "escalate" or "bind".
	Authorizer authorizer.UnconditionalAuthorizer
}

// Check returns nil when the user of ctx may write obj; old is the stored object on update and
// nil on create.
func (c EscalationCheck) Check(ctx context.Context, obj, old runtime.Object) error {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return apierrors.NewBadRequest("no user in the request")
	}
	if slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup) || OnlyGCFieldsChanged(obj, old) {
		return nil
	}
	namespace, _ := request.NamespaceFrom(ctx)
	switch o := obj.(type) {
	case *rbacv1.Role:
		return c.checkRole(ctx, u, namespace, "roles", o.Name, o.Rules, false)
	case *rbacv1.ClusterRole:
		aggregates := hasAggregationRule(o)
		if before, ok := old.(*rbacv1.ClusterRole); ok {
			aggregates = aggregates || hasAggregationRule(before)
		}
		return c.checkRole(ctx, u, "", "clusterroles", o.Name, o.Rules, aggregates)
	case *rbacv1.RoleBinding:
		return c.checkBinding(ctx, u, namespace, "rolebindings", o.Name, o.RoleRef)
	case *rbacv1.ClusterRoleBinding:
		return c.checkBinding(ctx, u, "", "clusterrolebindings", o.Name, o.RoleRef)
	}
	return apierrors.NewBadRequest(fmt.Sprintf("not an RBAC object: %T", obj))
}

// everything is what setting an aggregationRule takes: cluster-admin's rules.
var everything = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

func (c EscalationCheck) checkRole(ctx context.Context, u user.Info, namespace, resource, name string, rules []rbacv1.PolicyRule, aggregates bool) error {
	// The name is the URL's, as kube-apiserver asks: a create's URL has none, so escalate
	// limited to resourceNames never allows a create.
	var urlName string
	if info, ok := request.RequestInfoFrom(ctx); ok {
		urlName = info.Name
	}
	if c.may(ctx, u, "escalate", rbacv1.GroupName, resource, urlName, namespace) {
		return nil
	}
	gr := rbacv1.Resource(resource)
	if err := c.holds(ctx, u, namespace, rules); err != nil {
		return apierrors.NewForbidden(gr, name, err)
	}
	if aggregates && c.holds(ctx, u, namespace, everything) != nil {
		return apierrors.NewForbidden(gr, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return nil
}

func (c EscalationCheck) checkBinding(ctx context.Context, u user.Info, namespace, resource, name string, ref rbacv1.RoleRef) error {
	roles := map[string]string{"Role": "roles", "ClusterRole": "clusterroles"}[ref.Kind]
	if roles == "" {
		// Binds nothing (the resolver knows no other kind); validation rejects it.
		return nil
	}
	if c.may(ctx, u, "bind", ref.APIGroup, roles, ref.Name, namespace) {
		return nil
	}
	rules, err := c.Rules.roleRules(ctx, ref, namespace)
	if err != nil {
		return err
	}
	if err := c.holds(ctx, u, namespace, rules); err != nil {
		return apierrors.NewForbidden(rbacv1.Resource(resource), name, err)
	}
	return nil
}

// may asks the chain's authorizer whether u may verb the role group/resource/name.
func (c EscalationCheck) may(ctx context.Context, u user.Info, verb, group, resource, name, namespace string) bool {
	decision, _, err := c.Authorizer.Authorize(ctx, authorizer.AttributesRecord{
		User: u, Verb: verb, APIGroup: group, APIVersion: "*", Resource: resource, Name: name,
		Namespace: namespace, ResourceRequest: true,
	})
	return err == nil && decision == authorizer.DecisionAllow
}

// holds returns nil when u's rules in namespace cover rules, and otherwise kube-apiserver's
// description of what is missing.
func (c EscalationCheck) holds(ctx context.Context, u user.Info, namespace string, rules []rbacv1.PolicyRule) error {
	own, resolveErr := c.Rules.Rules(ctx, u, namespace)
	covered, missing := validation.Covers(own, rules)
	if covered {
		return nil
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.GetName(), u.GetGroups(), describeMissing(missing))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: [%v]", resolveErr)
	}
	return errors.New(msg)
}

// describeMissing lists missing rules one a line, sorted. Covers reports one rule per verb; the
// verbs of one group, resource and name are merged back into one line.
func describeMissing(missing []rbacv1.PolicyRule) string {
	var lines []string
	merged := map[[3]string]*rbacv1.PolicyRule{} // group, resource, name → their verbs
	for _, r := range missing {
		if len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 {
			lines = append(lines, describeRule(r))
			continue
		}
		key := [3]string{r.APIGroups[0], r.Resources[0], strings.Join(r.ResourceNames, "")}
		if m := merged[key]; m != nil {
			m.Verbs = append(m.Verbs, r.Verbs...)
		} else {
			merged[key] = r.DeepCopy()
		}
	}
	for _, r := range merged {
		lines = append(lines, describeRule(*r))
	}
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

// describeRule is kube-apiserver's short form of a rule:
// {APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}.
func describeRule(r rbacv1.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name   string
		values []string
	}{{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs}, {"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs}} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r != nil && r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// OnlyGCFieldsChanged reports whether obj is old with other owner references or finalizers
// (and managed fields, which follow any change).
func OnlyGCFieldsChanged(obj, old runtime.Object) bool {
	if old == nil {
		return false
	}
	a, b := obj.DeepCopyObject(), old.DeepCopyObject()
	for _, o := range []runtime.Object{a, b} {
		m, err := meta.Accessor(o)
		if err != nil {
			return false
		}
		m.SetOwnerReferences(nil)
		m.SetFinalizers(nil)
		m.SetManagedFields(nil)
	}
	return equality.Semantic.DeepEqual(a, b)
}
