package authorization

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// selfSubjectRulesReview answers `kubectl auth can-i --list`: what the rule resolver (RBAC)
// lets the requesting user do in spec.namespace. The answer carries the status only. Without a
// resolver, or when it could not read every rule, the status says it is incomplete.
func selfSubjectRulesReview(resolver authorizer.RuleResolver) func(context.Context, runtime.Object) error {
	return func(ctx context.Context, obj runtime.Object) error {
		ssrr, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
		}
		u, ok := genericapirequest.UserFrom(ctx)
		if !ok {
			return apierrors.NewBadRequest("no user present on request")
		}
		namespace := ssrr.Spec.Namespace
		if namespace == "" {
			return apierrors.NewBadRequest("no namespace on request")
		}
		*ssrr = authorizationv1.SelfSubjectRulesReview{Status: authorizationv1.SubjectRulesReviewStatus{Incomplete: true}}
		if resolver == nil {
			return nil
		}

		resourceRules, nonResourceRules, incomplete, err := resolver.RulesFor(ctx, u, namespace)
		status := &ssrr.Status
		status.Incomplete = incomplete
		status.ResourceRules = make([]authorizationv1.ResourceRule, 0, len(resourceRules))
		for _, r := range resourceRules {
			status.ResourceRules = append(status.ResourceRules, authorizationv1.ResourceRule{
				Verbs: r.GetVerbs(), APIGroups: r.GetAPIGroups(), Resources: r.GetResources(), ResourceNames: r.GetResourceNames(),
			})
		}
		status.NonResourceRules = make([]authorizationv1.NonResourceRule, 0, len(nonResourceRules))
		for _, r := range nonResourceRules {
			status.NonResourceRules = append(status.NonResourceRules, authorizationv1.NonResourceRule{
				Verbs: r.GetVerbs(), NonResourceURLs: r.GetNonResourceURLs(),
			})
		}
		if err != nil {
			status.EvaluationError = err.Error()
		}
		return nil
	}
}
