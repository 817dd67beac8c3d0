package validation

// Table tests for batch/v1 validation. Cases and messages follow kubernetes v1.37.2
// pkg/apis/batch/validation/validation_test.go (TestValidateJob*, TestValidateCronJob*,
// TestValidateJobUpdateStatus), rendered in full.

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const jobUID = "1a2b3c4d"

// jobWith is a defaulted Job as the strategy prepares it: generated selector and labels.
func jobWith(t *testing.T, mutate func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{}
	decodeDefaulted(t, `
metadata: {name: j, namespace: default, uid: `+jobUID+`, resourceVersion: "1"}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: `+jobUID+`}}
  template:
    metadata: {labels: {batch.kubernetes.io/controller-uid: `+jobUID+`, batch.kubernetes.io/job-name: j, controller-uid: `+jobUID+`, job-name: j}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}`, j)
	if mutate != nil {
		mutate(j)
	}
	return j
}

func TestValidateJob(t *testing.T) {
	cases := []struct {
		name string
		obj  *batchv1.Job
		want []string
	}{
		{"valid", jobWith(t, nil), nil},
		{"restart policy Always", jobWith(t, func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyAlways }),
			[]string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"negative counts", jobWith(t, func(j *batchv1.Job) {
			j.Spec.Parallelism = ptr.To[int32](-1)
			j.Spec.Completions = ptr.To[int32](-1)
			j.Spec.BackoffLimit = ptr.To[int32](-1)
		}), []string{
			"spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
			"spec.completions: Invalid value: -1: must be greater than or equal to 0",
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"selector not generated", jobWith(t, func(j *batchv1.Job) {
			j.Spec.Selector.MatchLabels = map[string]string{"batch.kubernetes.io/controller-uid": "other"}
		}), []string{
			"spec.selector: Invalid value: {\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":\"other\"}}: `selector` not auto-generated",
			"spec.template.metadata.labels: Invalid value: {\"batch.kubernetes.io/controller-uid\":\"1a2b3c4d\",\"batch.kubernetes.io/job-name\":\"j\",\"controller-uid\":\"1a2b3c4d\",\"job-name\":\"j\"}: `selector` does not match template `labels`",
		}},
		{"wrong job-name label", jobWith(t, func(j *batchv1.Job) { j.Spec.Template.Labels["job-name"] = "k" }), []string{
			"spec.template.metadata.labels[job-name]: Invalid value: {\"batch.kubernetes.io/controller-uid\":\"1a2b3c4d\",\"batch.kubernetes.io/job-name\":\"j\",\"controller-uid\":\"1a2b3c4d\",\"job-name\":\"k\"}: must be 'j'",
		}},
		{"manual selector", jobWith(t, func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptr.To(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
		}), []string{"spec.template.metadata.labels: Invalid value: {\"batch.kubernetes.io/controller-uid\":\"1a2b3c4d\",\"batch.kubernetes.io/job-name\":\"j\",\"controller-uid\":\"1a2b3c4d\",\"job-name\":\"j\"}: `selector` does not match template `labels`"}},
		{"indexed without completions", jobWith(t, func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = nil
		}), []string{"spec.completions: Required value: when completion mode is Indexed"}},
		{"backoff limit per index needs indexed", jobWith(t, func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr.To[int32](1) }),
			[]string{"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"}},
		{"max failed indexes without backoff limit per index", jobWith(t, func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.MaxFailedIndexes = ptr.To[int32](1)
		}), []string{"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"}},
		{"indexed name too long for pods", jobWith(t, func(j *batchv1.Job) {
			j.Name = "indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			j.Spec.Template.Labels["job-name"] = j.Name
			j.Spec.Template.Labels["batch.kubernetes.io/job-name"] = j.Name
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = ptr.To[int32](10)
		}), []string{"metadata.name: Invalid value: \"indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\": will not able to create pod with invalid DNS label: indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-9"}},
		{"pod failure policy", jobWith(t, func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:      batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2, 0, 2}},
			}}}
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}), []string{
			"spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
			"spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2",
			"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [2,0,2]: must be ordered",
			`spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`,
		}},
		{"success policy without indexed", jobWith(t, func(j *batchv1.Job) {
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr.To[int32](1)}}}
		}), []string{`spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}: requires indexed completion mode`}},
		{"managedBy", jobWith(t, func(j *batchv1.Job) { j.Spec.ManagedBy = ptr.To("no-domain") }),
			[]string{`spec.managedBy: Invalid value: "no-domain": must be a domain-prefixed path (such as "acme.io/foo")`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateJob(tc.obj), tc.want)
	}

	old := jobWith(t, nil)
	expectErrors(t, "parallelism may change", ValidateJobUpdate(jobWith(t, func(j *batchv1.Job) { j.Spec.Parallelism = ptr.To[int32](3) }), old), nil)
	expectErrors(t, "completions immutable", ValidateJobUpdate(jobWith(t, func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](3) }), old),
		[]string{"spec.completions: Invalid value: 3: field is immutable"})
	expectErrorPrefixes(t, "template immutable", ValidateJobUpdate(jobWith(t, func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "other" }), old),
		[]string{"spec.template: Invalid value: "})
	suspended := jobWith(t, func(j *batchv1.Job) { j.Spec.Suspend = ptr.To(true) })
	expectErrors(t, "suspended job: resources and scheduling directives may change", ValidateJobUpdate(jobWith(t, func(j *batchv1.Job) {
		j.Spec.Suspend = ptr.To(true)
		j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
		j.Spec.Template.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	}), suspended), nil)
	expectErrorPrefixes(t, "suspended job: the image may not change", ValidateJobUpdate(jobWith(t, func(j *batchv1.Job) {
		j.Spec.Suspend = ptr.To(true)
		j.Spec.Template.Spec.Containers[0].Image = "other"
	}), suspended), []string{"spec.template.spec: Invalid value: "})

	// status
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	withStatus := func(s batchv1.JobStatus) *batchv1.Job { return jobWith(t, func(j *batchv1.Job) { j.Status = s }) }
	expectErrors(t, "status decreasing counters", ValidateJobStatusUpdate(withStatus(batchv1.JobStatus{Succeeded: 1, Failed: 1}), withStatus(batchv1.JobStatus{Succeeded: 2, Failed: 2})), []string{
		"status.failed: Invalid value: 1: cannot decrease the failed counter",
		"status.succeeded: Invalid value: 1: cannot decrease the succeeded counter",
	})
	complete := batchv1.JobStatus{StartTime: &now, Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: v1.ConditionTrue}}}
	expectErrors(t, "status complete without criteria met", ValidateJobStatusUpdate(withStatus(complete), old), []string{
		"status.completionTime: Required value: completionTime is required for Complete jobs",
		"status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
	})
	expectErrors(t, "status ready over active", ValidateJobStatusUpdate(withStatus(batchv1.JobStatus{Active: 1, Ready: ptr.To[int32](2)}), old),
		[]string{"status.ready: Invalid value: 2: cannot set more ready pods than active"})
	expectErrors(t, "status start time", ValidateJobStatusUpdate(withStatus(batchv1.JobStatus{StartTime: ptr.To(metav1.NewTime(now.Add(time.Hour)))}), withStatus(batchv1.JobStatus{StartTime: &now})),
		[]string{`status.startTime: Invalid value: "2026-01-01T01:00:00Z": field is immutable for unsuspended job once set`})
}

func cronJobWith(t *testing.T, mutate func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{}
	decodeDefaulted(t, `
metadata: {name: cj, namespace: default, resourceVersion: "1"}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}`, cj)
	if mutate != nil {
		mutate(cj)
	}
	return cj
}

func TestValidateCronJob(t *testing.T) {
	cases := []struct {
		name string
		obj  *batchv1.CronJob
		want []string
	}{
		{"valid", cronJobWith(t, nil), nil},
		{"descriptor", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "@every 5m" }), nil},
		{"time zone", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Europe/Paris") }), nil},
		{"bad schedule", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "* * * * * *" }),
			[]string{`spec.schedule: Invalid value: "* * * * * *": expected exactly 5 fields, found 6: [* * * * * *]`}},
		{"out of range", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "61 * * * *" }),
			[]string{`spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`}},
		{"TZ in schedule", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "CRON_TZ=UTC 0 * * * *" }),
			[]string{`spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"TZ panic", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=0" }), []string{
			`spec.schedule: Invalid value: "TZ=0": invalid schedule format: runtime error: slice bounds out of range [:-1]`,
			`spec.schedule: Invalid value: "TZ=0": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
		}},
		{"missing schedule", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "" }), []string{"spec.schedule: Required value"}},
		{"unknown time zone", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Mars/Olympus") }),
			[]string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{"local time zone", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Local") }),
			[]string{`spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`}},
		{"concurrency policy", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" }),
			[]string{`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`}},
		{"selector in template", cronJobWith(t, func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
			cj.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true)
		}), []string{
			"spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated",
			`spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"`,
		}},
		{"restart policy", cronJobWith(t, func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyAlways
		}),
			[]string{`spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"name too long", cronJobWith(t, func(cj *batchv1.CronJob) { cj.Name = "a-cronjob-name-that-is-longer-than-fifty-two-characters" }),
			[]string{`metadata.name: Invalid value: "a-cronjob-name-that-is-longer-than-fifty-two-characters": must be no more than 52 characters`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateCronJob(tc.obj), tc.want)
	}
	// The 52-character limit is not checked on update; TZ in a schedule that had it is allowed.
	long := cronJobWith(t, func(cj *batchv1.CronJob) { cj.Name = "a-cronjob-name-that-is-longer-than-fifty-two-characters" })
	expectErrors(t, "long name on update", ValidateCronJobUpdate(long, long.DeepCopy()), nil)
	tz := cronJobWith(t, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC 0 * * * *" })
	expectErrors(t, "TZ kept on update", ValidateCronJobUpdate(tz, tz.DeepCopy()), nil)
}
