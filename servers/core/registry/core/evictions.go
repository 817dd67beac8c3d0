package core

// pods/eviction: `kubectl drain` and the Eviction API. An eviction deletes the pod unless a
// PodDisruptionBudget that selects it has no disruption left, in which case it answers 429
// TooManyRequests and the client tries again later. Before the pod goes, the budget spends one
// disruption and names the pod in status.disruptedPods (so that the disruption controller does not
// count it as available any more), and the pod gets the DisruptionTarget condition.
//
// kube-apiserver reads and writes the budgets through a loopback client. The chain gives the
// eviction its own storage of them instead, from the policy group's Definition (same strategy,
// same validation), without a watch cache, so that a budget is always read as etcd has it.

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/internal/etcdstorage"
	"github.com/apichain/apichain/servers/core/registry/policy"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/policy"
)

var evictionKind = policyv1.SchemeGroupVersion.WithKind("Eviction")

// conflictRetry is how hard an eviction tries when the pod or the budget keeps changing under
// it: twenty times, half a second apart.
var conflictRetry = wait.Backoff{Steps: 20, Duration: 500 * time.Millisecond, Factor: 1, Jitter: 0.1}

// evictionREST serves pods/eviction.
type evictionREST struct {
	pods      *genericregistry.Store
	podStatus *resource.SubresourceREST // the DisruptionTarget condition is a status update
	budgets   *resource.Storage
}

var (
	_ rest.NamedCreater             = &evictionREST{}
	_ rest.GroupVersionKindProvider = &evictionREST{}
	_ rest.GroupVersionAcceptor     = &evictionREST{}
)

func newEvictionREST(pods *resource.Storage, scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*evictionREST, error) {
	budgets, err := resource.NewStorage(policy.PodDisruptionBudgets, policyv1.SchemeGroupVersion, scheme, etcdstorage.Uncached(optsGetter))
	if err != nil {
		return nil, fmt.Errorf("poddisruptionbudgets for pods/eviction: %w", err)
	}
	return &evictionREST{pods: pods.Store, podStatus: pods.Status, budgets: budgets}, nil
}

func (r *evictionREST) New() runtime.Object { return &policyv1.Eviction{} }

// Destroy closes the eviction's own storage of budgets.
func (r *evictionREST) Destroy() { r.budgets.Destroy() }

func (r *evictionREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return evictionKind
}

// AcceptsGroupVersion: only policy/v1 Evictions (the chain does not serve policy/v1beta1).
func (r *evictionREST) AcceptsGroupVersion(gv schema.GroupVersion) bool {
	return gv == policyv1.SchemeGroupVersion
}

// Create evicts the pod called name.
func (r *evictionREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	eviction, ok := obj.(*policyv1.Eviction)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected an Eviction, got %T", obj))
	}
	if eviction.Name != name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if errs := validation.ValidateEviction(eviction); len(errs) > 0 {
		return nil, apierrors.NewInvalid(evictionKind.GroupKind(), name, errs)
	}
	deleteOptions, err := mergeDryRun(eviction, options)
	if err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, eviction.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	// A client that pins the pod's resourceVersion wants to fail rather than evict a pod that
	// changed; without a pin, the eviction pins versions itself and retries on conflicts.
	clientPinned := deleteOptions.Preconditions != nil && deleteOptions.Preconditions.ResourceVersion != nil
	retryable := apierrors.IsConflict
	if clientPinned {
		retryable = func(error) bool { return false }
	}

	// A pod that is pending, finished or already going disrupts nothing: it goes at once.
	var pod *corev1.Pod
	evicted := false
	err = retry.OnError(conflictRetry, retryable, func() error {
		obj, err := r.pods.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		pod = obj.(*corev1.Pod)
		if !budgetsIgnore(pod) {
			return nil
		}
		opts := deleteOptions
		if !finishedOrGoing(pod) && !clientPinned {
			// Pending now: make sure it is still the pending pod we saw when it goes.
			opts = pinnedTo(deleteOptions, pod.ResourceVersion)
		}
		if err := r.markAndDelete(ctx, name, opts); err != nil {
			return err
		}
		evicted = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if evicted {
		return success(), nil
	}

	budgets, err := r.budgetsSelecting(ctx, pod)
	if err != nil {
		return nil, err
	}
	switch len(budgets) {
	case 0:
		return r.deleteAnswer(ctx, name, deleteOptions)
	case 1:
	default:
		return &metav1.Status{Status: metav1.StatusFailure, Code: 500,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}, nil
	}
	budget := &budgets[0]

	if !podReady(pod) && unhealthyMayGo(budget) {
		// An unready pod is not counted as healthy by its budget: deleting it takes nothing
		// from the budget, as long as it does not become ready in the meantime.
		// (kube-apiserver pins the version it read even over the client's own pin.)
		err := r.markAndDelete(ctx, name, pinnedTo(deleteOptions, pod.ResourceVersion))
		if apierrors.IsConflict(err) && !clientPinned {
			return nil, budgetTooManyRequests(10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", budget.Name))
		}
		if err != nil {
			return nil, err
		}
		return success(), nil
	}

	if err := r.spendDisruption(ctx, pod.Name, budget, dryrun.IsDryRun(deleteOptions.DryRun)); err != nil {
		return nil, err
	}
	return r.deleteAnswer(ctx, name, deleteOptions)
}

func (r *evictionREST) deleteAnswer(ctx context.Context, name string, options *metav1.DeleteOptions) (runtime.Object, error) {
	if err := r.markAndDelete(ctx, name, options); err != nil {
		return nil, err
	}
	return success(), nil
}

func success() *metav1.Status { return &metav1.Status{Status: metav1.StatusSuccess} }

// mergeDryRun returns the delete options of the eviction, with the request's dryRun when the
// eviction names none; the two may not name different ones.
func mergeDryRun(eviction *policyv1.Eviction, options *metav1.CreateOptions) (*metav1.DeleteOptions, error) {
	opts := eviction.DeleteOptions
	if opts == nil {
		return &metav1.DeleteOptions{DryRun: options.DryRun}, nil
	}
	switch {
	case len(opts.DryRun) == 0:
		opts.DryRun = options.DryRun
	case len(options.DryRun) > 0 && fmt.Sprint(opts.DryRun) != fmt.Sprint(options.DryRun):
		return nil, fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", options.DryRun, opts.DryRun)
	}
	return opts, nil
}

// pinnedTo returns a copy of options that deletes the pod only at resourceVersion.
func pinnedTo(options *metav1.DeleteOptions, resourceVersion string) *metav1.DeleteOptions {
	pinned := options.DeepCopy()
	if pinned.Preconditions == nil {
		pinned.Preconditions = &metav1.Preconditions{}
	}
	pinned.Preconditions.ResourceVersion = &resourceVersion
	return pinned
}

// budgetsIgnore: budgets protect running pods only.
func budgetsIgnore(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodPending || finishedOrGoing(pod)
}

func finishedOrGoing(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// unhealthyMayGo tells whether the budget lets an unready pod go without spending a
// disruption: when its policy says so (AlwaysAllow), or, by default (IfHealthyBudget), when the
// application it guards is healthy enough without the pod.
func unhealthyMayGo(budget *policyv1.PodDisruptionBudget) bool {
	if ptr.Deref(budget.Spec.UnhealthyPodEvictionPolicy, policyv1.IfHealthyBudget) == policyv1.AlwaysAllow {
		return true
	}
	return budget.Status.DesiredHealthy > 0 && budget.Status.CurrentHealthy >= budget.Status.DesiredHealthy
}

// markAndDelete gives the pod the DisruptionTarget condition and deletes it; a dry run does
// neither.
func (r *evictionREST) markAndDelete(ctx context.Context, name string, options *metav1.DeleteOptions) error {
	if !dryrun.IsDryRun(options.DryRun) {
		updated, _, err := r.podStatus.Update(ctx, name, rest.DefaultUpdatedObjectInfo(nil, markDisruptionTarget(options.Preconditions)),
			rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if options.Preconditions != nil && options.Preconditions.ResourceVersion != nil {
			// The condition changed the pod: the delete must expect the new version.
			options = pinnedTo(options, updated.(*corev1.Pod).ResourceVersion)
		}
	}
	_, _, err := r.pods.Delete(ctx, name, rest.ValidateAllObjectFunc, options)
	return err
}

// markDisruptionTarget adds the DisruptionTarget condition to the stored pod, if it still is the
// pod the preconditions describe.
func markDisruptionTarget(pre *metav1.Preconditions) rest.TransformFunc {
	return func(_ context.Context, _, stored runtime.Object) (runtime.Object, error) {
		pod := stored.(*corev1.Pod).DeepCopy()
		podResource := schema.GroupResource{Resource: "Pod"}
		if pre != nil && pre.UID != nil && *pre.UID != "" && *pre.UID != pod.UID {
			return nil, apierrors.NewConflict(podResource, pod.Name, fmt.Errorf(
				"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, pod.UID))
		}
		if pre != nil && pre.ResourceVersion != nil && *pre.ResourceVersion != "" && *pre.ResourceVersion != pod.ResourceVersion {
			return nil, apierrors.NewConflict(podResource, pod.Name, fmt.Errorf(
				"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, pod.ResourceVersion))
		}
		setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
		return pod, nil
	}
}

// budgetsSelecting lists the budgets of the pod's namespace whose selector matches the pod.
func (r *evictionREST) budgetsSelecting(ctx context.Context, pod *corev1.Pod) ([]policyv1.PodDisruptionBudget, error) {
	list, err := r.budgets.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	var selecting []policyv1.PodDisruptionBudget
	for _, b := range list.(*policyv1.PodDisruptionBudgetList).Items {
		if b.Namespace != pod.Namespace {
			continue
		}
		// A budget whose selector does not parse selects nothing.
		if sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector); err == nil && sel.Matches(labels.Set(pod.Labels)) {
			selecting = append(selecting, b)
		}
	}
	return selecting, nil
}
