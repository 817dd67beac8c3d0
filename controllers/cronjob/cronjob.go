// Package cronjob starts a CronJob's Jobs on its schedule.
//
// kube-controller-manager's cronjob-controller (its "v2") wakes up at each CronJob's next
// scheduled time, in spec.timeZone (or the controller's local time), and creates a Job from
// spec.jobTemplate named after the CronJob and the scheduled minute, so that the same time
// never gets two Jobs. A time missed for longer than startingDeadlineSeconds is skipped.
// concurrencyPolicy decides what happens while an earlier Job still runs: Allow starts the new
// one beside it, Forbid skips the time, Replace deletes the running Job first. suspend stops
// new Jobs, and successfulJobsHistoryLimit / failedJobsHistoryLimit bound the finished Jobs
// kept. Its status lists the active Jobs and the lastScheduleTime and lastSuccessfulTime.
//
// Ours does that, with kube's Job names, annotation (batch.kubernetes.io/cronjob-scheduled-
// timestamp), events and missed-time rules: after more than 100 missed times it warns
// (TooManyMissedTimes) and starts only the latest. Schedules are parsed by
// github.com/robfig/cron/v3, as kube's are. A Job made by hand from the CronJob (kubectl create
// job --from=cronjob/…) is controlled by it: it counts toward lastSuccessfulTime and the history
// limits, but not as active (kube reports it as UnexpectedJob); the Job controller runs it.
//
// Left out: metrics (kube's job creation skew).
package cronjob

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/internal/workload"
)

// Name is the controller's name in its events and writes.
const Name = "cronjob-controller"

var kind = batchv1.SchemeGroupVersion.WithKind("CronJob")

// Controller runs CronJobs. Build it with New, start it with Run.
type Controller struct {
	client   kubernetes.Interface
	cronJobs batchlisters.CronJobLister
	jobs     batchlisters.JobLister
	synced   []cache.InformerSynced
	queue    loop.Queue
	// clock tells the time schedules are compared with; tests set a fake one.
	clock    clock.PassiveClock
	recorder record.EventRecorder // set by Run
}

// New returns the controller, watching CronJobs and Jobs through the shared informers given.
func New(client kubernetes.Interface, cronJobs batchinformers.CronJobInformer, jobs batchinformers.JobInformer) (*Controller, error) {
	c := &Controller{
		client:   client,
		cronJobs: cronJobs.Lister(),
		jobs:     jobs.Lister(),
		synced:   []cache.InformerSynced{cronJobs.Informer().HasSynced, jobs.Informer().HasSynced},
		queue:    loop.NewQueue(Name),
		clock:    clock.RealClock{},
	}
	if _, err := cronJobs.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching cronjobs: %w", err)
	}
	// A Job that changes (finishes, goes) brings its CronJob back. CronJobs adopt nothing: a
	// Job is theirs only through the controller reference they (or kubectl) gave it.
	if _, err := jobs.Informer().AddEventHandler(workload.Dependents(c.queue, nil, controllerOf)); err != nil {
		return nil, fmt.Errorf("watching jobs: %w", err)
	}
	return c, nil
}

// Run syncs CronJobs with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.recorder = loop.Recorder(ctx, c.client, Name)
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// controllerOf names the CronJob that controls a Job.
func controllerOf(job metav1.Object) ([]string, bool) {
	ref := metav1.GetControllerOfNoCopy(job)
	if ref == nil || ref.Kind != kind.Kind {
		return nil, false
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != kind.Group {
		return nil, false
	}
	return []string{job.GetNamespace() + "/" + ref.Name}, true
}
