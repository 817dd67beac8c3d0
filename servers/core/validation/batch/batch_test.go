package batch

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"Job":     vt.Of(ValidateJob, ValidateJobUpdate, prepareJob),
	"CronJob": vt.Of(ValidateCronJob, ValidateCronJobUpdate),
}

// prepareJob does what the registry does to a new Job: the apiserver gives it a uid, and
// unless the user chose the selector, the selector and the template's labels come from it.
func prepareJob(job, old *batchv1.Job) {
	if old != nil || ptr.Deref(job.Spec.ManualSelector, false) {
		return
	}
	if job.UID == "" {
		job.UID = "0e6b1c7d"
	}
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = map[string]string{}
	}
	for key, value := range map[string]string{"job-name": job.Name, batchv1.JobNameLabel: job.Name,
		"controller-uid": string(job.UID), batchv1.ControllerUidLabel: string(job.UID)} {
		if _, set := job.Spec.Template.Labels[key]; !set {
			job.Spec.Template.Labels[key] = value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, set := job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !set {
		job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(job.UID)
	}
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 30, nil) }

func TestAccepted(t *testing.T) {
	vt.Accepted(t, "cronjob.json", kinds["CronJob"])
	// The reference Job has no uid (it was removed as it varies): its selector still has it.
	j := &batchv1.Job{}
	vt.Decode(t, j, string(vt.ReadReference(t, "defaulted/job.json")))
	j.UID = types.UID(j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel])
	j.ResourceVersion = "1"
	vt.Expect(t, "job.json create", vt.Merged(t, j, nil, ValidateJob(j)))
	same := j.DeepCopy()
	vt.Expect(t, "job.json update", vt.Merged(t, same, j, ValidateJobUpdate(same, j)))
}

const job = `{metadata: {name: j, namespace: ns, resourceVersion: "1"},
	spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}`

// jobLabels are the template labels prepareJob gives job.
const jobLabels = `{"batch.kubernetes.io/controller-uid":"0e6b1c7d","batch.kubernetes.io/job-name":"j","controller-uid":"0e6b1c7d","job-name":"j"}`

func TestJob(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"indexed", `{spec: {completionMode: Indexed, completions: 4, parallelism: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 2}}`, nil},
		{"restart policy Always", `{spec: {template: {spec: {restartPolicy: Always}}}}`,
			[]string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"counts", `{spec: {parallelism: -1, completions: -1, activeDeadlineSeconds: -1, backoffLimit: -1, ttlSecondsAfterFinished: -1}}`, []string{
			"spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
			"spec.completions: Invalid value: -1: must be greater than or equal to 0",
			"spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
			"spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0"}},
		{"selector not generated", `{spec: {selector: {matchLabels: {batch.kubernetes.io/controller-uid: other}}}}`, []string{
			"spec.selector: Invalid value: {\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":\"other\"}}: `selector` not auto-generated",
			"spec.template.metadata.labels: Invalid value: " + jobLabels + ": `selector` does not match template `labels`"}},
		{"job-name label", `{spec: {template: {metadata: {labels: {job-name: k}}}}}`, []string{
			`spec.template.metadata.labels[job-name]: Invalid value: {"batch.kubernetes.io/controller-uid":"0e6b1c7d","batch.kubernetes.io/job-name":"j","controller-uid":"0e6b1c7d","job-name":"k"}: must be 'j'`}},
		{"manual selector", `{spec: {manualSelector: true, selector: {matchLabels: {app: x}}, template: {metadata: {labels: {app: z}}}}}`,
			[]string{`spec.template.metadata.labels: Invalid value: {"app":"z"}: ` + "`selector` does not match template `labels`"}},
		{"manual selector missing", `{spec: {manualSelector: true}}`,
			[]string{"spec.selector: Required value", "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"}},
		{"completion mode", `{spec: {completionMode: Random}}`, []string{`spec.completionMode: Unsupported value: "Random": supported values: "NonIndexed", "Indexed"`}},
		{"indexed without completions", `{spec: {completionMode: Indexed, completions: null, parallelism: 2}}`,
			[]string{"spec.completions: Required value: when completion mode is Indexed"}},
		{"indexed parallelism", `{spec: {completionMode: Indexed, completions: 1, parallelism: 100001}}`,
			[]string{"spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed"}},
		{"more failed indexes than completions", `{spec: {completionMode: Indexed, completions: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 3}}`,
			[]string{"spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions"}},
		{"many completions", `{spec: {completionMode: Indexed, completions: 100001, parallelism: 10001, backoffLimitPerIndex: 1}}`, []string{
			"spec.maxFailedIndexes: Required value: must be specified when completions is above 100000",
			"spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index"}},
		{"backoff per index needs indexes", `{spec: {backoffLimitPerIndex: 1}}`,
			[]string{"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"}},
		{"max failed indexes alone", `{spec: {completionMode: Indexed, completions: 2, maxFailedIndexes: 1}}`,
			[]string{"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"}},
		{"pod names", `{metadata: {name: indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}, spec: {completionMode: Indexed, completions: 10}}`,
			[]string{`metadata.name: Invalid value: "indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": will not able to create pod with invalid DNS label: indexed-job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-9`}},
		{"exit codes", `{spec: {podReplacementPolicy: TerminatingOrFailed, podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [2, 0, 2]}}]}}}`, []string{
			"spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
			"spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2",
			"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [2,0,2]: must be ordered",
			`spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`}},
		{"failure rule", `{spec: {podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {containerName: d, operator: Maybe, values: [1]},
			onPodConditions: [{type: DisruptionTarget, status: Maybe}]}, {action: Ignore}]}, template: {spec: {restartPolicy: OnFailure}}}}`, []string{
			`spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`,
			`spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Maybe": supported values: "In", "NotIn"`,
			`spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "d": must be one of the container or initContainer names in the pod template`,
			`spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
			"spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
			"spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
			`spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`}},
		{"success policy without indexes", `{spec: {successPolicy: {rules: [{succeededCount: 1}]}}}`,
			[]string{`spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}: requires indexed completion mode`}},
		{"success policy", `{spec: {completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededIndexes: "0-1,3", succeededCount: 4}, {succeededIndexes: "2-1"}, {}]}}}`, []string{
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)",
			`spec.successPolicy.rules[1].succeededIndexes: Invalid value: "2-1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1`,
			"spec.successPolicy.rules[2]: Required value: at least one of succeededCount or succeededIndexes must be specified"}},
		{"managed by", `{spec: {managedBy: no-domain}}`,
			[]string{`spec.managedBy: Invalid value: "no-domain": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{"pod template", `{spec: {template: {spec: {containers: []}}}}`, []string{"spec.template.spec.containers: Required value"}},
	}.Run(t, kinds["Job"], job, nil)
}

func TestJobUpdate(t *testing.T) {
	stored := func(doc string) *batchv1.Job {
		j := &batchv1.Job{}
		vt.Decode(t, j, job, doc)
		prepareJob(j, nil)
		return j
	}
	old := stored(`{}`)
	// What the client sends back: the stored Job with a change.
	sent := `{metadata: {uid: "0e6b1c7d"}, spec: {completions: 1, parallelism: 1, selector: {matchLabels: {batch.kubernetes.io/controller-uid: "0e6b1c7d"}},
		template: {metadata: {labels: ` + jobLabels + `}}}}`
	for _, tc := range []struct {
		name string
		old  *batchv1.Job
		doc  string
		want []string
	}{
		{"parallelism", old, `{spec: {parallelism: 3, suspend: true, activeDeadlineSeconds: 10}}`, nil},
		{"completions", old, `{spec: {completions: 3}}`, []string{"spec.completions: Invalid value: 3: field is immutable"}},
		{"image", old, `{spec: {template: {spec: {containers: [{name: c, image: other}]}}}}`, []string{`spec.template: Invalid value: {"labels":{"batch.kubernetes.io/controller-uid":"0e6b1c7d",`}},
		{"indexed scaling", stored(`{spec: {completionMode: Indexed, completions: 2, parallelism: 2}}`),
			`{spec: {completionMode: Indexed, completions: 4, parallelism: 4}}`, nil},
		{"indexed completions alone", stored(`{spec: {completionMode: Indexed, completions: 2, parallelism: 2}}`),
			`{spec: {completionMode: Indexed, completions: 4, parallelism: 2}}`, []string{"spec.completions: Invalid value: 4: can only be modified in tandem with spec.parallelism"}},
		{"suspended: moved and resized", stored(`{spec: {suspend: true}}`), `{spec: {suspend: true, template: {spec: {nodeSelector: {zone: a},
			containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}}}}`, nil},
		{"suspended: not the image", stored(`{spec: {suspend: true}}`), `{spec: {suspend: true, template: {spec: {containers: [{name: c, image: other}]}}}}`,
			[]string{`spec.template.spec: Invalid value: {"Volumes":null`}},
		{"completion mode", old, `{spec: {completionMode: Indexed}}`, []string{`spec.completionMode: Invalid value: "Indexed": field is immutable`}},
	} {
		j := &batchv1.Job{}
		vt.Decode(t, j, job, sent, tc.doc)
		if tc.old != old {
			// The stored object's own labels and selector.
			j.UID, j.Spec.Selector, j.Spec.Template.Labels = tc.old.UID, tc.old.Spec.Selector, tc.old.Spec.Template.Labels
		}
		vt.Expect(t, tc.name, vt.Merged(t, j, tc.old, ValidateJobUpdate(j, tc.old)), tc.want...)
	}
}

func TestJobStatus(t *testing.T) {
	job := func(doc string) *batchv1.Job {
		j := &batchv1.Job{}
		vt.Decode(t, j, job, doc)
		prepareJob(j, nil)
		return j
	}
	const start = `startTime: "2026-01-01T00:00:00Z"`
	old := job(`{}`)
	for _, tc := range []struct {
		name     string
		obj, old *batchv1.Job
		want     []string
	}{
		{"running", job(`{status: {active: 2, ready: 1, ` + start + `}}`), old, nil},
		{"complete", job(`{status: {succeeded: 1, ` + start + `, completionTime: "2026-01-01T00:01:00Z",
			conditions: [{type: SuccessCriteriaMet, status: "True"}, {type: Complete, status: "True"}]}}`), old, nil},
		{"counters down", job(`{status: {succeeded: 1, failed: 1}}`), job(`{status: {succeeded: 2, failed: 2}}`), []string{
			"status.failed: Invalid value: 1: cannot decrease the failed counter",
			"status.succeeded: Invalid value: 1: cannot decrease the succeeded counter"}},
		{"complete without criteria", job(`{status: {` + start + `, conditions: [{type: Complete, status: "True"}]}}`), old, []string{
			"status.completionTime: Required value: completionTime is required for Complete jobs",
			"status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition"}},
		{"failed without target", job(`{status: {active: 1, conditions: [{type: Failed, status: "True"}]}}`), old, []string{
			"status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition",
			"status.active: Invalid value: 1: active>0 is invalid for finished job",
			"status.startTime: Required value: startTime is required for finished job"}},
		{"ready over active", job(`{status: {active: 1, ready: 2}}`), old, []string{"status.ready: Invalid value: 2: cannot set more ready pods than active"}},
		{"start time", job(`{status: {startTime: "2026-01-01T01:00:00Z"}}`), job(`{status: {` + start + `}}`),
			[]string{`status.startTime: Invalid value: "2026-01-01T01:00:00Z": field is immutable for unsuspended job once set`}},
		{"terminal condition", job(`{status: {` + start + `}}`), job(`{status: {` + start + `, conditions: [{type: FailureTarget, status: "True"}]}}`),
			[]string{"status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition"}},
		{"uncounted", job(`{status: {uncountedTerminatedPods: {succeeded: [a, ""], failed: [a]}}}`), old, []string{
			`status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty`,
			`status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"`}},
		{"completed indexes", job(`{status: {completedIndexes: "0"}}`), old,
			[]string{`status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode`}},
		{"indexes overlap", job(`{spec: {completionMode: Indexed, completions: 6, backoffLimitPerIndex: 1}, status: {completedIndexes: "0-2,7", failedIndexes: "1,4"}}`),
			job(`{spec: {completionMode: Indexed, completions: 6, backoffLimitPerIndex: 1}}`), []string{
				`status.completedIndexes: Invalid value: "0-2,7": error parsing completedIndexes: too large index: "7"`,
				`status.failedIndexes: Invalid value: "1,4": failedIndexes and completedIndexes overlap at index: 1`}},
	} {
		vt.Expect(t, tc.name, ValidateJobStatusUpdate(tc.obj, tc.old), tc.want...)
	}
}

const cronJob = `{metadata: {name: cj, namespace: ns, resourceVersion: "1"}, spec: {schedule: "*/5 * * * *",
	jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}}}}}}`

func TestCronJob(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"descriptor", `{spec: {schedule: "@every 5m"}}`, nil},
		{"time zone", `{spec: {timeZone: Europe/Paris}}`, nil},
		{"schedule", `{spec: {schedule: "* * * * * *"}}`, []string{`spec.schedule: Invalid value: "* * * * * *": expected exactly 5 fields, found 6: [* * * * * *]`}},
		{"out of range", `{spec: {schedule: "61 * * * *"}}`, []string{`spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`}},
		{"TZ", `{spec: {schedule: "CRON_TZ=UTC 0 * * * *"}}`,
			[]string{`spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"parser panic", `{spec: {schedule: "TZ=0"}}`, []string{
			`spec.schedule: Invalid value: "TZ=0": invalid schedule format: runtime error: slice bounds out of range [:-1]`,
			`spec.schedule: Invalid value: "TZ=0": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`}},
		{"no schedule", `{spec: {schedule: ""}}`, []string{"spec.schedule: Required value"}},
		{"unknown zone", `{spec: {timeZone: Mars/Olympus}}`, []string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`}},
		{"local zone", `{spec: {timeZone: Local}}`,
			[]string{`spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`}},
		{"path as zone", `{spec: {timeZone: ../etc}}`, []string{`spec.timeZone: Invalid value: "../etc": unknown time zone ../etc`}},
		{"concurrency", `{spec: {concurrencyPolicy: Sometimes}}`,
			[]string{`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`}},
		{"deadline and limits", `{spec: {startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -1}}`, []string{
			"spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
			"spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0"}},
		{"selector", `{spec: {jobTemplate: {spec: {manualSelector: true, selector: {matchLabels: {a: b}}}}}}`, []string{
			"spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated",
			`spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"`}},
		{"restart policy", `{spec: {jobTemplate: {spec: {template: {spec: {restartPolicy: Always}}}}}}`,
			[]string{`spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"name", `{metadata: {name: a-cronjob-name-that-is-longer-than-fifty-two-characters}}`,
			[]string{`metadata.name: Invalid value: "a-cronjob-name-that-is-longer-than-fifty-two-characters": must be no more than 52 characters`}},
	}.Run(t, kinds["CronJob"], cronJob, nil)

	long := &batchv1.CronJob{}
	vt.Decode(t, long, cronJob, `{metadata: {name: a-cronjob-name-that-is-longer-than-fifty-two-characters}}`)
	vt.Cases{
		{"long name", `{metadata: {name: a-cronjob-name-that-is-longer-than-fifty-two-characters}}`, nil},
	}.Run(t, kinds["CronJob"], cronJob, long)
	tz := &batchv1.CronJob{}
	vt.Decode(t, tz, cronJob, `{spec: {schedule: "TZ=UTC 0 * * * *"}}`)
	vt.Cases{
		{"TZ kept", `{spec: {schedule: "TZ=UTC 0 * * * *"}}`, nil},
		{"TZ and time zone", `{spec: {schedule: "TZ=UTC 0 * * * *", timeZone: UTC}}`,
			[]string{`spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule`}},
	}.Run(t, kinds["CronJob"], cronJob, tz)
}
