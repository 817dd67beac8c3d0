package defaults

// Ported from kubernetes v1.37.2 pkg/apis/batch/v1/defaults.go and
// zz_generated.defaults.go (which also runs the core/v1 pod template defaulting
// on the job's pod template). Note that CronJob only defaults its own fields and
// the pod template: upstream does not run SetDefaults_Job on jobTemplate.

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// SetDefaults_Job defaults completions, parallelism, backoff limit, completion mode and friends.
func SetDefaults_Job(obj *batchv1.Job) {
	// For a non-parallel job, you can leave both `.spec.completions` and
	// `.spec.parallelism` unset.  When both are unset, both are defaulted to 1.
	if obj.Spec.Completions == nil && obj.Spec.Parallelism == nil {
		obj.Spec.Completions = ptr.To[int32](1)
		obj.Spec.Parallelism = ptr.To[int32](1)
	}
	if obj.Spec.Parallelism == nil {
		obj.Spec.Parallelism = ptr.To[int32](1)
	}
	if obj.Spec.BackoffLimit == nil {
		if obj.Spec.BackoffLimitPerIndex != nil {
			obj.Spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			obj.Spec.BackoffLimit = ptr.To[int32](6)
		}
	}
	labels := obj.Spec.Template.Labels
	if labels != nil && len(obj.Labels) == 0 {
		obj.Labels = labels
	}
	if obj.Spec.CompletionMode == nil {
		mode := batchv1.NonIndexedCompletion
		obj.Spec.CompletionMode = &mode
	}
	if obj.Spec.Suspend == nil {
		obj.Spec.Suspend = ptr.To(false)
	}
	if obj.Spec.PodReplacementPolicy == nil {
		if obj.Spec.PodFailurePolicy != nil {
			obj.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			obj.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if obj.Spec.ManualSelector == nil {
		obj.Spec.ManualSelector = ptr.To(false)
	}
}

// SetDefaults_CronJob defaults concurrency policy, suspend and history limits.
func SetDefaults_CronJob(obj *batchv1.CronJob) {
	if obj.Spec.ConcurrencyPolicy == "" {
		obj.Spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if obj.Spec.Suspend == nil {
		obj.Spec.Suspend = ptr.To(false)
	}
	if obj.Spec.SuccessfulJobsHistoryLimit == nil {
		obj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if obj.Spec.FailedJobsHistoryLimit == nil {
		obj.Spec.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
}

// SetDefaults_PodFailurePolicyOnPodConditionsPattern defaults the condition status to True.
func SetDefaults_PodFailurePolicyOnPodConditionsPattern(obj *batchv1.PodFailurePolicyOnPodConditionsPattern) {
	if obj.Status == "" {
		obj.Status = v1.ConditionTrue
	}
}

func setPodFailurePolicyDefaults(p *batchv1.PodFailurePolicy) {
	if p == nil {
		return
	}
	for i := range p.Rules {
		a := &p.Rules[i]
		for j := range a.OnPodConditions {
			SetDefaults_PodFailurePolicyOnPodConditionsPattern(&a.OnPodConditions[j])
		}
	}
}

func SetObjectDefaults_CronJob(in *batchv1.CronJob) {
	SetDefaults_CronJob(in)
	setPodFailurePolicyDefaults(in.Spec.JobTemplate.Spec.PodFailurePolicy)
	setPodSpecDefaults(&in.Spec.JobTemplate.Spec.Template.Spec)
}

func SetObjectDefaults_CronJobList(in *batchv1.CronJobList) {
	for i := range in.Items {
		SetObjectDefaults_CronJob(&in.Items[i])
	}
}

func SetObjectDefaults_Job(in *batchv1.Job) {
	SetDefaults_Job(in)
	setPodFailurePolicyDefaults(in.Spec.PodFailurePolicy)
	setPodSpecDefaults(&in.Spec.Template.Spec)
}

func SetObjectDefaults_JobList(in *batchv1.JobList) {
	for i := range in.Items {
		SetObjectDefaults_Job(&in.Items[i])
	}
}
