package batch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateJobStatusUpdate is the rule list of a /status update, which the job controller (or
// the controller named by spec.managedBy) writes. Most rules hold a finished Job's status
// together; each is checked only when what it looks at changes, so that a status stored by
// an older, more lenient kube-apiserver can still be updated.
func ValidateJobStatusUpdate(job, old *batchv1.Job) field.ErrorList {
	path, s, o := field.NewPath("status"), &job.Status, &old.Status
	conditions := path.Child("conditions")
	is := func(j *batchv1.Job, t batchv1.JobConditionType) bool { return condition(j, t, corev1.ConditionTrue) }
	changed := func(t batchv1.JobConditionType) bool { return is(job, t) != is(old, t) }
	complete, failed, finished := is(job, batchv1.JobComplete), is(job, batchv1.JobFailed), finishedJob(job)
	failureTarget, criteriaMet := is(job, batchv1.JobFailureTarget), is(job, batchv1.JobSuccessCriteriaMet)

	finishedChanged := finished != finishedJob(old)
	completeChanged, failedChanged := changed(batchv1.JobComplete), changed(batchv1.JobFailed)
	completedChanged := s.CompletedIndexes != o.CompletedIndexes
	failedIndexesChanged := !ptr.Equal(s.FailedIndexes, o.FailedIndexes)
	activeChanged := s.Active != o.Active
	startChanged := !equality.Semantic.DeepEqual(s.StartTime, o.StartTime)
	completionChanged := !equality.Semantic.DeepEqual(s.CompletionTime, o.CompletionTime)
	// A suspended Job that asks for no completions finishes without ever starting.
	finishesUnstarted := ptr.Deref(job.Spec.Suspend, false) && ptr.Equal(job.Spec.Completions, ptr.To[int32](0))
	resuming := is(old, batchv1.JobSuspended) && condition(job, batchv1.JobSuspended, corev1.ConditionFalse)
	completions := job.Spec.Completions
	uncounted := s.UncountedTerminatedPods

	errs := validation.Join(
		validation.MetaUpdate(&job.ObjectMeta, &old.ObjectMeta, metadata),
		validation.NonNegative(path.Child("active"), int64(s.Active)),
		validation.NonNegative(path.Child("succeeded"), int64(s.Succeeded)),
		validation.NonNegative(path.Child("failed"), int64(s.Failed)),
		nonNegative(path.Child("ready"), s.Ready),
		nonNegative(path.Child("terminating"), s.Terminating),
		uncountedPods(path.Child("uncountedTerminatedPods"), uncounted),
		validation.When((completeChanged || failedChanged) && complete && failed,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set Complete=True and Failed=true conditions")),
		validation.When((completeChanged || changed(batchv1.JobFailureTarget)) && complete && failureTarget,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set Complete=True and FailureTarget=true conditions")),
		validation.When((completeChanged || completionChanged) && s.CompletionTime != nil && !complete,
			field.Invalid(path.Child("completionTime"), s.CompletionTime, "cannot set completionTime when there is no Complete=True condition")),
		validation.When((completeChanged || completionChanged) && s.CompletionTime == nil && complete,
			field.Required(path.Child("completionTime"), "completionTime is required for Complete jobs")),
		validation.When((startChanged || completionChanged) && s.StartTime != nil && s.CompletionTime != nil && s.CompletionTime.Before(s.StartTime),
			field.Invalid(path.Child("completionTime"), s.CompletionTime, "must be equal to or after `startTime`")),
		validation.When((failedChanged || failedIndexesChanged) && failed && !failureTarget,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set Failed=True condition without the FailureTarget=true condition")),
		validation.When((completeChanged || changed(batchv1.JobSuccessCriteriaMet)) && complete && !criteriaMet,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition")),
		validation.When((finishedChanged || activeChanged) && finished && s.Active > 0,
			field.Invalid(path.Child("active"), s.Active, "active>0 is invalid for finished job")),
		validation.When((finishedChanged || startChanged) && !finishesUnstarted && finished && s.StartTime == nil,
			field.Required(path.Child("startTime"), "startTime is required for finished job")),
		validation.When((finishedChanged || !equality.Semantic.DeepEqual(uncounted, o.UncountedTerminatedPods)) && finished &&
			uncounted != nil && len(uncounted.Succeeded)+len(uncounted.Failed) > 0,
			field.Invalid(path.Child("uncountedTerminatedPods"), validation.Internal(uncounted), "must be empty for finished job")),
	)
	if completedChanged && completions != nil {
		if _, err := parseIndexes(s.CompletedIndexes, *completions); err != nil {
			errs = append(errs, field.Invalid(path.Child("completedIndexes"), s.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if failedIndexesChanged && completions != nil && job.Spec.BackoffLimitPerIndex != nil && s.FailedIndexes != nil {
		if _, err := parseIndexes(*s.FailedIndexes, *completions); err != nil {
			errs = append(errs, field.Invalid(path.Child("failedIndexes"), s.FailedIndexes, "error parsing failedIndexes: "+err.Error()))
		}
	}
	errs = validation.Join(errs,
		validation.When(completedChanged && s.CompletedIndexes != "" && !indexed(&job.Spec),
			field.Invalid(path.Child("completedIndexes"), s.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode")),
		// A NonIndexed Job has no backoff limit per index either.
		validation.When(failedIndexesChanged && job.Spec.BackoffLimitPerIndex == nil && s.FailedIndexes != nil,
			field.Invalid(path.Child("failedIndexes"), ptr.Deref(s.FailedIndexes, ""), "cannot set non-null failedIndexes when backoffLimitPerIndex is null")),
	)
	if (failedIndexesChanged || completedChanged) && completions != nil && s.FailedIndexes != nil {
		if i, overlap := firstOverlap(s.CompletedIndexes, *s.FailedIndexes, *completions); overlap {
			errs = append(errs, field.Invalid(path.Child("failedIndexes"), *s.FailedIndexes, fmt.Sprintf("failedIndexes and completedIndexes overlap at index: %d", i)))
		}
	}
	errs = validation.Join(errs,
		validation.When((finishedChanged || !ptr.Equal(s.Terminating, o.Terminating)) && finished && ptr.Deref(s.Terminating, 0) > 0,
			field.Invalid(path.Child("terminating"), s.Terminating, "terminating>0 is invalid for finished job")),
		validation.When((activeChanged || !ptr.Equal(s.Ready, o.Ready)) && s.Ready != nil && *s.Ready > s.Active,
			field.Invalid(path.Child("ready"), ptr.Deref(s.Ready, 0), "cannot set more ready pods than active")),
		validation.When(criteriaMet && failed, field.Invalid(conditions, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and Failed=true conditions")),
		validation.When(criteriaMet && failureTarget, field.Invalid(conditions, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions")),
		validation.When(job.Spec.SuccessPolicy != nil && !criteriaMet && complete,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True")),
	)
	// What the status has said stays said: terminal conditions, counters, times.
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		errs = append(errs, validation.When(is(old, t) && !is(job, t),
			field.Invalid(conditions, field.OmitValueType{}, fmt.Sprintf("cannot disable the terminal %s=True condition", t)))...)
	}
	// An Indexed Job whose completions follow its parallelism scales down, succeeded pods too.
	scalable := indexed(&job.Spec) && ptr.Equal(job.Spec.Completions, job.Spec.Parallelism)
	return validation.Join(errs,
		validation.When(s.Failed < o.Failed, field.Invalid(path.Child("failed"), s.Failed, "cannot decrease the failed counter")),
		validation.When(!scalable && s.Succeeded < o.Succeeded, field.Invalid(path.Child("succeeded"), s.Succeeded, "cannot decrease the succeeded counter")),
		validation.When(s.CompletionTime != nil && o.CompletionTime != nil && completionChanged,
			field.Invalid(path.Child("completionTime"), s.CompletionTime, "field is immutable")),
		validation.When(startChanged && !resuming && o.StartTime != nil && !ptr.Deref(job.Spec.Suspend, false),
			field.Invalid(path.Child("startTime"), s.StartTime, "field is immutable for unsuspended job once set")),
		validation.When(is(old, batchv1.JobSuccessCriteriaMet) && !criteriaMet,
			field.Invalid(conditions, field.OmitValueType{}, "cannot disable the SuccessCriteriaMet=True condition")),
		validation.When(is(old, batchv1.JobComplete) && !is(old, batchv1.JobSuccessCriteriaMet) && criteriaMet,
			field.Invalid(conditions, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions")),
	)
}

// uncountedPods: the uids of finished pods the controller has not counted yet, each once.
func uncountedPods(path *field.Path, u *batchv1.UncountedTerminatedPods) field.ErrorList {
	if u == nil {
		return nil
	}
	var errs field.ErrorList
	seen := map[types.UID]bool{}
	check := func(p *field.Path, uids []types.UID) {
		for i, uid := range uids {
			switch {
			case uid == "":
				errs = append(errs, field.Invalid(p.Index(i), uid, "must not be empty"))
			case seen[uid]:
				errs = append(errs, field.Duplicate(p.Index(i), uid))
			}
			seen[uid] = true
		}
	}
	check(path.Child("succeeded"), u.Succeeded)
	check(path.Child("failed"), u.Failed)
	return errs
}

func condition(job *batchv1.Job, t batchv1.JobConditionType, status corev1.ConditionStatus) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == status {
			return true
		}
	}
	return false
}

// finishedJob: Complete or Failed.
func finishedJob(job *batchv1.Job) bool {
	return condition(job, batchv1.JobComplete, corev1.ConditionTrue) || condition(job, batchv1.JobFailed, corev1.ConditionTrue)
}
