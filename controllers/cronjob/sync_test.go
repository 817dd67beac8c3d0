package cronjob_test

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
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/controllers/cronjob"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestSyncOnAClock runs the sync function, against a real chain, at the times a fake clock
// says: schedules are a matter of minutes and hours, a test a matter of seconds. The chain runs
// the Job controller, the scheduler and a kubelet, so that Jobs really finish; the CronJob
// controller is this test's, synced by hand.
func TestSyncOnAClock(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.Job, controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.GarbageCollector}
	})
	cs, _ := testchain.Clients(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(cs, 0)
	ctrl, err := cronjob.New(cs, factory.Batch().V1().CronJobs(), factory.Batch().V1().Jobs())
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		ctrl.ShutDown()
		cancel() // stops the informers, which Shutdown waits for
		factory.Shutdown()
	}()
	factory.WaitForCacheSync(ctx.Done())

	h := &harness{t: t, ctx: ctx, cs: cs, c: ctrl, ns: "default",
		cronJobs: factory.Batch().V1().CronJobs().Lister(), jobCache: factory.Batch().V1().Jobs().Lister()}
	t.Run("Allow", h.allow)
	t.Run("Forbid", h.forbid)
	t.Run("Replace", h.replace)
	t.Run("StartingDeadline", h.startingDeadline)
	t.Run("Suspend", h.suspend)
	t.Run("TooManyMissed", h.tooManyMissed)
	t.Run("TimeZone", h.timeZone)
	t.Run("HistoryLimits", h.historyLimits)
}

// harness drives one controller, its syncs run by hand at the times of a fake clock.
type harness struct {
	t        *testing.T
	ctx      context.Context
	cs       kubernetes.Interface
	c        *cronjob.Controller
	ns       string
	clock    *clocktesting.FakeClock
	cronJobs batchlisters.CronJobLister // the controller's caches
	jobCache batchlisters.JobLister
}

// create creates a CronJob and sets the clock to its creation.
func (h *harness) create(name, schedule string, mod func(*batchv1.CronJob)) *batchv1.CronJob {
	h.t.Helper()
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.CronJobSpec{
			Schedule:                   schedule,
			ConcurrencyPolicy:          batchv1.AllowConcurrent,
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"cronjob": name}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "tick", Image: "busybox"}}},
				}},
			},
		},
	}
	if mod != nil {
		mod(cj)
	}
	created, err := h.cs.BatchV1().CronJobs(h.ns).Create(context.Background(), cj, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.clock = clocktesting.NewFakeClock(created.CreationTimestamp.Time)
	return created
}

// syncAt sets the clock to at and syncs the CronJob once the informers show what the API has
// (the CronJob's last status, its Jobs), and returns it as it is then.
func (h *harness) syncAt(name string, at time.Time) *batchv1.CronJob {
	h.t.Helper()
	h.clock.SetTime(at)
	testchain.Eventually(h.t, "the cache to catch up", func(ctx context.Context) (bool, error) {
		cj, err := h.cs.BatchV1().CronJobs(h.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cached, err := h.cronJobs.CronJobs(h.ns).Get(name)
		if err != nil || cached.ResourceVersion != cj.ResourceVersion {
			return false, nil
		}
		jobs, err := h.cs.BatchV1().Jobs(h.ns).List(ctx, metav1.ListOptions{LabelSelector: "cronjob=" + name})
		if err != nil {
			return false, err
		}
		for _, j := range jobs.Items {
			if c, err := h.jobCache.Jobs(h.ns).Get(j.Name); err != nil || c.ResourceVersion != j.ResourceVersion {
				return false, nil
			}
		}
		return true, nil
	})
	if err := h.c.SyncAt(h.ctx, h.clock, h.ns+"/"+name); err != nil {
		h.t.Fatalf("sync at %s: %v", at, err)
	}
	cj, err := h.cs.BatchV1().CronJobs(h.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return cj
}

// jobs lists the CronJob's Jobs (not being deleted) by name.
func (h *harness) jobs(name string) []string {
	h.t.Helper()
	list, err := h.cs.BatchV1().Jobs(h.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "cronjob=" + name})
	if err != nil {
		h.t.Fatal(err)
	}
	var names []string
	for _, j := range list.Items {
		if j.DeletionTimestamp == nil {
			names = append(names, j.Name)
		}
	}
	slices.Sort(names)
	return names
}

func jobName(cj string, at time.Time) string { return fmt.Sprintf("%s-%d", cj, at.Unix()/60) }

func active(cj *batchv1.CronJob) []string {
	var names []string
	for _, r := range cj.Status.Active {
		names = append(names, r.Name)
	}
	return names
}

// next5 is the first multiple of five minutes after t.
func next5(t time.Time) time.Time { return t.Truncate(5 * time.Minute).Add(5 * time.Minute) }

func (h *harness) event(name, reason string) {
	h.t.Helper()
	testchain.Eventually(h.t, "event "+reason, func(ctx context.Context) (bool, error) {
		events, err := h.cs.CoreV1().Events(h.ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",reason=" + reason})
		return err == nil && len(events.Items) > 0, err
	})
}

// allow: nothing before the first scheduled time; at it, its Job, named after the minute and
// annotated with the time, and once only; at the next, another beside it.
func (h *harness) allow(t *testing.T) {
	cj := h.create("allow", "*/5 * * * *", nil)
	first := next5(cj.CreationTimestamp.Time)
	if got := h.syncAt("allow", first.Add(-time.Second)); len(h.jobs("allow")) != 0 || got.Status.LastScheduleTime != nil {
		t.Fatalf("before its time: jobs %v, status %+v", h.jobs("allow"), got.Status)
	}
	got := h.syncAt("allow", first.Add(7*time.Second))
	if want := []string{jobName("allow", first)}; !slices.Equal(h.jobs("allow"), want) || !slices.Equal(active(got), want) ||
		!got.Status.LastScheduleTime.Time.Equal(first) {
		t.Fatalf("at the first time: jobs %v, status %+v; want %v", h.jobs("allow"), got.Status, want)
	}
	job, err := h.cs.BatchV1().Jobs(h.ns).Get(context.Background(), jobName("allow", first), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if job.Annotations[batchv1.CronJobScheduledTimestampAnnotation] != first.UTC().Format(time.RFC3339) || !metav1.IsControlledBy(job, cj) {
		t.Errorf("job annotations %v, owners %+v", job.Annotations, job.OwnerReferences)
	}
	h.syncAt("allow", first.Add(time.Minute))
	if len(h.jobs("allow")) != 1 {
		t.Errorf("a second job for the same time: %v", h.jobs("allow"))
	}
	second := first.Add(5 * time.Minute)
	got = h.syncAt("allow", second)
	if want := []string{jobName("allow", first), jobName("allow", second)}; !slices.Equal(h.jobs("allow"), want) || !slices.Equal(active(got), want) {
		t.Errorf("at the second time: jobs %v, active %v; want both", h.jobs("allow"), active(got))
	}
	h.event("allow", "SuccessfulCreate")
}

// forbid: the next time is skipped while a Job runs; once it is gone, the skipped time's Job
// starts late.
func (h *harness) forbid(t *testing.T) {
	cj := h.create("forbid", "*/5 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent })
	first := next5(cj.CreationTimestamp.Time)
	h.syncAt("forbid", first)
	second := first.Add(5 * time.Minute)
	h.syncAt("forbid", second)
	if want := []string{jobName("forbid", first)}; !slices.Equal(h.jobs("forbid"), want) {
		t.Fatalf("jobs %v while the first runs; want %v", h.jobs("forbid"), want)
	}
	h.event("forbid", "JobAlreadyActive")
	if err := h.cs.BatchV1().Jobs(h.ns).Delete(context.Background(), jobName("forbid", first), metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	testchain.Eventually(t, "the first job gone", func(ctx context.Context) (bool, error) {
		_, err := h.cs.BatchV1().Jobs(h.ns).Get(ctx, jobName("forbid", first), metav1.GetOptions{})
		return err != nil, nil
	})
	got := h.syncAt("forbid", second.Add(time.Minute))
	if want := []string{jobName("forbid", second)}; !slices.Equal(h.jobs("forbid"), want) || !slices.Equal(active(got), want) {
		t.Errorf("jobs %v, active %v; want the second time's, late", h.jobs("forbid"), active(got))
	}
	h.event("forbid", "MissingJob")
}

// replace: the running Job is deleted for the next.
func (h *harness) replace(t *testing.T) {
	cj := h.create("replace", "*/5 * * * *", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent })
	first := next5(cj.CreationTimestamp.Time)
	h.syncAt("replace", first)
	second := first.Add(5 * time.Minute)
	got := h.syncAt("replace", second)
	if want := []string{jobName("replace", second)}; !slices.Equal(h.jobs("replace"), want) || !slices.Equal(active(got), want) {
		t.Errorf("jobs %v, active %v; want only the second", h.jobs("replace"), active(got))
	}
	h.event("replace", "SuccessfulDelete")
}

// startingDeadline: a time missed by more than startingDeadlineSeconds is skipped.
func (h *harness) startingDeadline(t *testing.T) {
	cj := h.create("deadline", "*/5 * * * *", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](10) })
	first := next5(cj.CreationTimestamp.Time)
	if got := h.syncAt("deadline", first.Add(30*time.Second)); len(h.jobs("deadline")) != 0 || got.Status.LastScheduleTime != nil {
		t.Errorf("30 s late with a 10 s deadline: jobs %v, status %+v", h.jobs("deadline"), got.Status)
	}
	h.syncAt("deadline", first.Add(5*time.Minute+9*time.Second))
	if want := []string{jobName("deadline", first.Add(5*time.Minute))}; !slices.Equal(h.jobs("deadline"), want) {
		t.Errorf("9 s late: jobs %v, want %v", h.jobs("deadline"), want)
	}
}

// suspend: no Jobs while suspended.
func (h *harness) suspend(t *testing.T) {
	cj := h.create("suspended", "*/5 * * * *", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
	if h.syncAt("suspended", next5(cj.CreationTimestamp.Time)); len(h.jobs("suspended")) != 0 {
		t.Errorf("jobs %v of a suspended CronJob", h.jobs("suspended"))
	}
}

// tooManyMissed: after 200 missed minutes, a warning and the latest time's Job only.
func (h *harness) tooManyMissed(t *testing.T) {
	cj := h.create("behind", "* * * * *", nil)
	at := cj.CreationTimestamp.Add(200 * time.Minute)
	h.syncAt("behind", at)
	if want := []string{jobName("behind", at.Truncate(time.Minute))}; !slices.Equal(h.jobs("behind"), want) {
		t.Errorf("jobs %v, want %v", h.jobs("behind"), want)
	}
	h.event("behind", "TooManyMissedTimes")
}

// timeZone: 09:30 in Tokyo, and the Job's annotation written there.
func (h *harness) timeZone(t *testing.T) {
	cj := h.create("tokyo", "30 9 * * *", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Asia/Tokyo") })
	at := cj.CreationTimestamp.Add(25 * time.Hour)
	h.syncAt("tokyo", at)
	jobs := h.jobs("tokyo")
	if len(jobs) != 1 {
		t.Fatalf("jobs %v, want one", jobs)
	}
	job, err := h.cs.BatchV1().Jobs(h.ns).Get(context.Background(), jobs[0], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stamp := job.Annotations[batchv1.CronJobScheduledTimestampAnnotation]
	scheduled, err := time.Parse(time.RFC3339, stamp)
	if err != nil || !strings.HasSuffix(stamp, "T09:30:00+09:00") || scheduled.After(at) || at.Sub(scheduled) > 24*time.Hour ||
		jobs[0] != jobName("tokyo", scheduled) {
		t.Errorf("job %s scheduled %q at %s", jobs[0], stamp, at)
	}
}

// historyLimits: of the Jobs that succeeded, only the newest successfulJobsHistoryLimit stay,
// and lastSuccessfulTime is the last one's completion.
func (h *harness) historyLimits(t *testing.T) {
	cj := h.create("history", "*/5 * * * *", func(cj *batchv1.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](1)
		cj.Spec.JobTemplate.Spec.Template.Annotations = map[string]string{kubelet.RunSecondsAnnotation: "0"}
	})
	first := next5(cj.CreationTimestamp.Time)
	var got *batchv1.CronJob
	var at time.Time
	for i := range 3 {
		at = first.Add(time.Duration(i) * 5 * time.Minute)
		h.syncAt("history", at)
		testchain.Eventually(t, "the job complete", func(ctx context.Context) (bool, error) {
			j, err := h.cs.BatchV1().Jobs(h.ns).Get(ctx, jobName("history", at), metav1.GetOptions{})
			return err == nil && j.Status.CompletionTime != nil, err
		})
		got = h.syncAt("history", at.Add(time.Second))
	}
	if want := []string{jobName("history", at)}; !slices.Equal(h.jobs("history"), want) || len(got.Status.Active) != 0 {
		t.Errorf("jobs %v, active %v; want only the last, finished", h.jobs("history"), active(got))
	}
	last, err := h.cs.BatchV1().Jobs(h.ns).Get(context.Background(), jobName("history", at), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.LastSuccessfulTime == nil || !got.Status.LastSuccessfulTime.Equal(last.Status.CompletionTime) {
		t.Errorf("lastSuccessfulTime %v, want the last job's completion %v", got.Status.LastSuccessfulTime, last.Status.CompletionTime)
	}
	h.event("history", "SawCompletedJob")
}
