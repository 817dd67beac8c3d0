package job

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// sync moves the Job at key one step toward its end, and reports where it is.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	all, err := c.pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	job, err := c.jobs.Jobs(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Gone: its pods have nothing left to be counted for.
		c.expect.Forget(key)
		return c.untrack(ctx, podsOfFormer(all, name, ""))
	}
	if err != nil {
		return err
	}
	if err := c.untrack(ctx, podsOfFormer(all, name, job.UID)); err != nil {
		return err
	}
	if m := job.Spec.ManagedBy; m != nil && *m != batchv1.JobControllerName {
		return nil // another controller runs it
	}
	selector := workload.Selector(job.Spec.Selector)
	if selector == nil {
		return nil // validation refuses such a selector: nothing to select pods with
	}
	pods, err := workload.Claim(ctx, c.owner(job, selector), all)
	if err != nil {
		return err
	}
	if finished(job.Status) || job.DeletionTimestamp != nil {
		return c.untrack(ctx, pods) // counted already, or never to be
	}
	return c.step(ctx, key, job, pods)
}

// step is one sync of a Job still running: count the pods that finished, decide whether the
// Job has met its end, create or delete pods, and report. When nothing runs any more after
// the end is met, the Job is Complete or Failed.
func (c *Controller) step(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod) error {
	now := time.Now()
	st := job.Status.DeepCopy()
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	done := parseIndexes(st.CompletedIndexes)
	// Pods counted by an earlier sync may still show the finalizer in the informer's cache.
	uncounted := slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool {
		_, counted := c.counted.Load(p.UID)
		return counted
	})
	finishing := recordFinished(job, st, done, uncounted)

	var active []*corev1.Pod
	var terminating int32
	for _, p := range pods {
		switch {
		case workload.IsActive(p):
			active = append(active, p)
		case workload.IsTerminating(p):
			terminating++
		}
	}

	suspend := ptr.Deref(job.Spec.Suspend, false)
	if !suspend && isTrue(st, batchv1.JobSuspended) {
		// Resumed: the deadline counts from now. startTime moves in the same write as the
		// condition (the API refuses to move it otherwise).
		setCondition(st, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", now)
		st.StartTime = nil
	}
	if !suspend && st.StartTime == nil {
		st.StartTime = &metav1.Time{Time: now}
	}
	if end := verdict(job, st, done, active, now); end != nil {
		setCondition(st, end.Type, corev1.ConditionTrue, end.Reason, end.Message, now)
	}
	var wait time.Duration
	var podErr error
	created, stopped := 0, 0 // pods created, and active pods deleted, now
	switch {
	case isTrue(st, batchv1.JobFailureTarget):
		stopped, podErr = c.stop(ctx, key, job, active, true)
	case isTrue(st, batchv1.JobSuccessCriteriaMet):
		stopped, podErr = c.stop(ctx, key, job, active, false)
	case suspend:
		if !isTrue(st, batchv1.JobSuspended) {
			setCondition(st, batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", now)
		}
		stopped, podErr = c.stop(ctx, key, job, active, false)
	default:
		created, stopped, wait, podErr = c.manage(ctx, key, job, st, done, active, pods, now)
	}
	ready := 0
	for _, p := range active {
		if workload.IsReady(p) {
			ready++
		}
	}
	st.Active = int32(len(active) - stopped + created)
	st.Ready = ptr.To(int32(min(ready, len(active)-stopped)))
	st.Terminating = ptr.To(terminating + int32(stopped))

	// Record the finished pods as uncounted, then let them go, then count them: a pod is
	// counted once, whatever fails in between.
	before := job.Status
	job, err := c.writeStatus(ctx, job, st)
	if err != nil {
		return err
	}
	if err := c.untrack(ctx, finishing); err != nil {
		return err
	}
	for _, p := range finishing {
		c.counted.Store(p.UID, struct{}{})
	}
	st = job.Status.DeepCopy()
	u := st.UncountedTerminatedPods
	st.Failed += int32(len(u.Failed))
	if isIndexed(job) {
		st.Succeeded = int32(done.Len())
	} else {
		st.Succeeded += int32(len(u.Succeeded))
	}
	st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	if st.Active == 0 && ptr.Deref(st.Terminating, 0) == 0 {
		finish(st, now)
	}
	if _, err := c.writeStatus(ctx, job, st); err != nil {
		return err
	}
	c.announce(job, &before, st)
	if podErr != nil {
		return podErr
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && st.StartTime != nil && !finished(*st) {
		wait = shorter(wait, st.StartTime.Add(time.Duration(*d)*time.Second).Sub(now))
	}
	if wait > 0 {
		c.queue.AddAfter(key, wait)
	}
	return nil
}

// recordFinished adds the pods that finished and still carry the tracking finalizer to the
// Job's uncounted pods (an Indexed Job's succeeded ones to its completed indexes too), and
// returns them: their finalizers can go once that is written. A pod being deleted before it
// succeeded has failed.
func recordFinished(job *batchv1.Job, st *batchv1.JobStatus, done indexes, pods []*corev1.Pod) (finishing []*corev1.Pod) {
	u := st.UncountedTerminatedPods
	for _, p := range pods {
		if !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			continue
		}
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			if !slices.Contains(u.Succeeded, p.UID) {
				u.Succeeded = append(u.Succeeded, p.UID)
			}
			if i, ok := indexOf(job, p); ok {
				done.Insert(i)
			}
		case p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil:
			if !slices.Contains(u.Failed, p.UID) {
				u.Failed = append(u.Failed, p.UID)
			}
		default:
			continue
		}
		finishing = append(finishing, p)
	}
	if isIndexed(job) {
		st.CompletedIndexes = formatIndexes(done)
	}
	return finishing
}

// verdict is the condition that ends the Job now, if one does: FailureTarget when its pods
// failed too often or it ran too long, SuccessCriteriaMet when enough of them succeeded.
func verdict(job *batchv1.Job, st *batchv1.JobStatus, done indexes, active []*corev1.Pod, now time.Time) *batchv1.JobCondition {
	if isTrue(st, batchv1.JobFailureTarget) || isTrue(st, batchv1.JobSuccessCriteriaMet) {
		return nil // met already
	}
	u := st.UncountedTerminatedPods
	failed := int(st.Failed) + len(u.Failed)
	succeeded := int(st.Succeeded) + len(u.Succeeded)
	limit := int(ptr.Deref(job.Spec.BackoffLimit, 6))
	deadline := job.Spec.ActiveDeadlineSeconds
	switch {
	case failed > limit || (job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && restarts(active) >= max(limit, 1)):
		return &batchv1.JobCondition{Type: batchv1.JobFailureTarget, Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"}
	case deadline != nil && st.StartTime != nil && !ptr.Deref(job.Spec.Suspend, false) && !now.Before(st.StartTime.Add(time.Duration(*deadline)*time.Second)):
		return &batchv1.JobCondition{Type: batchv1.JobFailureTarget, Reason: batchv1.JobReasonDeadlineExceeded, Message: "Job was active longer than specified deadline"}
	}
	completions := job.Spec.Completions
	var enough bool
	switch {
	case isIndexed(job):
		enough = done.Len() >= int(ptr.Deref(completions, 1))
	case completions != nil:
		enough = succeeded >= int(*completions)
	default: // a work queue: done when one pod succeeded and none runs
		enough = succeeded > 0 && len(active) == 0
	}
	if enough {
		return &batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods"}
	}
	return nil
}

// finish ends a Job that met its end and has no pod left running or uncounted: Failed after
// FailureTarget, Complete (with completionTime) after SuccessCriteriaMet.
func finish(st *batchv1.JobStatus, now time.Time) {
	for _, end := range []struct{ met, final batchv1.JobConditionType }{
		{batchv1.JobFailureTarget, batchv1.JobFailed},
		{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete},
	} {
		i := slices.IndexFunc(st.Conditions, func(c batchv1.JobCondition) bool { return c.Type == end.met && c.Status == corev1.ConditionTrue })
		if i < 0 || isTrue(st, end.final) {
			continue
		}
		met := st.Conditions[i]
		setCondition(st, end.final, corev1.ConditionTrue, met.Reason, met.Message, now)
		if end.final == batchv1.JobComplete {
			st.CompletionTime = &metav1.Time{Time: now}
		}
	}
}

// announce reports as events what the status just written says anew: suspended, resumed,
// completed, failed. Only once it is written: a sync on a stale cache, which fails to write,
// must not announce it again.
func (c *Controller) announce(job *batchv1.Job, before, after *batchv1.JobStatus) {
	became := func(t batchv1.JobConditionType, status corev1.ConditionStatus) *batchv1.JobCondition {
		i := slices.IndexFunc(after.Conditions, func(c batchv1.JobCondition) bool { return c.Type == t && c.Status == status })
		if i < 0 || slices.ContainsFunc(before.Conditions, func(c batchv1.JobCondition) bool { return c.Type == t && c.Status == status }) {
			return nil
		}
		return &after.Conditions[i]
	}
	if became(batchv1.JobSuspended, corev1.ConditionTrue) != nil {
		c.event(job, corev1.EventTypeNormal, "Suspended", "Job suspended")
	}
	if became(batchv1.JobSuspended, corev1.ConditionFalse) != nil {
		c.event(job, corev1.EventTypeNormal, "Resumed", "Job resumed")
	}
	if became(batchv1.JobComplete, corev1.ConditionTrue) != nil {
		c.event(job, corev1.EventTypeNormal, "Completed", "Job completed")
	}
	if f := became(batchv1.JobFailed, corev1.ConditionTrue); f != nil {
		c.event(job, corev1.EventTypeWarning, f.Reason, f.Message)
	}
}

// stop deletes the Job's active pods. Unless they count as failed, they lose the tracking
// finalizer first.
func (c *Controller) stop(ctx context.Context, key string, job *batchv1.Job, active []*corev1.Pod, asFailed bool) (int, error) {
	if len(active) == 0 {
		return 0, nil
	}
	if !asFailed {
		if err := c.untrack(ctx, active); err != nil {
			return 0, err
		}
	}
	return len(active), c.podControl.Delete(ctx, key, c.owner(job, nil), active)
}

// untrack takes the tracking finalizer off those of pods that carry it.
func (c *Controller) untrack(ctx context.Context, pods []*corev1.Pod) error {
	pods = slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool { return !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) })
	return workload.Parallel(pods, func(p *corev1.Pod) error {
		err := c.patchPod(p.Namespace)(ctx, p.Name, workload.DropFinalizerPatch(p.UID, batchv1.JobTrackingFinalizer))
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && !apierrors.IsInvalid(err) {
			return fmt.Errorf("removing the tracking finalizer of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	})
}

// podsOfFormer are the pods still tracked for a Job named name that is not the one with uid
// (gone, or deleted and created again).
func podsOfFormer(pods []*corev1.Pod, name string, uid types.UID) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref != nil && ref.Kind == kind.Kind && ref.Name == name && ref.UID != uid && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			out = append(out, p)
		}
	}
	return out
}

func (c *Controller) writeStatus(ctx context.Context, job *batchv1.Job, st *batchv1.JobStatus) (*batchv1.Job, error) {
	if apiequality.Semantic.DeepEqual(job.Status, *st) {
		return job, nil
	}
	job = job.DeepCopy()
	job.Status = *st
	updated, err := c.client.BatchV1().Jobs(job.Namespace).UpdateStatus(ctx, job, metav1.UpdateOptions{FieldManager: Name})
	if err != nil {
		return nil, fmt.Errorf("updating the status of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return updated, nil
}

func (c *Controller) event(job *batchv1.Job, kind, reason, message string) {
	c.podControl.Recorder.Event(job, kind, reason, message)
}

func finished(st batchv1.JobStatus) bool {
	return isTrue(&st, batchv1.JobComplete) || isTrue(&st, batchv1.JobFailed)
}

func isTrue(st *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	return slices.ContainsFunc(st.Conditions, func(c batchv1.JobCondition) bool { return c.Type == t && c.Status == corev1.ConditionTrue })
}

// setCondition sets the condition of type t; its transition time moves only when its status does.
func setCondition(st *batchv1.JobStatus, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) {
	c := batchv1.JobCondition{Type: t, Status: status, Reason: reason, Message: message,
		LastProbeTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
	i := slices.IndexFunc(st.Conditions, func(c batchv1.JobCondition) bool { return c.Type == t })
	switch {
	case i < 0:
		st.Conditions = append(st.Conditions, c)
	case st.Conditions[i].Status == status && st.Conditions[i].Reason == reason && st.Conditions[i].Message == message:
	case st.Conditions[i].Status == status:
		c.LastTransitionTime = st.Conditions[i].LastTransitionTime
		st.Conditions[i] = c
	default:
		st.Conditions[i] = c
	}
}

func restarts(pods []*corev1.Pod) int {
	n := 0
	for _, p := range pods {
		for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
			n += int(cs.RestartCount)
		}
	}
	return n
}

// shorter is the shorter of two waits, 0 meaning none.
func shorter(a, b time.Duration) time.Duration {
	if a <= 0 || (b > 0 && b < a) {
		return b
	}
	return a
}
