package printers

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestJobCells follows upstream's TestPrintJob: completions, duration and
// status.
func TestJobCells(t *testing.T) {
	now := time.Now()
	completions := int32(2)
	parallelism := int32(3)
	future := metav1.Time{Time: time.Now().Add(1.9e9)}
	tenYears := metav1.Time{Time: time.Now().Add(-10 * 365 * 24 * time.Hour)}
	template := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "fake-job-container1", Image: "fake-job-image1"}, {Name: "fake-job-container2", Image: "fake-job-image2"}}}}
	withCondition := func(name string, c batchv1.JobConditionType) batchv1.Job {
		return batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: future},
			Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: c, Status: corev1.ConditionTrue}}}}
	}
	tests := []struct {
		name string
		job  batchv1.Job
		wide bool
		want []interface{}
	}{
		{"completions", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job1", CreationTimestamp: future},
			Spec:   batchv1.JobSpec{Completions: &completions, Template: template, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job-label": "job-lable-value"}}},
			Status: batchv1.JobStatus{Succeeded: 1}},
			false, []interface{}{"job1", "Running", "1/2", "", "0s"}},
		{"wide", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job1", CreationTimestamp: future},
			Spec:   batchv1.JobSpec{Completions: &completions, Template: template, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job-label": "job-label-value"}}},
			Status: batchv1.JobStatus{Succeeded: 1}},
			true, []interface{}{"job1", "Running", "1/2", "", "0s", "fake-job-container1,fake-job-container2", "fake-job-image1,fake-job-image2", "job-label=job-label-value"}},
		{"ten-year age", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job2", CreationTimestamp: metav1.Time{Time: time.Now().AddDate(-10, 0, 0)}}},
			false, []interface{}{"job2", "Running", "0/1", "", "10y"}},
		{"completed duration", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job3", CreationTimestamp: tenYears},
			Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: now.Add(time.Minute)}, CompletionTime: &metav1.Time{Time: now.Add(31 * time.Minute)}}},
			false, []interface{}{"job3", "Running", "0/1", "30m", "10y"}},
		{"running duration", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job4", CreationTimestamp: tenYears},
			Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: time.Now().Add(-20 * time.Minute)}}},
			false, []interface{}{"job4", "Running", "0/1", "20m", "10y"}},
		{"complete", withCondition("job5", batchv1.JobComplete), false, []interface{}{"job5", "Complete", "0/1", "", "0s"}},
		{"failed", withCondition("job6", batchv1.JobFailed), false, []interface{}{"job6", "Failed", "0/1", "", "0s"}},
		{"suspended", withCondition("job7", batchv1.JobSuspended), false, []interface{}{"job7", "Suspended", "0/1", "", "0s"}},
		{"failure target", withCondition("job8", batchv1.JobFailureTarget), false, []interface{}{"job8", "FailureTarget", "0/1", "", "0s"}},
		{"terminating", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job9", CreationTimestamp: future, DeletionTimestamp: &future}},
			false, []interface{}{"job9", "Terminating", "0/1", "", "0s"}},
		{"success criteria met", withCondition("job10", batchv1.JobSuccessCriteriaMet), false, []interface{}{"job10", "SuccessCriteriaMet", "0/1", "", "0s"}},
		// From printJob's logic: parallelism without completions.
		{"parallelism", batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job11", CreationTimestamp: future}, Spec: batchv1.JobSpec{Parallelism: &parallelism}, Status: batchv1.JobStatus{Succeeded: 1}},
			false, []interface{}{"job11", "Running", "1/1 of 3", "", "0s"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Job, &tc.job, tc.wide, tc.want)
	}
}

// TestDeploymentCells follows upstream's TestPrintDeployment.
func TestDeploymentCells(t *testing.T) {
	replicas := int32(5)
	d := appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "test1", CreationTimestamp: metav1.Time{Time: time.Now().Add(1.9e9)}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "fake-container1", Image: "fake-image1"}, {Name: "fake-container2", Image: "fake-image2"}}}},
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
		},
		Status: appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 2, AvailableReplicas: 1, UnavailableReplicas: 4},
	}
	checkRow(t, "default columns", Deployment, &d, false, []interface{}{"test1", "0/5", int64(2), int64(1), "0s"})
	checkRow(t, "wide", Deployment, &d, true, []interface{}{"test1", "0/5", int64(2), int64(1), "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"})
	d.Status.ReadyReplicas = 3
	checkRow(t, "ready", Deployment, &d, false, []interface{}{"test1", "3/5", int64(2), int64(1), "0s"})
}

// TestControllerRevisionCells follows upstream's TestPrintControllerRevision.
func TestControllerRevisionCells(t *testing.T) {
	future := metav1.Time{Time: time.Now().Add(1.9e9)}
	yes, no := true, false
	tests := []struct {
		name string
		cr   appsv1.ControllerRevision
		want []interface{}
	}{
		{"controller", appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "test1", CreationTimestamp: future,
			OwnerReferences: []metav1.OwnerReference{{Controller: &yes, APIVersion: "apps/v1", Kind: "DaemonSet", Name: "foo"}}}, Revision: 1},
			[]interface{}{"test1", "daemonset.apps/foo", int64(1), "0s"}},
		{"owner that is not the controller", appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "test2", CreationTimestamp: future,
			OwnerReferences: []metav1.OwnerReference{{Controller: &no, Kind: "ABC", Name: "foo"}}}, Revision: 2},
			[]interface{}{"test2", "<none>", int64(2), "0s"}},
		{"no owner", appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "test4", CreationTimestamp: future}, Revision: 4},
			[]interface{}{"test4", "<none>", int64(4), "0s"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, ControllerRevision, &tc.cr, true, tc.want)
	}
}

// TestCronJobCells follows upstream's TestPrintCronJob.
func TestCronJobCells(t *testing.T) {
	timeZone := "LOCAL"
	suspend := false
	future := metav1.Time{Time: time.Now().Add(1.9e9)}
	cj := batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "cronjob1", CreationTimestamp: future},
		Spec: batchv1.CronJobSpec{Schedule: "0/5 * * * ?", Suspend: &suspend, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "fake-job-container1", Image: "fake-job-image1"}, {Name: "fake-job-container2", Image: "fake-job-image2"}}}},
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		}}},
		Status: batchv1.CronJobStatus{LastScheduleTime: &future},
	}
	checkRow(t, "default columns", CronJob, &cj, false, []interface{}{"cronjob1", "0/5 * * * ?", "<none>", "False", int64(0), "0s", "0s"})
	cj.Spec.TimeZone = &timeZone
	checkRow(t, "wide with time zone", CronJob, &cj, true, []interface{}{"cronjob1", "0/5 * * * ?", "LOCAL", "False", int64(0), "0s", "0s",
		"fake-job-container1,fake-job-container2", "fake-job-image1,fake-job-image2", "a=b"})
	cj.Spec.Suspend = nil
	cj.Status = batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "j1"}, {Name: "j2"}}}
	checkRow(t, "unset suspend, active jobs, never scheduled", CronJob, &cj, false, []interface{}{"cronjob1", "0/5 * * * ?", "LOCAL", "<unset>", int64(2), "<none>", "0s"})
}
