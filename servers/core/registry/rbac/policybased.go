package rbac

// Privilege-escalation prevention in front of the four stores, following kubernetes
// pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go: a
// user may create or update a role only with rules the user already holds (or with the
// "escalate" verb on it), and a binding only to a role whose rules the user already holds (or
// with the "bind" verb on it). system:masters is exempt.

import (
	"context"
	"errors"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/apichain/apichain/internal/rbac"
	"github.com/apichain/apichain/servers/core/resource"
)

// policyBased is a store whose creates and updates pass check first.
type policyBased struct {
	*resource.REST
	authorizer authorizer.UnconditionalAuthorizer
	// check returns the Forbidden error of an escalation; old is nil on create.
	check func(ctx context.Context, obj, old runtime.Object) error
	// bindings are not exempted by "escalate" (their check asks for "bind" itself).
	bindings bool
}

func (s *policyBased) exempt(ctx context.Context) bool {
	return rbac.EscalationAllowed(ctx) || (!s.bindings && rbac.RoleEscalationAuthorized(ctx, s.authorizer))
}

// Create implements rest.Creater.
func (s *policyBased) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if !s.exempt(ctx) {
		if err := s.check(ctx, obj, nil); err != nil {
			return nil, err
		}
	}
	return s.REST.Create(ctx, obj, createValidation, options)
}

// Update implements rest.Updater: the check runs on the object the update produces.
func (s *policyBased) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if s.exempt(ctx) {
		return s.REST.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
	}
	nonEscalating := rest.WrapUpdatedObjectInfo(objInfo, func(ctx context.Context, obj, old runtime.Object) (runtime.Object, error) {
		// What the garbage collector changes needs no permissions.
		if rbac.IsOnlyMutatingGCFields(obj, old) {
			return obj, nil
		}
		if err := s.check(ctx, obj, old); err != nil {
			return nil, err
		}
		return obj, nil
	})
	return s.REST.Update(ctx, name, nonEscalating, createValidation, updateValidation, forceAllowCreate, options)
}

func roleCheck(resolver rbac.AuthorizationRuleResolver) func(context.Context, runtime.Object, runtime.Object) error {
	return func(ctx context.Context, obj, _ runtime.Object) error {
		role, err := checkType[*rbacv1.Role](obj)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if err := rbac.ConfirmNoEscalation(ctx, resolver, role.Rules); err != nil {
			return apierrors.NewForbidden(rbacv1.Resource("roles"), role.Name, err)
		}
		return nil
	}
}

// fullAuthority is what setting an aggregationRule needs: it can gather anything.
var fullAuthority = []rbacv1.PolicyRule{
	rbac.NewRule("*").Groups("*").Resources("*").RuleOrDie(),
	rbac.NewRule("*").URLs("*").RuleOrDie(),
}

func clusterRoleCheck(resolver rbac.AuthorizationRuleResolver) func(context.Context, runtime.Object, runtime.Object) error {
	return func(ctx context.Context, obj, old runtime.Object) error {
		clusterRole, err := checkType[*rbacv1.ClusterRole](obj)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if err := rbac.ConfirmNoEscalation(ctx, resolver, clusterRole.Rules); err != nil {
			return apierrors.NewForbidden(rbacv1.Resource("clusterroles"), clusterRole.Name, err)
		}
		aggregated := hasAggregationRule(clusterRole)
		if oldRole, ok := old.(*rbacv1.ClusterRole); ok && oldRole != nil {
			// Changing the rule can also prevent tightening: it needs the same power.
			aggregated = aggregated || hasAggregationRule(oldRole)
		}
		if aggregated {
			if err := rbac.ConfirmNoEscalation(ctx, resolver, fullAuthority); err != nil {
				return apierrors.NewForbidden(rbacv1.Resource("clusterroles"), clusterRole.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		return nil
	}
}

func hasAggregationRule(clusterRole *rbacv1.ClusterRole) bool {
	return clusterRole.AggregationRule != nil && len(clusterRole.AggregationRule.ClusterRoleSelectors) > 0
}

// bindingCheck allows a binding to a role the user may "bind", or whose rules the user holds
// in the binding's namespace.
func bindingCheck(resolver rbac.AuthorizationRuleResolver, a authorizer.UnconditionalAuthorizer) func(context.Context, runtime.Object, runtime.Object) error {
	return func(ctx context.Context, obj, _ runtime.Object) error {
		var (
			roleRef   rbacv1.RoleRef
			name      string
			namespace string
			resource  string
		)
		switch b := obj.(type) {
		case *rbacv1.RoleBinding:
			// The namespace of the URL: the object's may be empty until the store fills it.
			ns, ok := genericapirequest.NamespaceFrom(ctx)
			if !ok {
				return apierrors.NewBadRequest("namespace is required")
			}
			roleRef, name, namespace, resource = b.RoleRef, b.Name, ns, "rolebindings"
		case *rbacv1.ClusterRoleBinding:
			roleRef, name, namespace, resource = b.RoleRef, b.Name, metav1.NamespaceNone, "clusterrolebindings"
		default:
			return apierrors.NewBadRequest("not a binding")
		}
		if rbac.BindingAuthorized(ctx, roleRef, namespace, a) {
			return nil
		}
		rules, err := resolver.GetRoleReferenceRules(ctx, roleRef, namespace)
		if err != nil {
			return err
		}
		if err := rbac.ConfirmNoEscalation(ctx, resolver, rules); err != nil {
			return apierrors.NewForbidden(rbacv1.Resource(resource), name, err)
		}
		return nil
	}
}

func getIn(ctx context.Context, s *resource.Storage, namespace, name string) (runtime.Object, error) {
	return s.Get(genericapirequest.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
}

func listIn(ctx context.Context, s *resource.Storage, namespace string) (runtime.Object, error) {
	return s.List(genericapirequest.WithNamespace(ctx, namespace), &metainternalversion.ListOptions{})
}
