package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_RoleBinding: the role is an RBAC one.
func SetDefaults_RoleBinding(b *rbacv1.RoleBinding) {
	fill.Zero(&b.RoleRef.APIGroup, rbacv1.GroupName)
}

// SetDefaults_ClusterRoleBinding: the role is an RBAC one.
func SetDefaults_ClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	fill.Zero(&b.RoleRef.APIGroup, rbacv1.GroupName)
}

// SetDefaults_Subject: users and groups are RBAC subjects; a service account is a core object,
// of no group.
func SetDefaults_Subject(s *rbacv1.Subject) {
	if s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind {
		fill.Zero(&s.APIGroup, rbacv1.GroupName)
	}
}
