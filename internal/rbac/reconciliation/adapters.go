package reconciliation

// The four kinds as RuleOwners and RoleBindings, and their clients, ported from
// k8s.io/component-helpers v0.37.2 auth/rbac/reconciliation/{clusterrole,role,clusterrolebinding,
// rolebinding}_interfaces.go and namespace.go.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// ClusterRoleRuleOwner is a ClusterRole as a RuleOwner.
type ClusterRoleRuleOwner struct {
	ClusterRole *rbacv1.ClusterRole
}

func (o ClusterRoleRuleOwner) GetObject() runtime.Object           { return o.ClusterRole }
func (o ClusterRoleRuleOwner) GetNamespace() string                { return o.ClusterRole.Namespace }
func (o ClusterRoleRuleOwner) GetName() string                     { return o.ClusterRole.Name }
func (o ClusterRoleRuleOwner) GetLabels() map[string]string        { return o.ClusterRole.Labels }
func (o ClusterRoleRuleOwner) SetLabels(in map[string]string)      { o.ClusterRole.Labels = in }
func (o ClusterRoleRuleOwner) GetAnnotations() map[string]string   { return o.ClusterRole.Annotations }
func (o ClusterRoleRuleOwner) SetAnnotations(in map[string]string) { o.ClusterRole.Annotations = in }
func (o ClusterRoleRuleOwner) GetRules() []rbacv1.PolicyRule       { return o.ClusterRole.Rules }
func (o ClusterRoleRuleOwner) SetRules(in []rbacv1.PolicyRule)     { o.ClusterRole.Rules = in }
func (o ClusterRoleRuleOwner) GetAggregationRule() *rbacv1.AggregationRule {
	return o.ClusterRole.AggregationRule
}
func (o ClusterRoleRuleOwner) SetAggregationRule(in *rbacv1.AggregationRule) {
	o.ClusterRole.AggregationRule = in
}
func (o ClusterRoleRuleOwner) DeepCopyRuleOwner() RuleOwner {
	return ClusterRoleRuleOwner{ClusterRole: o.ClusterRole.DeepCopy()}
}

// ClusterRoleModifier reads and writes ClusterRoles.
type ClusterRoleModifier struct {
	Client rbacv1client.ClusterRoleInterface
}

func (c ClusterRoleModifier) Get(ctx context.Context, namespace, name string) (RuleOwner, error) {
	ret, err := c.Client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleRuleOwner{ClusterRole: ret}, nil
}

func (c ClusterRoleModifier) Create(ctx context.Context, in RuleOwner) (RuleOwner, error) {
	ret, err := c.Client.Create(ctx, in.(ClusterRoleRuleOwner).ClusterRole, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleRuleOwner{ClusterRole: ret}, nil
}

func (c ClusterRoleModifier) Update(ctx context.Context, in RuleOwner) (RuleOwner, error) {
	ret, err := c.Client.Update(ctx, in.(ClusterRoleRuleOwner).ClusterRole, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleRuleOwner{ClusterRole: ret}, nil
}

// RoleRuleOwner is a Role as a RuleOwner.
type RoleRuleOwner struct {
	Role *rbacv1.Role
}

func (o RoleRuleOwner) GetObject() runtime.Object                     { return o.Role }
func (o RoleRuleOwner) GetNamespace() string                          { return o.Role.Namespace }
func (o RoleRuleOwner) GetName() string                               { return o.Role.Name }
func (o RoleRuleOwner) GetLabels() map[string]string                  { return o.Role.Labels }
func (o RoleRuleOwner) SetLabels(in map[string]string)                { o.Role.Labels = in }
func (o RoleRuleOwner) GetAnnotations() map[string]string             { return o.Role.Annotations }
func (o RoleRuleOwner) SetAnnotations(in map[string]string)           { o.Role.Annotations = in }
func (o RoleRuleOwner) GetRules() []rbacv1.PolicyRule                 { return o.Role.Rules }
func (o RoleRuleOwner) SetRules(in []rbacv1.PolicyRule)               { o.Role.Rules = in }
func (o RoleRuleOwner) GetAggregationRule() *rbacv1.AggregationRule   { return nil }
func (o RoleRuleOwner) SetAggregationRule(in *rbacv1.AggregationRule) {}
func (o RoleRuleOwner) DeepCopyRuleOwner() RuleOwner                  { return RoleRuleOwner{Role: o.Role.DeepCopy()} }

// RoleModifier reads and writes Roles, creating their namespace if it can.
type RoleModifier struct {
	Client          rbacv1client.RolesGetter
	NamespaceClient corev1client.NamespaceInterface
}

func (c RoleModifier) Get(ctx context.Context, namespace, name string) (RuleOwner, error) {
	ret, err := c.Client.Roles(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return RoleRuleOwner{Role: ret}, nil
}

func (c RoleModifier) Create(ctx context.Context, in RuleOwner) (RuleOwner, error) {
	if err := tryEnsureNamespace(ctx, c.NamespaceClient, in.GetNamespace()); err != nil {
		return nil, err
	}
	ret, err := c.Client.Roles(in.GetNamespace()).Create(ctx, in.(RoleRuleOwner).Role, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return RoleRuleOwner{Role: ret}, nil
}

func (c RoleModifier) Update(ctx context.Context, in RuleOwner) (RuleOwner, error) {
	ret, err := c.Client.Roles(in.GetNamespace()).Update(ctx, in.(RoleRuleOwner).Role, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return RoleRuleOwner{Role: ret}, nil
}

// ClusterRoleBindingAdapter is a ClusterRoleBinding as a RoleBinding.
type ClusterRoleBindingAdapter struct {
	ClusterRoleBinding *rbacv1.ClusterRoleBinding
}

func (o ClusterRoleBindingAdapter) GetObject() runtime.Object      { return o.ClusterRoleBinding }
func (o ClusterRoleBindingAdapter) GetNamespace() string           { return o.ClusterRoleBinding.Namespace }
func (o ClusterRoleBindingAdapter) GetName() string                { return o.ClusterRoleBinding.Name }
func (o ClusterRoleBindingAdapter) GetUID() types.UID              { return o.ClusterRoleBinding.UID }
func (o ClusterRoleBindingAdapter) GetLabels() map[string]string   { return o.ClusterRoleBinding.Labels }
func (o ClusterRoleBindingAdapter) SetLabels(in map[string]string) { o.ClusterRoleBinding.Labels = in }
func (o ClusterRoleBindingAdapter) GetAnnotations() map[string]string {
	return o.ClusterRoleBinding.Annotations
}
func (o ClusterRoleBindingAdapter) SetAnnotations(in map[string]string) {
	o.ClusterRoleBinding.Annotations = in
}
func (o ClusterRoleBindingAdapter) GetRoleRef() rbacv1.RoleRef { return o.ClusterRoleBinding.RoleRef }
func (o ClusterRoleBindingAdapter) GetSubjects() []rbacv1.Subject {
	return o.ClusterRoleBinding.Subjects
}
func (o ClusterRoleBindingAdapter) SetSubjects(in []rbacv1.Subject) {
	o.ClusterRoleBinding.Subjects = in
}
func (o ClusterRoleBindingAdapter) DeepCopyRoleBinding() RoleBinding {
	return ClusterRoleBindingAdapter{ClusterRoleBinding: o.ClusterRoleBinding.DeepCopy()}
}

// ClusterRoleBindingClientAdapter reads and writes ClusterRoleBindings.
type ClusterRoleBindingClientAdapter struct {
	Client rbacv1client.ClusterRoleBindingInterface
}

func (c ClusterRoleBindingClientAdapter) Get(ctx context.Context, namespace, name string) (RoleBinding, error) {
	ret, err := c.Client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleBindingAdapter{ClusterRoleBinding: ret}, nil
}

func (c ClusterRoleBindingClientAdapter) Create(ctx context.Context, in RoleBinding) (RoleBinding, error) {
	ret, err := c.Client.Create(ctx, in.(ClusterRoleBindingAdapter).ClusterRoleBinding, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleBindingAdapter{ClusterRoleBinding: ret}, nil
}

func (c ClusterRoleBindingClientAdapter) Update(ctx context.Context, in RoleBinding) (RoleBinding, error) {
	ret, err := c.Client.Update(ctx, in.(ClusterRoleBindingAdapter).ClusterRoleBinding, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return ClusterRoleBindingAdapter{ClusterRoleBinding: ret}, nil
}

func (c ClusterRoleBindingClientAdapter) Delete(ctx context.Context, namespace, name string, uid types.UID) error {
	return c.Client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

// RoleBindingAdapter is a RoleBinding as a RoleBinding.
type RoleBindingAdapter struct {
	RoleBinding *rbacv1.RoleBinding
}

func (o RoleBindingAdapter) GetObject() runtime.Object           { return o.RoleBinding }
func (o RoleBindingAdapter) GetNamespace() string                { return o.RoleBinding.Namespace }
func (o RoleBindingAdapter) GetName() string                     { return o.RoleBinding.Name }
func (o RoleBindingAdapter) GetUID() types.UID                   { return o.RoleBinding.UID }
func (o RoleBindingAdapter) GetLabels() map[string]string        { return o.RoleBinding.Labels }
func (o RoleBindingAdapter) SetLabels(in map[string]string)      { o.RoleBinding.Labels = in }
func (o RoleBindingAdapter) GetAnnotations() map[string]string   { return o.RoleBinding.Annotations }
func (o RoleBindingAdapter) SetAnnotations(in map[string]string) { o.RoleBinding.Annotations = in }
func (o RoleBindingAdapter) GetRoleRef() rbacv1.RoleRef          { return o.RoleBinding.RoleRef }
func (o RoleBindingAdapter) GetSubjects() []rbacv1.Subject       { return o.RoleBinding.Subjects }
func (o RoleBindingAdapter) SetSubjects(in []rbacv1.Subject)     { o.RoleBinding.Subjects = in }
func (o RoleBindingAdapter) DeepCopyRoleBinding() RoleBinding {
	return RoleBindingAdapter{RoleBinding: o.RoleBinding.DeepCopy()}
}

// RoleBindingClientAdapter reads and writes RoleBindings, creating their namespace if it can.
type RoleBindingClientAdapter struct {
	Client          rbacv1client.RoleBindingsGetter
	NamespaceClient corev1client.NamespaceInterface
}

func (c RoleBindingClientAdapter) Get(ctx context.Context, namespace, name string) (RoleBinding, error) {
	ret, err := c.Client.RoleBindings(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return RoleBindingAdapter{RoleBinding: ret}, nil
}

func (c RoleBindingClientAdapter) Create(ctx context.Context, in RoleBinding) (RoleBinding, error) {
	if err := tryEnsureNamespace(ctx, c.NamespaceClient, in.GetNamespace()); err != nil {
		return nil, err
	}
	ret, err := c.Client.RoleBindings(in.GetNamespace()).Create(ctx, in.(RoleBindingAdapter).RoleBinding, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return RoleBindingAdapter{RoleBinding: ret}, nil
}

func (c RoleBindingClientAdapter) Update(ctx context.Context, in RoleBinding) (RoleBinding, error) {
	ret, err := c.Client.RoleBindings(in.GetNamespace()).Update(ctx, in.(RoleBindingAdapter).RoleBinding, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return RoleBindingAdapter{RoleBinding: ret}, nil
}

func (c RoleBindingClientAdapter) Delete(ctx context.Context, namespace, name string, uid types.UID) error {
	return c.Client.RoleBindings(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

// tryEnsureNamespace gets or creates namespace, ignoring Forbidden: best effort, for users who
// may write roles but not namespaces.
func tryEnsureNamespace(ctx context.Context, client corev1client.NamespaceInterface, namespace string) error {
	_, getErr := client.Get(ctx, namespace, metav1.GetOptions{})
	if getErr == nil {
		return nil
	}
	if fatalGetErr := utilerrors.FilterOut(getErr, apierrors.IsNotFound, apierrors.IsForbidden); fatalGetErr != nil {
		return fatalGetErr
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	_, createErr := client.Create(ctx, ns, metav1.CreateOptions{})
	return utilerrors.FilterOut(createErr, apierrors.IsAlreadyExists, apierrors.IsForbidden)
}
