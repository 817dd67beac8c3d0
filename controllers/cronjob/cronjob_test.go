package cronjob_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestInAChain runs the CronJob controller as the chain runs it (picked by kube-controller-
// manager's names, "cronjob" and "job"), on the real clock: an every-minute CronJob gets its Job
// at the next minute, while a yearly one, whose time never comes in a test, gets Jobs made by
// hand with kubectl create job --from, which it counts and prunes.
func TestInAChain(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{"cronjob", "job", controllers.NodeLifecycle, controllers.Scheduler,
			controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.GarbageCollector}
	})
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	cronJobs := cs.BatchV1().CronJobs("default")
	newCronJob := func(name, schedule string) *batchv1.CronJob {
		return &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: batchv1.CronJobSpec{
				Schedule:                   schedule,
				SuccessfulJobsHistoryLimit: ptr.To[int32](1),
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kubelet.RunSecondsAnnotation: "0"}},
					Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "tick", Image: "busybox"}}},
				}}},
			},
		}
	}
	// Created first, so that its minute passes while the rest runs.
	if _, err := cronJobs.Create(ctx, newCronJob("every-minute", "* * * * *"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cronJobs.Create(ctx, newCronJob("yearly", "0 0 1 1 *"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	kubectl := func(want string, args ...string) {
		t.Helper()
		out, err := testchain.Kubectl(t, c, args...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("kubectl %s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, want)
		}
	}
	cronJob := func(name string, cond func(*batchv1.CronJob) bool) *batchv1.CronJob {
		t.Helper()
		var cj *batchv1.CronJob
		testchain.Eventually(t, "cronjob "+name, func(ctx context.Context) (bool, error) {
			var err error
			cj, err = cronJobs.Get(ctx, name, metav1.GetOptions{})
			return err == nil && cond(cj), err
		})
		return cj
	}
	jobs := func(name string) []string {
		t.Helper()
		list, err := cs.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, j := range list.Items {
			if ref := metav1.GetControllerOf(&j); ref != nil && ref.Name == name && j.DeletionTimestamp == nil {
				names = append(names, j.Name)
			}
		}
		slices.Sort(names)
		return names
	}

	// By hand: the Job is the CronJob's (kubectl sets the controller reference), runs, and its
	// completion is the CronJob's lastSuccessfulTime; it never was active, as in kube.
	kubectl("job.batch/by-hand-1 created", "create", "job", "by-hand-1", "--from=cronjob/yearly")
	kubectl("condition met", "wait", "--for=condition=complete", "job/by-hand-1", "--timeout=2m")
	first, err := cs.BatchV1().Jobs("default").Get(ctx, "by-hand-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cj := cronJob("yearly", func(cj *batchv1.CronJob) bool { return cj.Status.LastSuccessfulTime != nil })
	if !cj.Status.LastSuccessfulTime.Equal(first.Status.CompletionTime) || cj.Status.LastScheduleTime != nil || len(cj.Status.Active) != 0 {
		t.Errorf("status %+v after a Job by hand completed at %v", cj.Status, first.Status.CompletionTime)
	}
	// A second one: with successfulJobsHistoryLimit 1, the first goes.
	kubectl("job.batch/by-hand-2 created", "create", "job", "by-hand-2", "--from=cronjob/yearly")
	kubectl("condition met", "wait", "--for=condition=complete", "job/by-hand-2", "--timeout=2m")
	testchain.Eventually(t, "only the newer Job by hand kept", func(context.Context) (bool, error) {
		return slices.Equal(jobs("yearly"), []string{"by-hand-2"}), nil
	})

	// On the schedule: within a minute, a Job named after its minute, which completes; the
	// CronJob records both times.
	cj = cronJob("every-minute", func(cj *batchv1.CronJob) bool { return cj.Status.LastSuccessfulTime != nil })
	// It may have started the next minute's since; the one of lastScheduleTime is there.
	if want := fmt.Sprintf("every-minute-%d", cj.Status.LastScheduleTime.Unix()/60); !slices.Contains(jobs("every-minute"), want) {
		t.Errorf("jobs %v, want %s among them; status %+v", jobs("every-minute"), want, cj.Status)
	}
	kubectl("every-minute", "get", "cronjob", "every-minute")
}
