package deployment

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The reasons of the Progressing condition, kube's; kubectl rollout status reads
// ProgressDeadlineExceeded.
const (
	reasonNewRSCreated      = "NewReplicaSetCreated"
	reasonFoundNewRS        = "FoundNewReplicaSet"
	reasonRSUpdated         = "ReplicaSetUpdated"
	reasonNewRSAvailable    = "NewReplicaSetAvailable"
	reasonTimedOut          = "ProgressDeadlineExceeded"
	reasonPaused            = "DeploymentPaused"
	reasonResumed           = "DeploymentResumed"
	reasonMinimumAvailable  = "MinimumReplicasAvailable"
	reasonMinimumUnavailabe = "MinimumReplicasUnavailable"
)

// status counts the pods of the rollout's ReplicaSets, as their own statuses report them.
func status(r *rollout) appsv1.DeploymentStatus {
	st := appsv1.DeploymentStatus{ObservedGeneration: r.d.Generation, CollisionCount: r.d.Status.CollisionCount}
	var terminating int32
	for _, rs := range r.all() {
		st.Replicas += rs.Status.Replicas
		st.ReadyReplicas += rs.Status.ReadyReplicas
		st.AvailableReplicas += rs.Status.AvailableReplicas
		terminating += ptr.Deref(rs.Status.TerminatingReplicas, 0)
	}
	st.TerminatingReplicas = &terminating
	if r.new != nil {
		st.UpdatedReplicas = r.new.Status.Replicas
	}
	// kube counts the pods asked for that are not available.
	st.UnavailableReplicas = max(0, specTotal(r.all())-st.AvailableReplicas)
	return st
}

// complete: every pod asked for runs the Deployment's template and is available, and no old
// pod is left.
func complete(d *appsv1.Deployment, st appsv1.DeploymentStatus) bool {
	desired := ptr.Deref(d.Spec.Replicas, 1)
	return st.UpdatedReplicas == desired && st.Replicas == desired && st.AvailableReplicas == desired &&
		st.ObservedGeneration >= d.Generation
}

// report writes the Deployment's status: the counts, and the conditions they call for.
func (c *Controller) report(ctx context.Context, r *rollout, now time.Time) error {
	d := r.d
	st := status(r)
	st.Conditions = slices.Clone(d.Status.Conditions)
	desired := ptr.Deref(d.Spec.Replicas, 1)
	_, unavailable := limits(d)

	if st.AvailableReplicas >= desired-unavailable {
		setCondition(&st, appsv1.DeploymentAvailable, corev1.ConditionTrue, reasonMinimumAvailable, "Deployment has minimum availability.", now, false)
	} else {
		setCondition(&st, appsv1.DeploymentAvailable, corev1.ConditionFalse, reasonMinimumUnavailabe, "Deployment does not have minimum availability.", now, false)
	}
	wait := progress(r, &st, now)

	// The new ReplicaSet's failure to create pods (a quota, an admission webhook) is the
	// Deployment's.
	st.Conditions = slices.DeleteFunc(st.Conditions, func(c appsv1.DeploymentCondition) bool { return c.Type == appsv1.DeploymentReplicaFailure })
	for _, rs := range append([]*appsv1.ReplicaSet{r.new}, r.old...) {
		if rs == nil {
			continue
		}
		if i := slices.IndexFunc(rs.Status.Conditions, func(c appsv1.ReplicaSetCondition) bool { return c.Type == appsv1.ReplicaSetReplicaFailure }); i >= 0 {
			f := rs.Status.Conditions[i]
			setCondition(&st, appsv1.DeploymentReplicaFailure, f.Status, f.Reason, f.Message, f.LastTransitionTime.Time, false)
			break
		}
	}

	if err := c.writeStatus(ctx, d, &st); err != nil {
		return err
	}
	if wait > 0 {
		c.queue.AddAfter(d.Namespace+"/"+d.Name, wait)
	}
	return nil
}

// progress sets the Progressing condition: paused or resumed; the new ReplicaSet created or
// found; progressing while pods move (which pushes the deadline back); done when complete;
// ProgressDeadlineExceeded when nothing moved for progressDeadlineSeconds. It returns how long
// until that deadline, when one runs.
func progress(r *rollout, st *appsv1.DeploymentStatus, now time.Time) time.Duration {
	d := r.d
	cur := condition(st.Conditions, appsv1.DeploymentProgressing)
	name := ""
	if r.new != nil {
		name = r.new.Name
	}
	switch {
	case d.Spec.Paused:
		if cur == nil || cur.Reason != reasonPaused {
			setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonPaused, "Deployment is paused", now, false)
		}
		return 0
	case cur != nil && cur.Reason == reasonPaused:
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonResumed, "Deployment is resumed", now, false)
	case d.DeletionTimestamp != nil || r.new == nil:
		return 0
	}

	old := d.Status
	switch {
	case r.created:
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonNewRSCreated, fmt.Sprintf("Created new replica set %q", name), now, true)
	case complete(d, *st):
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonNewRSAvailable, fmt.Sprintf("ReplicaSet %q has successfully progressed.", name), now, false)
		return 0
	case st.UpdatedReplicas > old.UpdatedReplicas || st.ReadyReplicas > old.ReadyReplicas || st.AvailableReplicas > old.AvailableReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas:
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonRSUpdated, fmt.Sprintf("ReplicaSet %q is progressing.", name), now, true)
	case cur == nil:
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonFoundNewRS, fmt.Sprintf("Found new replica set %q", name), now, true)
	}

	cur = condition(st.Conditions, appsv1.DeploymentProgressing)
	seconds := d.Spec.ProgressDeadlineSeconds
	if seconds == nil || cur == nil || cur.Reason == reasonTimedOut || cur.Reason == reasonNewRSAvailable {
		return 0
	}
	deadline := cur.LastUpdateTime.Add(time.Duration(*seconds) * time.Second)
	if now.Before(deadline) {
		return deadline.Sub(now) + time.Second
	}
	setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionFalse, reasonTimedOut, fmt.Sprintf("ReplicaSet %q has timed out progressing.", name), now, false)
	return 0
}

func condition(conds []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	if i := slices.IndexFunc(conds, func(c appsv1.DeploymentCondition) bool { return c.Type == t }); i >= 0 {
		return &conds[i]
	}
	return nil
}

// setCondition sets the condition of type t. A condition that changes moves to the end of the
// list, as kube's do; its transition time moves only when its status does. touch updates the
// time of an unchanged condition: progress pushes the deadline back.
func setCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time, touch bool) {
	c := appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: message,
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
	if cur := condition(st.Conditions, t); cur != nil {
		if cur.Status == status && cur.Reason == reason && cur.Message == message && !touch {
			return
		}
		if cur.Status == status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
	}
	st.Conditions = append(slices.DeleteFunc(st.Conditions, func(c appsv1.DeploymentCondition) bool { return c.Type == t }), c)
}

func (c *Controller) writeStatus(ctx context.Context, d *appsv1.Deployment, st *appsv1.DeploymentStatus) error {
	if apiequality.Semantic.DeepEqual(d.Status, *st) {
		return nil
	}
	d = d.DeepCopy()
	d.Status = *st
	if _, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: Name}); err != nil {
		return fmt.Errorf("updating the status of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}
