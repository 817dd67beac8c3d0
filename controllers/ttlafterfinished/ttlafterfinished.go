// Package ttlafterfinished deletes finished Jobs once their ttlSecondsAfterFinished has passed.
//
// kube-controller-manager's ttl-after-finished-controller watches Jobs; a Job that is Complete
// or Failed and has spec.ttlSecondsAfterFinished is deleted (in the background: the garbage
// collector takes its pods) that many seconds after it finished, counted from its Complete or
// Failed condition. Ours does the same. Before deleting it reads the Job again from the API, so
// that a TTL changed meanwhile is honoured, and deletes with the uid and resourceVersion it read
// as preconditions.
//
// Left out: metrics, and the clock skew warning kube logs for a finish time in the future.
package ttlafterfinished

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// Controller deletes expired Jobs. Build it with New, start it with Run.
type Controller struct {
	client kubernetes.Interface
	jobs   batchlisters.JobLister
	synced cache.InformerSynced
	queue  loop.Queue
}

// New returns the controller, watching Jobs through the shared informer given.
func New(client kubernetes.Interface, jobs batchinformers.JobInformer) (*Controller, error) {
	c := &Controller{client: client, jobs: jobs.Lister(), synced: jobs.Informer().HasSynced, queue: loop.NewQueue("ttl_jobs_to_delete")}
	if _, err := jobs.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching jobs: %w", err)
	}
	return c, nil
}

// Run deletes expired Jobs with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, c.queue, workers, c.sync, c.synced)
}

func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.jobs.Jobs(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if wait, due := expiry(cached, time.Now()); !due {
		if wait > 0 {
			c.queue.AddAfter(key, wait)
		}
		return nil
	}
	// The cache may be behind: the TTL may have changed since.
	job, err := c.client.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, due := expiry(job, time.Now()); !due {
		return nil // the next event of the Job brings it back
	}
	err = c.client.BatchV1().Jobs(namespace).Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground),
		Preconditions:     &metav1.Preconditions{UID: &job.UID, ResourceVersion: &job.ResourceVersion},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or changed: its update event brings it back
	}
	if err != nil {
		return fmt.Errorf("deleting expired job %s: %w", key, err)
	}
	return nil
}

// expiry says whether the finished Job's TTL has run out at now, or how long it still runs. A
// Job without a TTL, or not finished, or being deleted, never expires.
func expiry(job *batchv1.Job, now time.Time) (wait time.Duration, due bool) {
	ttl := job.Spec.TTLSecondsAfterFinished
	if ttl == nil || job.DeletionTimestamp != nil {
		return 0, false
	}
	i := slices.IndexFunc(job.Status.Conditions, func(c batchv1.JobCondition) bool {
		return (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue
	})
	if i < 0 {
		return 0, false
	}
	at := job.Status.Conditions[i].LastTransitionTime.Add(time.Duration(*ttl) * time.Second)
	if now.Before(at) {
		return at.Sub(now), false
	}
	return 0, true
}
