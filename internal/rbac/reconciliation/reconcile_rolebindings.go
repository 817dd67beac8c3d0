package reconciliation

// Ported from k8s.io/component-helpers v0.37.2 auth/rbac/reconciliation/reconcile_rolebindings.go.

import (
	"context"
	"fmt"
	"reflect"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// RoleBindingModifier reads and writes RoleBindings or ClusterRoleBindings.
type RoleBindingModifier interface {
	Get(ctx context.Context, namespace, name string) (RoleBinding, error)
	Delete(ctx context.Context, namespace, name string, uid types.UID) error
	Create(ctx context.Context, binding RoleBinding) (RoleBinding, error)
	Update(ctx context.Context, binding RoleBinding) (RoleBinding, error)
}

// RoleBinding is a RoleBinding or a ClusterRoleBinding.
type RoleBinding interface {
	GetObject() runtime.Object
	GetNamespace() string
	GetName() string
	GetUID() types.UID
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
	GetRoleRef() rbacv1.RoleRef
	GetSubjects() []rbacv1.Subject
	SetSubjects([]rbacv1.Subject)
	DeepCopyRoleBinding() RoleBinding
}

// ReconcileRoleBindingOptions says what to reconcile and how.
type ReconcileRoleBindingOptions struct {
	// RoleBinding is the expected binding.
	RoleBinding RoleBinding
	// Confirm writes; without it the result is a dry run.
	Confirm bool
	// RemoveExtraSubjects removes subjects the expected binding does not have.
	RemoveExtraSubjects bool
	// Client reads and writes the stored binding.
	Client RoleBindingModifier
}

// ReconcileClusterRoleBindingResult is what reconciliation found and did.
type ReconcileClusterRoleBindingResult struct {
	// RoleBinding is the reconciled binding (not persisted in a dry run or when protected).
	RoleBinding RoleBinding

	// MissingSubjects were expected and not stored; ExtraSubjects the reverse.
	MissingSubjects []rbacv1.Subject
	ExtraSubjects   []rbacv1.Subject

	// Operation is what was needed (and done unless a dry run or Protected).
	Operation ReconcileOperation
	// Protected means the stored binding opted out (autoupdate=false).
	Protected bool
}

// Run reconciles.
func (o *ReconcileRoleBindingOptions) Run(ctx context.Context) (*ReconcileClusterRoleBindingResult, error) {
	return o.run(ctx, 0)
}

func (o *ReconcileRoleBindingOptions) run(ctx context.Context, attempts int) (*ReconcileClusterRoleBindingResult, error) {
	if attempts > 3 {
		return nil, fmt.Errorf("exceeded maximum attempts")
	}

	var result *ReconcileClusterRoleBindingResult
	existingBinding, err := o.Client.Get(ctx, o.RoleBinding.GetNamespace(), o.RoleBinding.GetName())
	switch {
	case errors.IsNotFound(err):
		result = &ReconcileClusterRoleBindingResult{
			RoleBinding:     o.RoleBinding,
			MissingSubjects: o.RoleBinding.GetSubjects(),
			Operation:       ReconcileCreate,
		}
	case err != nil:
		return nil, err
	default:
		result, err = computeReconciledRoleBinding(existingBinding, o.RoleBinding, o.RemoveExtraSubjects)
		if err != nil {
			return nil, err
		}
	}

	if result.Protected || !o.Confirm {
		return result, nil
	}

	switch result.Operation {
	case ReconcileRecreate:
		err := o.Client.Delete(ctx, existingBinding.GetNamespace(), existingBinding.GetName(), existingBinding.GetUID())
		switch {
		case err == nil, errors.IsNotFound(err):
		case errors.IsConflict(err):
			// Another object with another UID: look again.
			return o.run(ctx, attempts+1)
		default:
			return nil, err
		}
		fallthrough
	case ReconcileCreate:
		created, err := o.Client.Create(ctx, result.RoleBinding)
		if errors.IsAlreadyExists(err) {
			return o.run(ctx, attempts+1)
		}
		if err != nil {
			return nil, err
		}
		result.RoleBinding = created
	case ReconcileUpdate:
		updated, err := o.Client.Update(ctx, result.RoleBinding)
		if errors.IsNotFound(err) {
			return o.run(ctx, attempts+1)
		}
		if err != nil {
			return nil, err
		}
		result.RoleBinding = updated
	case ReconcileNone:
	default:
		return nil, fmt.Errorf("invalid operation: %v", result.Operation)
	}
	return result, nil
}

// computeReconciledRoleBinding returns the binding that makes existing's subjects, roleRef,
// labels and annotations match expected's.
func computeReconciledRoleBinding(existing, expected RoleBinding, removeExtraSubjects bool) (*ReconcileClusterRoleBindingResult, error) {
	result := &ReconcileClusterRoleBindingResult{Operation: ReconcileNone}

	result.Protected = existing.GetAnnotations()[rbacv1.AutoUpdateAnnotationKey] == "false"

	// roleRef is immutable: start over.
	if expected.GetRoleRef() != existing.GetRoleRef() {
		result.RoleBinding = expected
		result.Operation = ReconcileRecreate
		return result, nil
	}

	result.RoleBinding = existing.DeepCopyRoleBinding()

	result.RoleBinding.SetAnnotations(merge(expected.GetAnnotations(), result.RoleBinding.GetAnnotations()))
	if !reflect.DeepEqual(result.RoleBinding.GetAnnotations(), existing.GetAnnotations()) {
		result.Operation = ReconcileUpdate
	}
	result.RoleBinding.SetLabels(merge(expected.GetLabels(), result.RoleBinding.GetLabels()))
	if !reflect.DeepEqual(result.RoleBinding.GetLabels(), existing.GetLabels()) {
		result.Operation = ReconcileUpdate
	}

	result.MissingSubjects, result.ExtraSubjects = diffSubjectLists(expected.GetSubjects(), existing.GetSubjects())

	switch {
	case !removeExtraSubjects && len(result.MissingSubjects) > 0:
		result.RoleBinding.SetSubjects(append(result.RoleBinding.GetSubjects(), result.MissingSubjects...))
		result.Operation = ReconcileUpdate
	case removeExtraSubjects && (len(result.MissingSubjects) > 0 || len(result.ExtraSubjects) > 0):
		result.RoleBinding.SetSubjects(expected.GetSubjects())
		result.Operation = ReconcileUpdate
	}
	return result, nil
}

func contains(list []rbacv1.Subject, item rbacv1.Subject) bool {
	for _, listItem := range list {
		if listItem == item {
			return true
		}
	}
	return false
}

// diffSubjectLists returns list1 - list2 and list2 - list1.
func diffSubjectLists(list1 []rbacv1.Subject, list2 []rbacv1.Subject) (list1Only []rbacv1.Subject, list2Only []rbacv1.Subject) {
	for _, list1Item := range list1 {
		if !contains(list2, list1Item) && !contains(list1Only, list1Item) {
			list1Only = append(list1Only, list1Item)
		}
	}
	for _, list2Item := range list2 {
		if !contains(list1, list2Item) && !contains(list2Only, list2Item) {
			list2Only = append(list2Only, list2Item)
		}
	}
	return
}
