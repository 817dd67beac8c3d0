package replicaset

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// sync brings the pods of the object at key to its replicas, and reports them in its status.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	rs, err := c.sets.get(namespace, name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key) // gone: the garbage collector takes its pods
		return nil
	}
	if err != nil {
		return err
	}
	selector := workload.Selector(rs.Spec.Selector)
	if selector == nil {
		return nil // validation refuses such a selector: nothing to select pods with
	}
	all, err := c.pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	pods, err := workload.Claim(ctx, c.owner(rs, selector), all)
	if err != nil {
		return err
	}
	active := slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool { return !workload.IsActive(p) })

	// Only on a cache that shows our last writes: otherwise pods we created would be missed
	// and created again.
	var scaleErr error
	if rs.DeletionTimestamp == nil && c.expect.Satisfied(key) {
		scaleErr = c.scale(ctx, key, rs, active)
	}
	now := time.Now()
	st, wait := status(rs, pods, active, scaleErr, now)
	if err := c.sets.updateStatus(ctx, rs, st); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating the status of %s %s: %w", c.kind.Kind, key, err)
	}
	if scaleErr != nil {
		return scaleErr
	}
	if wait > 0 { // a ready pod becomes available then
		c.queue.AddAfter(key, wait)
	}
	return nil
}

// scale creates or deletes pods so that rs has as many active ones as it asks for.
func (c *Controller) scale(ctx context.Context, key string, rs *appsv1.ReplicaSet, active []*corev1.Pod) error {
	owner := c.owner(rs, nil)
	diff := len(active) - int(ptr.Deref(rs.Spec.Replicas, 1))
	switch {
	case diff < 0:
		return c.podControl.Create(ctx, key, owner, min(-diff, workload.MaxBurst), func(int) *corev1.Pod {
			return workload.NewPod(owner, &rs.Spec.Template)
		})
	case diff > 0:
		victims := slices.Clone(active)
		slices.SortFunc(victims, workload.DeleteFirst)
		return c.podControl.Delete(ctx, key, owner, victims[:min(diff, workload.MaxBurst)])
	}
	return nil
}

// status is what rs reports of its pods at now; wait, when not zero, is how long until one of
// its ready pods becomes available.
func status(rs *appsv1.ReplicaSet, pods, active []*corev1.Pod, scaleErr error, now time.Time) (st appsv1.ReplicaSetStatus, wait time.Duration) {
	st = appsv1.ReplicaSetStatus{
		Replicas:            int32(len(active)),
		ObservedGeneration:  rs.Generation,
		TerminatingReplicas: ptr.To[int32](0),
		Conditions:          slices.Clone(rs.Status.Conditions),
	}
	templateLabels := labels.SelectorFromSet(rs.Spec.Template.Labels)
	for _, p := range active {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			st.FullyLabeledReplicas++
		}
		if workload.IsReady(p) {
			st.ReadyReplicas++
		}
		ok, after := workload.Available(p, rs.Spec.MinReadySeconds, now)
		switch {
		case ok:
			st.AvailableReplicas++
		case after > 0 && (wait == 0 || after < wait):
			wait = after
		}
	}
	for _, p := range pods {
		if workload.IsTerminating(p) {
			*st.TerminatingReplicas++
		}
	}

	// ReplicaFailure says why pods could not be created or deleted, until they can.
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c appsv1.ReplicaSetCondition) bool { return c.Type == appsv1.ReplicaSetReplicaFailure })
	if scaleErr != nil {
		reason := "FailedCreate"
		if len(active) > int(ptr.Deref(rs.Spec.Replicas, 1)) {
			reason = "FailedDelete"
		}
		failure := appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: reason, Message: scaleErr.Error(), LastTransitionTime: metav1.NewTime(now)}
		if i := slices.IndexFunc(rs.Status.Conditions, func(c appsv1.ReplicaSetCondition) bool { return c.Type == failure.Type }); i >= 0 {
			failure.LastTransitionTime = rs.Status.Conditions[i].LastTransitionTime
		}
		st.Conditions = append(st.Conditions, failure)
	}
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
	return st, wait
}
