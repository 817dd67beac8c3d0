// Package policy is the policy API group of the Core server, following kubernetes
// pkg/registry/policy: poddisruptionbudgets (with status) in policy/v1. The Eviction type of
// the group is served as the pods/eviction subresource of the core group (registry/core).
package policy

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/policy"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{PodDisruptionBudgets}

// Group is the policy group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: policyv1.SchemeGroupVersion, AddTypes: policyv1.AddToScheme, Definitions: definitions}
}

// PodDisruptionBudgets follows pkg/registry/policy/poddisruptionbudget. The eviction subresource
// of pods reads and updates budgets through it.
var PodDisruptionBudgets = &resource.Definition{
	Resource: "poddisruptionbudgets", Singular: "poddisruptionbudget", Namespaced: true,
	New:        func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
	NewList:    func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
	ShortNames: []string{"pdb"},
	Table:      printers.PodDisruptionBudget,
	Status:     true,
	Generation: true,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		dropDisabledFields(obj.(*policyv1.PodDisruptionBudget), nil)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		dropDisabledFields(obj.(*policyv1.PodDisruptionBudget), old.(*policyv1.PodDisruptionBudget))
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*policyv1.PodDisruptionBudget).Spec = old.(*policyv1.PodDisruptionBudget).Spec
	},
	// Status updates should only be allowed if the version matches.
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidatePodDisruptionBudget),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidatePodDisruptionBudgetUpdate),
	ValidateStatusUpdate:   resource.CheckUpdate(validation.ValidatePodDisruptionBudgetStatusUpdate),
}

// pdbV1beta1Label marks the selectors that policy/v1beta1 uses for "match all" and "match
// none" (pkg/apis/policy/helper.go).
const pdbV1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

var nonV1beta1MatchNoneSelector = &metav1.LabelSelector{
	MatchExpressions: []metav1.LabelSelectorRequirement{{Key: pdbV1beta1Label, Operator: metav1.LabelSelectorOpExists}},
}

// dropDisabledFields is the strategy's: unless the selector is unchanged or one of the special
// match-all/match-none selectors, the label intended for them never gets combined with
// user-specified fields.
func dropDisabledFields(pdb, oldPDB *policyv1.PodDisruptionBudget) {
	if oldPDB != nil && apiequality.Semantic.DeepEqual(oldPDB.Spec.Selector, pdb.Spec.Selector) {
		return
	}
	switch {
	case apiequality.Semantic.DeepEqual(pdb.Spec.Selector, nonV1beta1MatchNoneSelector):
	case apiequality.Semantic.DeepEqual(pdb.Spec.Selector, &metav1.LabelSelector{}):
	case pdb.Spec.Selector != nil:
		trimmed := pdb.Spec.Selector.MatchExpressions[:0]
		for _, exp := range pdb.Spec.Selector.MatchExpressions {
			if exp.Key != pdbV1beta1Label {
				trimmed = append(trimmed, exp)
			}
		}
		pdb.Spec.Selector.MatchExpressions = trimmed
	}
}
