package rbac

// The RBAC authorizer, ported from kubernetes v1.37.2 plugin/pkg/auth/authorizer/rbac/rbac.go.

import (
	"bytes"
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/klog/v2"
)

// RequestToRuleMapper finds the rules that apply to a user.
type RequestToRuleMapper interface {
	RulesFor(ctx context.Context, subject user.Info, namespace string) ([]rbacv1.PolicyRule, error)
	VisitRulesFor(ctx context.Context, user user.Info, namespace string, visitor func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool)
}

// RBACAuthorizer allows what a rule bound to the user allows, and has no opinion otherwise.
type RBACAuthorizer struct {
	authorizationRuleResolver RequestToRuleMapper
}

var (
	_ authorizer.Authorizer   = &RBACAuthorizer{}
	_ authorizer.RuleResolver = &RBACAuthorizer{}
)

// New returns an RBAC authorizer over the four getters.
func New(roles RoleGetter, roleBindings RoleBindingLister, clusterRoles ClusterRoleGetter, clusterRoleBindings ClusterRoleBindingLister) *RBACAuthorizer {
	return &RBACAuthorizer{authorizationRuleResolver: NewDefaultRuleResolver(roles, roleBindings, clusterRoles, clusterRoleBindings)}
}

// NewFromListers returns an RBAC authorizer reading through informer listers, as
// kube-apiserver's (pkg/kubeapiserver/authorizer/config.go) does.
func NewFromListers(roles rbaclisters.RoleLister, roleBindings rbaclisters.RoleBindingLister, clusterRoles rbaclisters.ClusterRoleLister, clusterRoleBindings rbaclisters.ClusterRoleBindingLister) *RBACAuthorizer {
	return New(&RoleListerGetter{Lister: roles}, &RoleBindingListerLister{Lister: roleBindings},
		&ClusterRoleListerGetter{Lister: clusterRoles}, &ClusterRoleBindingListerLister{Lister: clusterRoleBindings})
}

// authorizingVisitor stops at the first rule that allows, and collects resolution errors.
type authorizingVisitor struct {
	requestAttributes authorizer.Attributes

	allowed bool
	reason  string
	errors  []error
}

func (v *authorizingVisitor) visit(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
	if rule != nil && RuleAllows(v.requestAttributes, rule) {
		v.allowed = true
		v.reason = fmt.Sprintf("RBAC: allowed by %s", source.String())
		return false
	}
	if err != nil {
		v.errors = append(v.errors, err)
	}
	return true
}

// Authorize implements authorizer.Authorizer.
func (r *RBACAuthorizer) Authorize(ctx context.Context, requestAttributes authorizer.Attributes) (authorizer.Decision, string, error) {
	ruleCheckingVisitor := &authorizingVisitor{requestAttributes: requestAttributes}

	r.authorizationRuleResolver.VisitRulesFor(ctx, requestAttributes.GetUser(), requestAttributes.GetNamespace(), ruleCheckingVisitor.visit)
	if ruleCheckingVisitor.allowed {
		return authorizer.DecisionAllow, ruleCheckingVisitor.reason, nil
	}

	if klogV := klog.V(5); klogV.Enabled() {
		klogV.Infof("RBAC: no rules authorize user %q with groups %q to %s", requestAttributes.GetUser().GetName(), requestAttributes.GetUser().GetGroups(), describeRequest(requestAttributes))
	}

	reason := ""
	if len(ruleCheckingVisitor.errors) > 0 {
		reason = fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(ruleCheckingVisitor.errors))
	}
	return authorizer.DecisionNoOpinion, reason, nil
}

func describeRequest(a authorizer.Attributes) string {
	var operation string
	if a.IsResourceRequest() {
		b := &bytes.Buffer{}
		b.WriteString(`"` + a.GetVerb() + `" resource "` + a.GetResource())
		if len(a.GetAPIGroup()) > 0 {
			b.WriteString("." + a.GetAPIGroup())
		}
		if len(a.GetSubresource()) > 0 {
			b.WriteString("/" + a.GetSubresource())
		}
		b.WriteString(`"`)
		if len(a.GetName()) > 0 {
			b.WriteString(` named "` + a.GetName() + `"`)
		}
		operation = b.String()
	} else {
		operation = fmt.Sprintf("%q nonResourceURL %q", a.GetVerb(), a.GetPath())
	}
	if ns := a.GetNamespace(); len(ns) > 0 {
		return operation + fmt.Sprintf(" in namespace %q", ns)
	}
	return operation + " cluster-wide"
}

// ConditionsAwareAuthorize is not conditions-aware: it converts the Authorize decision.
func (r *RBACAuthorizer) ConditionsAwareAuthorize(ctx context.Context, requestAttributes authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(r.Authorize(ctx, requestAttributes))
}

// EvaluateConditions is not supported by this authorizer.
func (*RBACAuthorizer) EvaluateConditions(_ context.Context, _ authorizer.ConditionsAwareDecision, _ authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor implements authorizer.RuleResolver (SelfSubjectRulesReview).
func (r *RBACAuthorizer) RulesFor(ctx context.Context, user user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var (
		resourceRules    []authorizer.ResourceRuleInfo
		nonResourceRules []authorizer.NonResourceRuleInfo
	)
	policyRules, err := r.authorizationRuleResolver.RulesFor(ctx, user, namespace)
	for _, policyRule := range policyRules {
		if len(policyRule.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs:         policyRule.Verbs,
				APIGroups:     policyRule.APIGroups,
				Resources:     policyRule.Resources,
				ResourceNames: policyRule.ResourceNames,
			})
		}
		if len(policyRule.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs:           policyRule.Verbs,
				NonResourceURLs: policyRule.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// RoleListerGetter reads Roles from an informer.
type RoleListerGetter struct {
	Lister rbaclisters.RoleLister
}

// GetRole implements RoleGetter.
func (g *RoleListerGetter) GetRole(ctx context.Context, namespace, name string) (*rbacv1.Role, error) {
	return g.Lister.Roles(namespace).Get(name)
}

// RoleBindingListerLister reads RoleBindings from an informer.
type RoleBindingListerLister struct {
	Lister rbaclisters.RoleBindingLister
}

// ListRoleBindings implements RoleBindingLister.
func (l *RoleBindingListerLister) ListRoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	return l.Lister.RoleBindings(namespace).List(labels.Everything())
}

// ClusterRoleListerGetter reads ClusterRoles from an informer.
type ClusterRoleListerGetter struct {
	Lister rbaclisters.ClusterRoleLister
}

// GetClusterRole implements ClusterRoleGetter.
func (g *ClusterRoleListerGetter) GetClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error) {
	return g.Lister.Get(name)
}

// ClusterRoleBindingListerLister reads ClusterRoleBindings from an informer.
type ClusterRoleBindingListerLister struct {
	Lister rbaclisters.ClusterRoleBindingLister
}

// ListClusterRoleBindings implements ClusterRoleBindingLister.
func (l *ClusterRoleBindingListerLister) ListClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return l.Lister.List(labels.Everything())
}

// NewWithResolver returns an RBAC authorizer over any rule resolver (tests, static policy).
func NewWithResolver(resolver RequestToRuleMapper) *RBACAuthorizer {
	return &RBACAuthorizer{authorizationRuleResolver: resolver}
}
