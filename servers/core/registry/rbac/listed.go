package rbac

import (
	"context"
	"fmt"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
)

// listed answers the first Get of each object from one List made before reconciling, so that
// reconciling a bootstrap object costs one request (a create, on a fresh etcd) instead of two.
// Any later Get of the same object (a retry after a conflict) asks the server. This is the
// chain's own shortcut: kube-apiserver's hook GETs every object.
type listed[T any] struct {
	resource string
	mu       sync.Mutex
	items    map[string]T    // namespace/name → the listed object
	asked    map[string]bool // namespace/name → its first Get was answered
}

func newListed[T any](resource string) *listed[T] {
	return &listed[T]{resource: resource, items: map[string]T{}, asked: map[string]bool{}}
}

// get answers from the list the first time, then from live.
func (l *listed[T]) get(namespace, name string, live func(string, string) (T, error)) (T, error) {
	key := namespace + "/" + name
	l.mu.Lock()
	first := !l.asked[key]
	l.asked[key] = true
	item, ok := l.items[key]
	l.mu.Unlock()
	switch {
	case !first:
		return live(namespace, name)
	case !ok:
		var zero T
		return zero, apierrors.NewNotFound(rbacv1.Resource(l.resource), name)
	default:
		return item, nil
	}
}

// listedRuleOwners reads ClusterRoles or Roles through a listed, and writes them as the
// library's modifier it wraps does.
type listedRuleOwners struct {
	reconciliation.RuleOwnerModifier
	l *listed[reconciliation.RuleOwner]
}

func (c listedRuleOwners) Get(namespace, name string) (reconciliation.RuleOwner, error) {
	return c.l.get(namespace, name, c.RuleOwnerModifier.Get)
}

// listedRoleBindings does the same for ClusterRoleBindings or RoleBindings.
type listedRoleBindings struct {
	reconciliation.RoleBindingModifier
	l *listed[reconciliation.RoleBinding]
}

func (c listedRoleBindings) Get(namespace, name string) (reconciliation.RoleBinding, error) {
	return c.l.get(namespace, name, c.RoleBindingModifier.Get)
}

type existing struct {
	clusterRoles, roles               *listed[reconciliation.RuleOwner]
	clusterRoleBindings, roleBindings *listed[reconciliation.RoleBinding]
}

// list lists the four kinds, in every namespace, at once.
func list(ctx context.Context, client kubernetes.Interface) (existing, error) {
	rbac := client.RbacV1()
	var (
		crs  *rbacv1.ClusterRoleList
		rs   *rbacv1.RoleList
		crbs *rbacv1.ClusterRoleBindingList
		rbs  *rbacv1.RoleBindingList
		errs [4]error
		wg   sync.WaitGroup
	)
	wg.Go(func() { crs, errs[0] = rbac.ClusterRoles().List(ctx, metav1.ListOptions{}) })
	wg.Go(func() { rs, errs[1] = rbac.Roles(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}) })
	wg.Go(func() { crbs, errs[2] = rbac.ClusterRoleBindings().List(ctx, metav1.ListOptions{}) })
	wg.Go(func() { rbs, errs[3] = rbac.RoleBindings(metav1.NamespaceAll).List(ctx, metav1.ListOptions{}) })
	wg.Wait()
	for i, kind := range []string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"} {
		if errs[i] != nil {
			return existing{}, fmt.Errorf("unable to initialize %s: %w", kind, errs[i])
		}
	}
	e := existing{
		clusterRoles: newListed[reconciliation.RuleOwner]("clusterroles"), roles: newListed[reconciliation.RuleOwner]("roles"),
		clusterRoleBindings: newListed[reconciliation.RoleBinding]("clusterrolebindings"), roleBindings: newListed[reconciliation.RoleBinding]("rolebindings"),
	}
	for i := range crs.Items {
		e.clusterRoles.items["/"+crs.Items[i].Name] = reconciliation.ClusterRoleRuleOwner{ClusterRole: &crs.Items[i]}
	}
	for i := range rs.Items {
		o := &rs.Items[i]
		e.roles.items[o.Namespace+"/"+o.Name] = reconciliation.RoleRuleOwner{Role: o}
	}
	for i := range crbs.Items {
		e.clusterRoleBindings.items["/"+crbs.Items[i].Name] = reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: &crbs.Items[i]}
	}
	for i := range rbs.Items {
		o := &rbs.Items[i]
		e.roleBindings.items[o.Namespace+"/"+o.Name] = reconciliation.RoleBindingAdapter{RoleBinding: o}
	}
	return e, nil
}
