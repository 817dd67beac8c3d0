package reconciliation

// Ported from k8s.io/component-helpers v0.37.2 auth/rbac/reconciliation/reconcile_role.go.

import (
	"context"
	"fmt"
	"reflect"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/internal/rbac"
)

// ReconcileOperation is what reconciliation did, or would do.
type ReconcileOperation string

// The operations.
var (
	ReconcileCreate   ReconcileOperation = "create"
	ReconcileUpdate   ReconcileOperation = "update"
	ReconcileRecreate ReconcileOperation = "recreate"
	ReconcileNone     ReconcileOperation = "none"
)

// RuleOwnerModifier reads and writes Roles or ClusterRoles.
type RuleOwnerModifier interface {
	Get(ctx context.Context, namespace, name string) (RuleOwner, error)
	Create(ctx context.Context, owner RuleOwner) (RuleOwner, error)
	Update(ctx context.Context, owner RuleOwner) (RuleOwner, error)
}

// RuleOwner is a Role or a ClusterRole.
type RuleOwner interface {
	GetObject() runtime.Object
	GetNamespace() string
	GetName() string
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
	GetRules() []rbacv1.PolicyRule
	SetRules([]rbacv1.PolicyRule)
	GetAggregationRule() *rbacv1.AggregationRule
	SetAggregationRule(*rbacv1.AggregationRule)
	DeepCopyRuleOwner() RuleOwner
}

// ReconcileRoleOptions says what to reconcile and how.
type ReconcileRoleOptions struct {
	// Role is the expected role.
	Role RuleOwner
	// Confirm writes; without it the result is a dry run.
	Confirm bool
	// RemoveExtraPermissions removes rules the expected role does not have.
	RemoveExtraPermissions bool
	// Client reads and writes the stored role.
	Client RuleOwnerModifier
}

// ReconcileClusterRoleResult is what reconciliation found and did.
type ReconcileClusterRoleResult struct {
	// Role is the reconciled role (not persisted in a dry run or when protected).
	Role RuleOwner

	// MissingRules were expected and not in the stored role; ExtraRules the reverse.
	MissingRules []rbacv1.PolicyRule
	ExtraRules   []rbacv1.PolicyRule

	// MissingAggregationRuleSelectors were expected and not stored; Extra the reverse.
	MissingAggregationRuleSelectors []metav1.LabelSelector
	ExtraAggregationRuleSelectors   []metav1.LabelSelector

	// Operation is what was needed (and done unless a dry run or Protected).
	Operation ReconcileOperation
	// Protected means the stored role opted out (autoupdate=false).
	Protected bool
}

// Run reconciles.
func (o *ReconcileRoleOptions) Run(ctx context.Context) (*ReconcileClusterRoleResult, error) {
	return o.run(ctx, 0)
}

func (o *ReconcileRoleOptions) run(ctx context.Context, attempts int) (*ReconcileClusterRoleResult, error) {
	// Do not retry forever if a role keeps appearing and disappearing; conflicts on update are
	// the caller's to retry.
	if attempts > 2 {
		return nil, fmt.Errorf("exceeded maximum attempts")
	}

	var result *ReconcileClusterRoleResult
	existing, err := o.Client.Get(ctx, o.Role.GetNamespace(), o.Role.GetName())
	switch {
	case errors.IsNotFound(err):
		aggregationRule := o.Role.GetAggregationRule()
		if aggregationRule == nil {
			aggregationRule = &rbacv1.AggregationRule{}
		}
		result = &ReconcileClusterRoleResult{
			Role:                            o.Role,
			MissingRules:                    o.Role.GetRules(),
			MissingAggregationRuleSelectors: aggregationRule.ClusterRoleSelectors,
			Operation:                       ReconcileCreate,
		}
	case err != nil:
		return nil, err
	default:
		result, err = computeReconciledRole(existing, o.Role, o.RemoveExtraPermissions)
		if err != nil {
			return nil, err
		}
	}

	if result.Protected || !o.Confirm {
		return result, nil
	}

	switch result.Operation {
	case ReconcileCreate:
		created, err := o.Client.Create(ctx, result.Role)
		if errors.IsAlreadyExists(err) {
			return o.run(ctx, attempts+1)
		}
		if err != nil {
			return nil, err
		}
		result.Role = created
	case ReconcileUpdate:
		updated, err := o.Client.Update(ctx, result.Role)
		if errors.IsNotFound(err) {
			return o.run(ctx, attempts+1)
		}
		if err != nil {
			return nil, err
		}
		result.Role = updated
	case ReconcileNone:
	default:
		return nil, fmt.Errorf("invalid operation: %v", result.Operation)
	}
	return result, nil
}

// computeReconciledRole returns the role that makes existing's permissions match expected's.
func computeReconciledRole(existing, expected RuleOwner, removeExtraPermissions bool) (*ReconcileClusterRoleResult, error) {
	result := &ReconcileClusterRoleResult{Operation: ReconcileNone}

	result.Protected = existing.GetAnnotations()[rbacv1.AutoUpdateAnnotationKey] == "false"

	result.Role = existing.DeepCopyRuleOwner()

	// Expected labels and annotations are added; existing values win.
	result.Role.SetAnnotations(merge(expected.GetAnnotations(), result.Role.GetAnnotations()))
	if !reflect.DeepEqual(result.Role.GetAnnotations(), existing.GetAnnotations()) {
		result.Operation = ReconcileUpdate
	}
	result.Role.SetLabels(merge(expected.GetLabels(), result.Role.GetLabels()))
	if !reflect.DeepEqual(result.Role.GetLabels(), existing.GetLabels()) {
		result.Operation = ReconcileUpdate
	}

	// Extra permissions do not count when both roles are aggregated.
	if expected.GetAggregationRule() == nil || existing.GetAggregationRule() == nil {
		_, result.ExtraRules = rbac.Covers(expected.GetRules(), existing.GetRules())
	}
	_, result.MissingRules = rbac.Covers(existing.GetRules(), expected.GetRules())

	switch {
	case !removeExtraPermissions && len(result.MissingRules) > 0:
		result.Role.SetRules(append(result.Role.GetRules(), result.MissingRules...))
		result.Operation = ReconcileUpdate
	case removeExtraPermissions && (len(result.MissingRules) > 0 || len(result.ExtraRules) > 0):
		result.Role.SetRules(expected.GetRules())
		result.Operation = ReconcileUpdate
	}

	_, result.ExtraAggregationRuleSelectors = aggregationRuleCovers(expected.GetAggregationRule(), existing.GetAggregationRule())
	_, result.MissingAggregationRuleSelectors = aggregationRuleCovers(existing.GetAggregationRule(), expected.GetAggregationRule())

	switch {
	case expected.GetAggregationRule() == nil && existing.GetAggregationRule() != nil:
		// Not expected to be aggregated at all.
		result.Role.SetAggregationRule(nil)
		result.Operation = ReconcileUpdate
	case !removeExtraPermissions && len(result.MissingAggregationRuleSelectors) > 0:
		aggregationRule := result.Role.GetAggregationRule()
		if aggregationRule == nil {
			aggregationRule = &rbacv1.AggregationRule{}
		}
		aggregationRule.ClusterRoleSelectors = append(aggregationRule.ClusterRoleSelectors, result.MissingAggregationRuleSelectors...)
		result.Role.SetAggregationRule(aggregationRule)
		result.Operation = ReconcileUpdate
	case removeExtraPermissions && (len(result.MissingAggregationRuleSelectors) > 0 || len(result.ExtraAggregationRuleSelectors) > 0):
		result.Role.SetAggregationRule(expected.GetAggregationRule())
		result.Operation = ReconcileUpdate
	}
	return result, nil
}

// merge combines maps, later ones winning.
func merge(maps ...map[string]string) map[string]string {
	var output map[string]string
	for _, m := range maps {
		if m != nil && output == nil {
			output = map[string]string{}
		}
		for k, v := range m {
			output[k] = v
		}
	}
	return output
}

// aggregationRuleCovers reports whether ownerRule has every selector of servantRule, and
// returns those it lacks.
func aggregationRuleCovers(ownerRule, servantRule *rbacv1.AggregationRule) (bool, []metav1.LabelSelector) {
	switch {
	case ownerRule == nil && servantRule == nil:
		return true, []metav1.LabelSelector{}
	case ownerRule == nil && servantRule != nil:
		return false, servantRule.ClusterRoleSelectors
	case ownerRule != nil && servantRule == nil:
		return true, []metav1.LabelSelector{}
	}
	uncoveredSelectors := []metav1.LabelSelector{}
	for _, servantSelector := range servantRule.ClusterRoleSelectors {
		covered := false
		for _, ownerSelector := range ownerRule.ClusterRoleSelectors {
			if equality.Semantic.DeepEqual(ownerSelector, servantSelector) {
				covered = true
				break
			}
		}
		if !covered {
			uncoveredSelectors = append(uncoveredSelectors, servantSelector)
		}
	}
	return len(uncoveredSelectors) == 0, uncoveredSelectors
}
