// Package rbac is the rbac.authorization.k8s.io API group of the Core server, following kubernetes
// pkg/registry/rbac: Roles, RoleBindings, ClusterRoles and ClusterRoleBindings in the generic
// store, behind kube-apiserver's privilege-escalation checks (policybased.go), and the
// "rbac/bootstrap-roles" post-start hook that reconciles the bootstrap policy (bootstrap.go).
// The authorizer and the escalation check are internal/rbac, shared with the chain's head.
package rbac

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/internal/rbac"
	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/rbac"
)

// The group's resources, as kubernetes pkg/registry/rbac/<resource>/strategy.go declare them:
// PUT may create, no short names, no status.
var (
	roles = &resource.Definition{
		Resource: "roles", Singular: "role", Namespaced: true,
		New:                 func() runtime.Object { return &rbacv1.Role{} },
		NewList:             func() runtime.Object { return &rbacv1.RoleList{} },
		Table:               printers.Role,
		AllowCreateOnUpdate: true,
		Validate:            resource.Check(validation.ValidateRole),
		ValidateUpdate:      resource.CheckUpdate(validation.ValidateRoleUpdate),
	}
	roleBindings = &resource.Definition{
		Resource: "rolebindings", Singular: "rolebinding", Namespaced: true,
		New:                 func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewList:             func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Table:               printers.RoleBinding,
		AllowCreateOnUpdate: true,
		Validate:            resource.Check(validation.ValidateRoleBinding),
		ValidateUpdate:      resource.CheckUpdate(validation.ValidateRoleBindingUpdate),
	}
	clusterRoles = &resource.Definition{
		Resource: "clusterroles", Singular: "clusterrole",
		New:                 func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewList:             func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Table:               printers.ClusterRole,
		AllowCreateOnUpdate: true,
		Validate:            resource.Check(validation.ValidateClusterRole),
		ValidateUpdate:      resource.CheckUpdate(validation.ValidateClusterRoleUpdate),
	}
	clusterRoleBindings = &resource.Definition{
		Resource: "clusterrolebindings", Singular: "clusterrolebinding",
		New:                 func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewList:             func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Table:               printers.ClusterRoleBinding,
		AllowCreateOnUpdate: true,
		Validate:            resource.Check(validation.ValidateClusterRoleBinding),
		ValidateUpdate:      resource.CheckUpdate(validation.ValidateClusterRoleBindingUpdate),
	}
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{roles, roleBindings, clusterRoles, clusterRoleBindings}

// Group is the rbac.authorization.k8s.io group: its types, defaulting and field selectors.
func Group() registry.Group {
	return registry.Group{GroupVersion: rbacv1.SchemeGroupVersion, AddTypes: addTypes, Definitions: definitions}
}

// addTypes registers the rbac/v1 types and their defaulting (kubernetes
// pkg/apis/rbac/v1/defaults.go): roleRef.apiGroup and the apiGroup of User and Group subjects
// default to rbac.authorization.k8s.io.
func addTypes(scheme *runtime.Scheme) error {
	if err := rbacv1.AddToScheme(scheme); err != nil {
		return err
	}
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBinding{}, func(obj any) { defaultRoleBinding(obj.(*rbacv1.RoleBinding)) })
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBindingList{}, func(obj any) {
		for i := range obj.(*rbacv1.RoleBindingList).Items {
			defaultRoleBinding(&obj.(*rbacv1.RoleBindingList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBinding{}, func(obj any) { defaultClusterRoleBinding(obj.(*rbacv1.ClusterRoleBinding)) })
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBindingList{}, func(obj any) {
		for i := range obj.(*rbacv1.ClusterRoleBindingList).Items {
			defaultClusterRoleBinding(&obj.(*rbacv1.ClusterRoleBindingList).Items[i])
		}
	})
	return nil
}

func defaultRoleBinding(b *rbacv1.RoleBinding) {
	if b.RoleRef.APIGroup == "" {
		b.RoleRef.APIGroup = rbacv1.GroupName
	}
	defaultSubjects(b.Subjects)
}

func defaultClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	if b.RoleRef.APIGroup == "" {
		b.RoleRef.APIGroup = rbacv1.GroupName
	}
	defaultSubjects(b.Subjects)
}

func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		if s := &subjects[i]; s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}

// StorageProvider builds the group's storage with the chain's authorizer, which answers the
// "bind" and "escalate" checks.
type StorageProvider struct {
	Authorizer authorizer.UnconditionalAuthorizer
}

var _ registry.StorageProvider = StorageProvider{}

// GroupName implements registry.StorageProvider.
func (StorageProvider) GroupName() string { return rbacv1.GroupName }

// NewRESTStorage implements registry.StorageProvider, as kubernetes pkg/registry/rbac/rest
// does: the four stores, with the escalation check in front, reading the writer's rules from
// these same stores.
func (p StorageProvider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, built, err := registry.NewGroup(rbacv1.SchemeGroupVersion, scheme, codecs, optsGetter, definitions...)
	if err != nil {
		return info, err
	}
	s := stores{roles: built[roles], roleBindings: built[roleBindings], clusterRoles: built[clusterRoles], clusterRoleBindings: built[clusterRoleBindings]}
	check := rbac.EscalationCheck{Rules: rbac.New(s), Authorizer: p.Authorizer}
	m := info.VersionedResourcesStorageMap[rbacv1.SchemeGroupVersion.Version]
	for name, d := range map[string]*resource.Storage{"roles": s.roles, "rolebindings": s.roleBindings, "clusterroles": s.clusterRoles, "clusterrolebindings": s.clusterRoleBindings} {
		m[name] = &policyBased{REST: d.REST, escalation: check}
	}
	return info, nil
}

// stores reads roles and bindings from the group's own storage (an rbac.Source), for the
// escalation check.
type stores struct {
	roles, roleBindings, clusterRoles, clusterRoleBindings *resource.Storage
}

func (s stores) Role(ctx context.Context, namespace, name string) (*rbacv1.Role, error) {
	obj, err := getIn(ctx, s.roles, namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*rbacv1.Role), nil
}

func (s stores) RoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	obj, err := listIn(ctx, s.roleBindings, namespace)
	if err != nil {
		return nil, err
	}
	list := obj.(*rbacv1.RoleBindingList)
	out := make([]*rbacv1.RoleBinding, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func (s stores) ClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error) {
	obj, err := getIn(ctx, s.clusterRoles, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*rbacv1.ClusterRole), nil
}

func (s stores) ClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	obj, err := listIn(ctx, s.clusterRoleBindings, "")
	if err != nil {
		return nil, err
	}
	list := obj.(*rbacv1.ClusterRoleBindingList)
	out := make([]*rbacv1.ClusterRoleBinding, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
