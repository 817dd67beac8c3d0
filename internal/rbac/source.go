package rbac

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
)

// Source is where roles and bindings are read from.
type Source interface {
	ClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error)
	RoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error)
	ClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error)
	Role(ctx context.Context, namespace, name string) (*rbacv1.Role, error)
}

// FromInformers reads roles and bindings from informer caches, as kube-apiserver's authorizer
// does: a request never waits for etcd, and a new binding counts once the informer has it.
func FromInformers(i rbacinformers.Interface) Source {
	return listers{i.ClusterRoleBindings().Lister(), i.RoleBindings().Lister(), i.ClusterRoles().Lister(), i.Roles().Lister()}
}

type listers struct {
	clusterRoleBindings rbaclisters.ClusterRoleBindingLister
	roleBindings        rbaclisters.RoleBindingLister
	clusterRoles        rbaclisters.ClusterRoleLister
	roles               rbaclisters.RoleLister
}

func (l listers) ClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return l.clusterRoleBindings.List(labels.Everything())
}

func (l listers) RoleBindings(_ context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	return l.roleBindings.RoleBindings(namespace).List(labels.Everything())
}

func (l listers) ClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	return l.clusterRoles.Get(name)
}

func (l listers) Role(_ context.Context, namespace, name string) (*rbacv1.Role, error) {
	return l.roles.Roles(namespace).Get(name)
}
