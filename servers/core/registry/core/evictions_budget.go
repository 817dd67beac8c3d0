package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/util/retry"
)

// maxUnconfirmedEvictions bounds status.disruptedPods: past it, the disruption controller has
// fallen behind on the evictions already allowed, and the budget allows no more.
const maxUnconfirmedEvictions = 2000

// spendDisruption takes one disruption from the budget for the pod, or says why it cannot. On a
// conflict it reads the budget again and retries; a dry run only checks.
func (r *evictionREST) spendDisruption(ctx context.Context, podName string, budget *policyv1.PodDisruptionBudget, dryRun bool) error {
	first := true
	err := retry.RetryOnConflict(conflictRetry, func() error {
		if !first {
			obj, err := r.budgets.Get(ctx, budget.Name, &metav1.GetOptions{})
			if err != nil {
				return err
			}
			budget = obj.(*policyv1.PodDisruptionBudget)
		}
		first = false

		b := budget.DeepCopy()
		if err := refusal(b); err != nil {
			return err
		}
		b.Status.DisruptionsAllowed--
		if b.Status.DisruptionsAllowed == 0 {
			meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{
				Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
				Reason: policyv1.InsufficientPodsReason, ObservedGeneration: b.Status.ObservedGeneration,
			})
		}
		if dryRun {
			return nil
		}
		if b.Status.DisruptedPods == nil {
			b.Status.DisruptedPods = map[string]metav1.Time{}
		}
		b.Status.DisruptedPods[podName] = metav1.NewTime(time.Now())
		_, _, err := r.budgets.Status.Update(asBudgetStatusWrite(ctx, b), b.Name, rest.DefaultUpdatedObjectInfo(b),
			rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		return err
	})
	if wait.Interrupted(err) {
		return apierrors.NewTimeoutError(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", budget.Name), 10)
	}
	return err
}

// asBudgetStatusWrite gives ctx the RequestInfo of a write of b's status. kube-apiserver writes
// the budget through a client, a request of its own; the declarative validation of the write
// reads the group, version and subresource from that RequestInfo, and the eviction's own (pods,
// v1, eviction) would have the budget converted to v1.
func asBudgetStatusWrite(ctx context.Context, b *policyv1.PodDisruptionBudget) context.Context {
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "update",
		APIGroup: policyv1.GroupName, APIVersion: "v1", Namespace: b.Namespace, Resource: "poddisruptionbudgets", Subresource: "status", Name: b.Name})
}

// refusal is why the budget allows no disruption now, or nil when it allows one.
func refusal(b *policyv1.PodDisruptionBudget) error {
	currently := fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", b.Name)
	forbidden := func(reason, detail string) error {
		err := apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), b.Name, errors.New(reason))
		return withBudgetCause(err, currently+": "+detail)
	}
	switch s := b.Status; {
	case s.ObservedGeneration < b.Generation:
		// The disruption controller has not seen the budget's spec yet.
		return budgetTooManyRequests(10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", b.Name))
	case s.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	case len(s.DisruptedPods) > maxUnconfirmedEvictions:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller",
			"too many pending evictions not confirmed by PDB controller")
	case s.DisruptionsAllowed == 0:
		return budgetTooManyRequests(0, exhaustedBecause(b, currently))
	}
	return nil
}

// exhaustedBecause says why a budget has no disruption left, as precisely as its status tells.
func exhaustedBecause(b *policyv1.PodDisruptionBudget, currently string) string {
	c := meta.FindStatusCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition)
	explained := c != nil && c.Status == metav1.ConditionFalse && c.Message != ""
	switch {
	case explained && c.Reason == policyv1.SyncFailedReason:
		// The healthy counts are not to be trusted when the controller could not sync.
		return fmt.Sprintf("%s because it failed sync: %s", currently, c.Message)
	case b.Status.CurrentHealthy <= b.Status.DesiredHealthy:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy)
	case explained:
		return fmt.Sprintf("%s (%s): %s", currently, c.Reason, c.Message)
	}
	return currently
}

// budgetTooManyRequests is the 429 of an eviction that a budget holds back, with the budget's
// reason as a DisruptionBudget cause.
func budgetTooManyRequests(retryAfterSeconds int, cause string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", retryAfterSeconds)
	return withBudgetCause(err, cause)
}

func withBudgetCause(err *apierrors.StatusError, message string) error {
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: message})
	return err
}
