// Follows kubernetes pkg/printers/internalversion/printers.go
// (printRoleBinding, printClusterRoleBinding and their column definitions) as
// of kube-apiserver v1.37, on the rbac/v1 types, with SubjectsStrings of
// pkg/apis/rbac/helpers.go. Role and ClusterRole have no printer upstream:
// their storage uses the default table convertor (Name, Created At).

package printers

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Role prints rbac/v1 Roles with kube-apiserver's default convertor.
var Role = defaultTablePrinter()

// ClusterRole prints rbac/v1 ClusterRoles with kube-apiserver's default convertor.
var ClusterRole = defaultTablePrinter()

// RoleBinding prints rbac/v1 RoleBindings.
var RoleBinding = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Role", Type: "string", Description: rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]},
		ageColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
	},
	Row: rowFunc(func(obj *rbacv1.RoleBinding) ([]interface{}, error) {
		return bindingCells(&obj.ObjectMeta, obj.RoleRef, obj.Subjects), nil
	}),
}

// ClusterRoleBinding prints rbac/v1 ClusterRoleBindings.
var ClusterRoleBinding = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Role", Type: "string", Description: rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]},
		ageColumn(),
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the clusterRoleBinding"},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the clusterRoleBinding"},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the clusterRoleBinding"},
	},
	Row: rowFunc(func(obj *rbacv1.ClusterRoleBinding) ([]interface{}, error) {
		return bindingCells(&obj.ObjectMeta, obj.RoleRef, obj.Subjects), nil
	}),
}

// bindingCells is the body shared by printRoleBinding and printClusterRoleBinding.
func bindingCells(m *metav1.ObjectMeta, ref rbacv1.RoleRef, subjects []rbacv1.Subject) []interface{} {
	roleRef := fmt.Sprintf("%s/%s", ref.Kind, ref.Name)
	users, groups, sas, _ := subjectsStrings(subjects)
	return []interface{}{m.Name, roleRef, translateTimestampSince(m.CreationTimestamp),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}

// subjectsStrings follows pkg/apis/rbac.SubjectsStrings.
func subjectsStrings(subjects []rbacv1.Subject) ([]string, []string, []string, []string) {
	users := []string{}
	groups := []string{}
	sas := []string{}
	others := []string{}

	for _, subject := range subjects {
		switch subject.Kind {
		case rbacv1.ServiceAccountKind:
			sas = append(sas, fmt.Sprintf("%s/%s", subject.Namespace, subject.Name))

		case rbacv1.UserKind:
			users = append(users, subject.Name)

		case rbacv1.GroupKind:
			groups = append(groups, subject.Name)

		default:
			others = append(others, fmt.Sprintf("%s/%s/%s", subject.Kind, subject.Namespace, subject.Name))
		}
	}

	return users, groups, sas, others
}
