package cronjob

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
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
)

// wakeSlack is added to the time until the next scheduled time, so that the sync it queues
// finds that time passed even when the clocks of the chain and the controller differ a little.
const wakeSlack = 100 * time.Millisecond

// sync brings the CronJob at key up to date with its Jobs, starts the Job of a scheduled time
// that has come, deletes finished Jobs beyond the history limits, and queues itself again for
// the next scheduled time.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	cj, err := c.cronJobs.CronJobs(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // gone: the garbage collector takes its Jobs
	}
	if err != nil {
		return err
	}
	all, err := c.jobs.Jobs(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	jobs := slices.DeleteFunc(all, func(j *batchv1.Job) bool { return !metav1.IsControlledBy(j, cj) })

	st := cj.Status.DeepCopy()
	if err := c.track(ctx, cj, st, jobs); err != nil {
		return err
	}
	var next time.Duration
	var runErr error
	if cj.DeletionTimestamp == nil {
		next, runErr = c.run(ctx, cj, st)
	}
	pruneErr := c.prune(ctx, cj, st, jobs)
	if !apiequality.Semantic.DeepEqual(cj.Status, *st) {
		updated := cj.DeepCopy()
		updated.Status = *st
		if _, err := c.client.BatchV1().CronJobs(namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: Name}); err != nil && !apierrors.IsNotFound(err) {
			return errors.Join(runErr, pruneErr, fmt.Errorf("updating the status of cronjob %s: %w", key, err))
		}
	}
	if next > 0 {
		c.queue.AddAfter(key, next)
	}
	return errors.Join(runErr, pruneErr)
}

// track brings the status's active Jobs up to date: finished ones leave it (and a succeeded one
// moves lastSuccessfulTime), as do those that are gone.
func (c *Controller) track(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus, jobs []*batchv1.Job) error {
	for _, j := range jobs {
		cond := finished(j)
		active := isActive(st, j.UID)
		switch {
		case cond != "" && active:
			dropActive(st, j.UID)
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, cond)
		case cond == "" && !active:
			// Made by hand (kubectl create job --from), or by us with a status the cache does
			// not show yet: only the first deserves a word.
			fresh, err := c.client.BatchV1().CronJobs(cj.Namespace).Get(ctx, cj.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("reading cronjob %s/%s: %w", cj.Namespace, cj.Name, err)
			}
			if !isActive(&fresh.Status, j.UID) {
				c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
			}
		}
		if cond == batchv1.JobComplete && j.Status.CompletionTime != nil &&
			(st.LastSuccessfulTime == nil || j.Status.CompletionTime.After(st.LastSuccessfulTime.Time)) {
			st.LastSuccessfulTime = j.Status.CompletionTime.DeepCopy()
		}
	}
	for _, ref := range slices.Clone(st.Active) {
		if slices.ContainsFunc(jobs, func(j *batchv1.Job) bool { return j.UID == ref.UID }) {
			continue
		}
		// Missing from the cache: confirm before forgetting it.
		j, err := c.client.BatchV1().Jobs(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || (err == nil && j.UID != ref.UID):
			dropActive(st, ref.UID)
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
		case err != nil:
			return fmt.Errorf("reading job %s/%s: %w", ref.Namespace, ref.Name, err)
		}
	}
	return nil
}

// run starts the Job of the latest scheduled time that has come and has no Job yet, as the
// concurrency policy allows, and returns how long until the next scheduled time.
func (c *Controller) run(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus) (time.Duration, error) {
	sched, reason, err := scheduleOf(cj)
	if err != nil {
		c.recorder.Event(cj, corev1.EventTypeWarning, reason, err.Error())
		return 0, nil // nothing to do until the spec changes, which brings it back
	}
	if ptr.Deref(cj.Spec.Suspend, false) {
		return 0, nil // resuming is a spec change, which brings it back
	}
	now := c.clock.Now()
	next := sched.Next(now).Sub(now) + wakeSlack

	// Times before the last one scheduled, or before the starting deadline, are past helping.
	since := cj.CreationTimestamp.Time
	if st.LastScheduleTime != nil {
		since = st.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(since) {
			since = deadline
		}
	}
	scheduled, missed := latestMissed(sched, since, now)
	if scheduled.IsZero() {
		return next, nil
	}
	if missed > tooManyMissed {
		c.recorder.Event(cj, corev1.EventTypeWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	name := fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
	if slices.ContainsFunc(st.Active, func(r corev1.ObjectReference) bool { return r.Name == name }) ||
		(st.LastScheduleTime != nil && st.LastScheduleTime.Equal(&metav1.Time{Time: scheduled})) {
		return next, nil // started already
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(st.Active) > 0 {
			c.recorder.Event(cj, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
			return next, nil // the Job's end brings it back, to start late if still in time
		}
	case batchv1.ReplaceConcurrent:
		for _, ref := range slices.Clone(st.Active) {
			if err := c.deleteJob(ctx, cj, st, ref.Name, ref.UID); err != nil {
				return 0, err
			}
		}
	}

	job, err := c.client.BatchV1().Jobs(cj.Namespace).Create(ctx, newJob(cj, name, scheduled), metav1.CreateOptions{FieldManager: Name})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Made by an earlier sync whose status write did not land, or by someone else.
		if job, err = c.client.BatchV1().Jobs(cj.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return 0, fmt.Errorf("reading job %s/%s: %w", cj.Namespace, name, err)
		}
		if !metav1.IsControlledBy(job, cj) || isActive(st, job.UID) {
			return next, nil
		}
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return 0, nil // the namespace is going, and the CronJob with it
	case err != nil:
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return 0, fmt.Errorf("creating job %s/%s: %w", cj.Namespace, name, err)
	default:
		c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", job.Name)
	}
	st.Active = append(st.Active, corev1.ObjectReference{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job",
		Namespace: job.Namespace, Name: job.Name, UID: job.UID, ResourceVersion: job.ResourceVersion})
	st.LastScheduleTime = &metav1.Time{Time: scheduled}
	return next, nil
}

// newJob is the Job of the scheduled time: the template's, named, annotated with the time (in
// the CronJob's time zone) and controlled by the CronJob.
func newJob(cj *batchv1.CronJob, name string, scheduled time.Time) *batchv1.Job {
	t := cj.Spec.JobTemplate.DeepCopy()
	annotations := maps.Clone(t.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(location(cj)).Format(time.RFC3339)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       cj.Namespace,
			Labels:          t.Labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, kind)},
		},
		Spec: t.Spec,
	}
}

// prune deletes the oldest finished Jobs beyond successfulJobsHistoryLimit and
// failedJobsHistoryLimit.
func (c *Controller) prune(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus, jobs []*batchv1.Job) error {
	byEnd := map[batchv1.JobConditionType][]*batchv1.Job{}
	for _, j := range jobs {
		if cond := finished(j); cond != "" && j.DeletionTimestamp == nil {
			byEnd[cond] = append(byEnd[cond], j)
		}
	}
	limits := map[batchv1.JobConditionType]*int32{
		batchv1.JobComplete: cj.Spec.SuccessfulJobsHistoryLimit,
		batchv1.JobFailed:   cj.Spec.FailedJobsHistoryLimit,
	}
	var errs []error
	for cond, limit := range limits {
		done := byEnd[cond]
		if limit == nil || len(done) <= int(*limit) {
			continue
		}
		// Oldest start first; those never started last.
		slices.SortFunc(done, func(a, b *batchv1.Job) int {
			return cmp.Or(started(a).Compare(started(b)), strings.Compare(a.Name, b.Name))
		})
		for _, j := range done[:len(done)-int(*limit)] {
			errs = append(errs, c.deleteJob(ctx, cj, st, j.Name, j.UID))
		}
	}
	return errors.Join(errs...)
}

// deleteJob deletes a Job of the CronJob and its pods (in the background), and drops it from
// the active ones.
func (c *Controller) deleteJob(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus, name string, uid types.UID) error {
	err := c.client.BatchV1().Jobs(cj.Namespace).Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground),
		Preconditions:     metav1.NewUIDPreconditions(string(uid)),
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		return fmt.Errorf("deleting job %s/%s: %w", cj.Namespace, name, err)
	}
	dropActive(st, uid)
	if err == nil {
		c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", name)
	}
	return nil
}

// finished is the condition a Job ended with (Complete or Failed), "" while it runs.
func finished(j *batchv1.Job) batchv1.JobConditionType {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

func isActive(st *batchv1.CronJobStatus, uid types.UID) bool {
	return slices.ContainsFunc(st.Active, func(r corev1.ObjectReference) bool { return r.UID == uid })
}

func dropActive(st *batchv1.CronJobStatus, uid types.UID) {
	st.Active = slices.DeleteFunc(st.Active, func(r corev1.ObjectReference) bool { return r.UID == uid })
	if len(st.Active) == 0 {
		st.Active = nil
	}
}

// started is when the Job started; for one that never did, the end of time.
func started(j *batchv1.Job) time.Time {
	if j.Status.StartTime == nil {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return j.Status.StartTime.Time
}
