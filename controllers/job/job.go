// Package job runs a Job's pods until enough of them succeed, or the Job fails.
//
// kube-controller-manager's job-controller creates a Job's pods (parallelism at a time, up to
// completions), counts the pods that finish through the batch.kubernetes.io/job-tracking
// finalizer, so that no finished pod goes uncounted even if it is deleted at once, replaces
// failed pods after an exponential back-off until backoffLimit is exceeded or
// activeDeadlineSeconds passes, and reports it all in the Job's status, with the
// SuccessCriteriaMet/Complete and FailureTarget/Failed conditions kubectl reads.
//
// Ours does that for NonIndexed and Indexed Jobs, with suspend (Suspended condition, active pods
// deleted, startTime reset on resume) and spec.managedBy (a Job managed by another controller
// is left alone). A pod counts as failed when its phase is Failed or it is being deleted before
// it succeeded, as the simulated kubelet reports them (see kubelet/finish.go);
// with restartPolicy OnFailure, container restarts count toward backoffLimit too. The back-off
// before a failed pod is replaced is 10 s, doubled for every failure since the last success, at
// most 6 min.
//
// Left out: podFailurePolicy, successPolicy, backoffLimitPerIndex and maxFailedIndexes,
// podReplacementPolicy Failed (a failed pod is replaced once it is deleting). (Finished Jobs
// with ttlSecondsAfterFinished are deleted by controllers/ttlafterfinished.) Pods the controller
// deletes itself (suspension, parallelism lowered, success reached) are not counted as failed;
// those it deletes because the Job failed are.
package job

import (
	"context"
	"fmt"
	"slices"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/internal/workload"
)

// Name is the controller's name in spec.managedBy, its events and its writes.
const Name = "job-controller"

var kind = batchv1.SchemeGroupVersion.WithKind("Job")

// Controller runs Jobs. Build it with New, start it with Run.
type Controller struct {
	client kubernetes.Interface
	jobs   batchlisters.JobLister
	pods   corelisters.PodLister
	synced []cache.InformerSynced
	queue  loop.Queue
	expect *workload.Expectations
	// counted holds the UIDs of finished pods this controller counted and took the tracking
	// finalizer off, until the pod informer shows them without it: a sync that runs before
	// then sees the finalizer still on, and must not count the pod a second time.
	counted sync.Map
	// podControl writes pods and reports events; set by Run, which has the context events
	// are recorded in.
	podControl workload.PodControl
}

// New returns the controller, watching Jobs and pods through the shared informers given.
func New(client kubernetes.Interface, jobs batchinformers.JobInformer, pods coreinformers.PodInformer) (*Controller, error) {
	c := &Controller{
		client: client,
		jobs:   jobs.Lister(),
		pods:   pods.Lister(),
		synced: []cache.InformerSynced{jobs.Informer().HasSynced, pods.Informer().HasSynced},
		queue:  loop.NewQueue(Name),
		expect: workload.NewExpectations(),
	}
	if _, err := jobs.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching jobs: %w", err)
	}
	if _, err := pods.Informer().AddEventHandler(workload.Dependents(c.queue, c.expect, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { c.observe(obj) },
		DeleteFunc: c.forget,
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return c, nil
}

// Run syncs Jobs with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.podControl = workload.PodControl{Client: c.client, Recorder: loop.Recorder(ctx, c.client, Name), Expect: c.expect}
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// observe forgets a counted pod once the informer shows it without the tracking finalizer.
func (c *Controller) observe(obj any) {
	if p, ok := obj.(*corev1.Pod); ok && !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
		c.counted.Delete(p.UID)
	}
}

// forget forgets a pod that is gone.
func (c *Controller) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if p, ok := obj.(*corev1.Pod); ok {
		c.counted.Delete(p.UID)
	}
}

// ownersOf names the Job controlling pod, or the Jobs that may adopt it. A pod that still
// carries the tracking finalizer names its Job even when that is gone: the Job's key is
// synced, finds no Job, and takes the finalizer off.
func (c *Controller) ownersOf(pod metav1.Object) ([]string, bool) {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil && ref.Kind == kind.Kind && slices.Contains(pod.GetFinalizers(), batchv1.JobTrackingFinalizer) {
		return []string{pod.GetNamespace() + "/" + ref.Name}, true
	}
	jobs, err := c.jobs.Jobs(pod.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, false
	}
	return workload.OwnersOf(pod, kind, jobs, func(j *batchv1.Job) labels.Selector { return workload.Selector(j.Spec.Selector) })
}

// owner is job as the owner of its pods. A pod it releases loses the tracking finalizer too.
func (c *Controller) owner(job *batchv1.Job, selector labels.Selector) *workload.Owner {
	return &workload.Owner{
		Object:   job,
		Kind:     kind,
		Selector: selector,
		Fresh: func(ctx context.Context) (metav1.Object, error) {
			return c.client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		},
		Patch:            c.patchPod(job.Namespace),
		ReleaseFinalizer: batchv1.JobTrackingFinalizer,
	}
}

func (c *Controller) patchPod(namespace string) func(ctx context.Context, name string, patch []byte) error {
	return func(ctx context.Context, name string, patch []byte) error {
		_, err := c.client.CoreV1().Pods(namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: Name})
		return err
	}
}
