package job_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestJobs runs Jobs to their end on the simulated kubelets, whose pods finish as their
// annotations say, and checks the status kube's job controller reports.
func TestJobs(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.Job, controllers.TTLAfterFinished, controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet, controllers.NodeIPAM}
		o.Nodes = 2
	})
	cs, _ := testchain.Clients(t, c)

	// Three completions, two at a time: the pods carry the tracking finalizer until they are
	// counted, and the Job ends Complete.
	t.Run("Complete", func(t *testing.T) {
		job := create(t, cs, "pi", 3, 2, 0, map[string]string{kubelet.RunSecondsAnnotation: "2"})
		poll(t, "pods with the tracking finalizer", func(ctx context.Context) (bool, error) {
			pods := podsOf(t, cs, job)
			return len(pods) == 2 && slices.Contains(pods[0].Finalizers, batchv1.JobTrackingFinalizer), nil
		})
		for _, p := range podsOf(t, cs, job) {
			if !strings.HasPrefix(p.Name, "pi-") || p.Labels[batchv1.JobNameLabel] != "pi" || p.Labels[batchv1.ControllerUidLabel] != string(job.UID) ||
				len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != job.UID || !ptr.Deref(p.OwnerReferences[0].Controller, false) {
				t.Errorf("pod %s: labels %v, ownerReferences %+v", p.Name, p.Labels, p.OwnerReferences)
			}
		}
		job = waitFinished(t, cs, "pi", batchv1.JobComplete)
		st := job.Status
		if st.Succeeded != 3 || st.Failed != 0 || st.Active != 0 || ptr.Deref(st.Ready, -1) != 0 || ptr.Deref(st.Terminating, -1) != 0 {
			t.Errorf("counts: succeeded %d failed %d active %d ready %v terminating %v", st.Succeeded, st.Failed, st.Active, st.Ready, st.Terminating)
		}
		if st.StartTime == nil || st.CompletionTime == nil || st.CompletionTime.Before(st.StartTime) {
			t.Errorf("startTime %v completionTime %v", st.StartTime, st.CompletionTime)
		}
		if st.UncountedTerminatedPods == nil || len(st.UncountedTerminatedPods.Succeeded)+len(st.UncountedTerminatedPods.Failed) != 0 {
			t.Errorf("uncountedTerminatedPods %+v", st.UncountedTerminatedPods)
		}
		if got := conditions(job); got != "SuccessCriteriaMet=True/CompletionsReached/Reached expected number of succeeded pods,Complete=True/CompletionsReached/Reached expected number of succeeded pods" {
			t.Errorf("conditions %s", got)
		}
		pods := podsOf(t, cs, job)
		if len(pods) != 3 {
			t.Errorf("%d pods, want 3", len(pods))
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodSucceeded || slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
				t.Errorf("pod %s: phase %s, finalizers %v", p.Name, p.Status.Phase, p.Finalizers)
			}
			cs := p.Status.ContainerStatuses[0]
			if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 || cs.State.Terminated.Reason != "Completed" {
				t.Errorf("pod %s: container %+v", p.Name, cs.State)
			}
		}
	})

	// A pod that fails, with no retries left: the Job fails.
	t.Run("BackoffLimitExceeded", func(t *testing.T) {
		create(t, cs, "doomed", 1, 1, 0, map[string]string{kubelet.ExitCodeAnnotation: "3"})
		job := waitFinished(t, cs, "doomed", batchv1.JobFailed)
		st := job.Status
		if st.Failed != 1 || st.Succeeded != 0 || st.Active != 0 || st.StartTime == nil || st.CompletionTime != nil {
			t.Errorf("status %+v", st)
		}
		if got := conditions(job); got != "FailureTarget=True/BackoffLimitExceeded/Job has reached the specified backoff limit,Failed=True/BackoffLimitExceeded/Job has reached the specified backoff limit" {
			t.Errorf("conditions %s", got)
		}
		pods := podsOf(t, cs, job)
		if len(pods) != 1 || pods[0].Status.Phase != corev1.PodFailed || pods[0].Status.ContainerStatuses[0].State.Terminated.ExitCode != 3 {
			t.Errorf("pods %+v", pods)
		}
	})

	// Indexed: each index completes once, and the status says which.
	t.Run("Indexed", func(t *testing.T) {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "indexed"},
			Spec: batchv1.JobSpec{Completions: ptr.To[int32](3), Parallelism: ptr.To[int32](3), CompletionMode: ptr.To(batchv1.IndexedCompletion),
				Template: template(map[string]string{kubelet.RunSecondsAnnotation: "0"})},
		}
		if _, err := cs.BatchV1().Jobs("default").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		got := waitFinished(t, cs, "indexed", batchv1.JobComplete)
		if got.Status.CompletedIndexes != "0-2" || got.Status.Succeeded != 3 {
			t.Errorf("completedIndexes %q succeeded %d", got.Status.CompletedIndexes, got.Status.Succeeded)
		}
		var indexes []string
		for _, p := range podsOf(t, cs, got) {
			i := p.Annotations[batchv1.JobCompletionIndexAnnotation]
			indexes = append(indexes, i)
			env := p.Spec.Containers[0].Env
			if p.Labels[batchv1.JobCompletionIndexAnnotation] != i || p.Spec.Hostname != "indexed-"+i || !strings.HasPrefix(p.Name, "indexed-"+i+"-") ||
				len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
				t.Errorf("pod %s of index %s: labels %v, hostname %q, env %+v", p.Name, i, p.Labels, p.Spec.Hostname, env)
			}
		}
		slices.Sort(indexes)
		if fmt.Sprint(indexes) != "[0 1 2]" {
			t.Errorf("completion indexes of the pods: %v", indexes)
		}
	})

	// No completions: a work queue, done once a pod succeeded and none runs.
	t.Run("WorkQueue", func(t *testing.T) {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "queue"},
			Spec:       batchv1.JobSpec{Parallelism: ptr.To[int32](2), Template: template(map[string]string{kubelet.RunSecondsAnnotation: "1"})},
		}
		if _, err := cs.BatchV1().Jobs("default").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := waitFinished(t, cs, "queue", batchv1.JobComplete); got.Status.Succeeded != 2 || got.Status.Failed != 0 {
			t.Errorf("succeeded %d failed %d, want 2 and 0", got.Status.Succeeded, got.Status.Failed)
		}
	})

	// A failed pod is replaced after a back-off of 10 s; the second failure exceeds
	// backoffLimit 1.
	t.Run("RetriesAfterBackOff", func(t *testing.T) {
		job := create(t, cs, "flaky", 1, 1, 1, map[string]string{kubelet.ExitCodeAnnotation: "1"})
		job = waitFinished(t, cs, "flaky", batchv1.JobFailed)
		if st := job.Status; st.Failed != 2 || st.Succeeded != 0 || st.Active != 0 {
			t.Errorf("failed %d succeeded %d active %d, want 2, 0, 0", st.Failed, st.Succeeded, st.Active)
		}
		pods := podsOf(t, cs, job)
		if len(pods) != 2 {
			t.Fatalf("%d pods, want 2", len(pods))
		}
		slices.SortFunc(pods, func(a, b corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
		failedAt := pods[0].Status.ContainerStatuses[0].State.Terminated.FinishedAt
		// Timestamps have seconds: 10 s of back-off show as 9 at least.
		if gap := pods[1].CreationTimestamp.Sub(failedAt.Time); gap < 9*time.Second {
			t.Errorf("the replacement came %s after the failure, want the 10 s back-off", gap)
		}
	})

	// restartPolicy OnFailure: the kubelet restarts the failed container in place, and the
	// restart counts toward backoffLimit.
	t.Run("OnFailureRestartsCount", func(t *testing.T) {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "restarts"},
			Spec:       batchv1.JobSpec{BackoffLimit: ptr.To[int32](1), Template: template(map[string]string{kubelet.ExitCodeAnnotation: "2"})},
		}
		job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		if _, err := cs.BatchV1().Jobs("default").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		got := waitFinished(t, cs, "restarts", batchv1.JobFailed)
		if c := conditions(got); !strings.Contains(c, "Failed=True/BackoffLimitExceeded/") || got.Status.Active != 0 {
			t.Errorf("conditions %s, active %d", c, got.Status.Active)
		}
	})

	// activeDeadlineSeconds: the Job fails when it runs longer, and its pods are stopped (and
	// counted as failed).
	t.Run("DeadlineExceeded", func(t *testing.T) {
		job := create(t, cs, "slow", 2, 2, 6, map[string]string{kubelet.RunSecondsAnnotation: "3600"})
		if _, err := cs.BatchV1().Jobs("default").Patch(context.Background(), "slow", types.MergePatchType, []byte(`{"spec":{"activeDeadlineSeconds":2}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		job = waitFinished(t, cs, "slow", batchv1.JobFailed)
		if got := conditions(job); got != "FailureTarget=True/DeadlineExceeded/Job was active longer than specified deadline,Failed=True/DeadlineExceeded/Job was active longer than specified deadline" {
			t.Errorf("conditions %s", got)
		}
		if st := job.Status; st.Failed != 2 || st.Active != 0 || ptr.Deref(st.Terminating, -1) != 0 {
			t.Errorf("failed %d active %d terminating %v, want 2, 0, 0", st.Failed, st.Active, st.Terminating)
		}
		poll(t, "the pods stopped", func(ctx context.Context) (bool, error) { return len(podsOf(t, cs, job)) == 0, nil })
	})

	// Suspended, a Job's pods are stopped (not counted as failed); resumed, it starts again,
	// its startTime anew, and completes.
	t.Run("SuspendAndResume", func(t *testing.T) {
		job := create(t, cs, "nap", 1, 1, 0, map[string]string{kubelet.RunSecondsAnnotation: "3"})
		jobs := cs.BatchV1().Jobs("default")
		poll(t, "the pod running", func(ctx context.Context) (bool, error) {
			pods := podsOf(t, cs, job)
			return len(pods) == 1 && pods[0].Status.Phase == corev1.PodRunning, nil
		})
		if _, err := jobs.Patch(context.Background(), "nap", types.MergePatchType, []byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		var suspended *batchv1.Job
		poll(t, "the job suspended, its pod gone", func(ctx context.Context) (bool, error) {
			var err error
			suspended, err = jobs.Get(ctx, "nap", metav1.GetOptions{})
			return err == nil && strings.Contains(conditions(suspended), "Suspended=True/JobSuspended/Job suspended") &&
				suspended.Status.Active == 0 && len(podsOf(t, cs, job)) == 0, err
		})
		if suspended.Status.Failed != 0 {
			t.Errorf("the stopped pod counted as failed: %d", suspended.Status.Failed)
		}
		if _, err := jobs.Patch(context.Background(), "nap", types.MergePatchType, []byte(`{"spec":{"suspend":false}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		done := waitFinished(t, cs, "nap", batchv1.JobComplete)
		if !strings.Contains(conditions(done), "Suspended=False/JobResumed/Job resumed") || done.Status.Succeeded != 1 || done.Status.Failed != 0 ||
			done.Status.StartTime.Before(suspended.Status.StartTime) {
			t.Errorf("after the resume: conditions %s, succeeded %d, failed %d, startTime %v (suspended: %v)",
				conditions(done), done.Status.Succeeded, done.Status.Failed, done.Status.StartTime, suspended.Status.StartTime)
		}
	})

	// ttlSecondsAfterFinished: the finished Job is deleted that long after it finished; a Job
	// without one stays.
	t.Run("TTLAfterFinished", func(t *testing.T) {
		// Watched, not polled: condition times have seconds, so the Job may go a moment after
		// it completes.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		w, err := cs.BatchV1().Jobs("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=shortlived"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "shortlived"},
			Spec:       batchv1.JobSpec{TTLSecondsAfterFinished: ptr.To[int32](1), Template: template(map[string]string{kubelet.RunSecondsAnnotation: "0"})},
		}
		if _, err := cs.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		completed, deleted := false, false
		for ev := range w.ResultChan() {
			if ev.Type == watch.Deleted {
				deleted = true
				break
			}
			if j, ok := ev.Object.(*batchv1.Job); ok && strings.Contains(conditions(j), "Complete=True") {
				completed = true
			}
		}
		if !completed || !deleted {
			t.Fatalf("completed %v, then deleted %v", completed, deleted)
		}
		if _, err := cs.BatchV1().Jobs("default").Get(context.Background(), "pi", metav1.GetOptions{}); err != nil {
			t.Errorf("the job without a TTL: %v", err)
		}
	})

	// A deleted Job's pods lose the tracking finalizer: nothing is left to count them for, and
	// the garbage collector (or anyone) can delete them.
	t.Run("DeletedJobReleasesPods", func(t *testing.T) {
		job := create(t, cs, "gone", 2, 2, 0, map[string]string{kubelet.RunSecondsAnnotation: "3600"})
		poll(t, "two tracked pods", func(ctx context.Context) (bool, error) {
			pods := podsOf(t, cs, job)
			return len(pods) == 2 && slices.Contains(pods[0].Finalizers, batchv1.JobTrackingFinalizer) && slices.Contains(pods[1].Finalizers, batchv1.JobTrackingFinalizer), nil
		})
		if err := cs.BatchV1().Jobs("default").Delete(context.Background(), "gone", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
			t.Fatal(err)
		}
		poll(t, "the finalizers removed", func(ctx context.Context) (bool, error) {
			for _, p := range podsOf(t, cs, job) {
				if slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
					return false, nil
				}
			}
			return true, nil
		})
	})
}

func template(annotations map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "pi", Image: "perl", Command: []string{"perl", "-e", "print 3.14"}}}},
	}
}

func create(t *testing.T, cs kubernetes.Interface, name string, completions, parallelism, backoffLimit int32, annotations map[string]string) *batchv1.Job {
	t.Helper()
	job, err := cs.BatchV1().Jobs("default").Create(context.Background(), &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{Completions: ptr.To(completions), Parallelism: ptr.To(parallelism), BackoffLimit: ptr.To(backoffLimit),
			Template: template(annotations)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func waitFinished(t *testing.T, cs kubernetes.Interface, name string, cond batchv1.JobConditionType) *batchv1.Job {
	t.Helper()
	var job *batchv1.Job
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		job, err = cs.BatchV1().Jobs("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range job.Status.Conditions {
			if c.Type == cond && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("job %s never %s: %+v", name, cond, job.Status)
	}
	return job
}

func conditions(job *batchv1.Job) string {
	var out []string
	for _, c := range job.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s/%s", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(out, ",")
}

func podsOf(t *testing.T, cs kubernetes.Interface, job *batchv1.Job) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(job.UID)})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
