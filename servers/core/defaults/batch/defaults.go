package batch

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_Job: one pod to run to completion, six retries, not indexed, not suspended.
func SetDefaults_Job(job *batchv1.Job) {
	spec := &job.Spec
	// A Job that sets neither completions nor parallelism runs one pod once. A Job that sets
	// only parallelism is a work queue: its completions stay unset.
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptr.To[int32](1)
	}
	fill.Nil(&spec.Parallelism, 1)

	// With a retry budget per index, the Job-wide one is unlimited.
	backoffLimit := int32(6)
	if spec.BackoffLimitPerIndex != nil {
		backoffLimit = math.MaxInt32
	}
	fill.Nil(&spec.BackoffLimit, backoffLimit)

	// A pod failure policy decides on failed pods only, so replacements wait for them.
	replacement := batchv1.TerminatingOrFailed
	if spec.PodFailurePolicy != nil {
		replacement = batchv1.Failed
	}
	fill.Nil(&spec.PodReplacementPolicy, replacement)

	fill.Nil(&spec.CompletionMode, batchv1.NonIndexedCompletion)
	fill.Nil(&spec.Suspend, false)
	fill.Nil(&spec.ManualSelector, false)
	if len(job.Labels) == 0 && spec.Template.Labels != nil {
		job.Labels = spec.Template.Labels
	}
}

// SetDefaults_CronJob: runs may overlap, the schedule is live, and three successful and one
// failed Job are kept.
func SetDefaults_CronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	fill.Zero(&spec.ConcurrencyPolicy, batchv1.AllowConcurrent)
	fill.Nil(&spec.Suspend, false)
	fill.Nil(&spec.SuccessfulJobsHistoryLimit, 3)
	fill.Nil(&spec.FailedJobsHistoryLimit, 1)
}

// SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern matches a pod condition that
// is True.
func SetDefaults_PodFailurePolicyOnPodConditionsPattern(p *batchv1.PodFailurePolicyOnPodConditionsPattern) {
	fill.Zero(&p.Status, corev1.ConditionTrue)
}
