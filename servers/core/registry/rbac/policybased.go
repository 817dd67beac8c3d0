package rbac

// Privilege-escalation prevention in front of the four stores, where kubernetes
// pkg/registry/rbac/<resource>/policybased puts it: a create or update passes
// internal/rbac's EscalationCheck first, which refuses roles and bindings that would grant
// more than the writer holds.

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/apichain/apichain/internal/rbac"
	"github.com/apichain/apichain/servers/core/resource"
)

// policyBased is a store whose creates and updates pass the escalation check first.
type policyBased struct {
	*resource.REST
	escalation rbac.EscalationCheck
}

// Create implements rest.Creater.
func (s *policyBased) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if err := s.escalation.Check(ctx, obj, nil); err != nil {
		return nil, err
	}
	return s.REST.Create(ctx, obj, createValidation, options)
}

// Update implements rest.Updater: the check runs on the object the update produces (after a
// patch is applied), against the stored one.
func (s *policyBased) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	checked := rest.WrapUpdatedObjectInfo(objInfo, func(ctx context.Context, obj, old runtime.Object) (runtime.Object, error) {
		if err := s.escalation.Check(ctx, obj, old); err != nil {
			return nil, err
		}
		return obj, nil
	})
	return s.REST.Update(ctx, name, checked, createValidation, updateValidation, forceAllowCreate, options)
}

func getIn(ctx context.Context, s *resource.Storage, namespace, name string) (runtime.Object, error) {
	return s.Get(genericapirequest.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
}

func listIn(ctx context.Context, s *resource.Storage, namespace string) (runtime.Object, error) {
	return s.List(genericapirequest.WithNamespace(ctx, namespace), &metainternalversion.ListOptions{})
}
