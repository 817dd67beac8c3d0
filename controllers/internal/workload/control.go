package workload

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
)

// PodControl creates and deletes an owner's pods: it tells Expect what it is about to write,
// and reports each write as an event on the owner (SuccessfulCreate, FailedDelete, …), which
// kubectl describe shows.
type PodControl struct {
	Client   kubernetes.Interface
	Recorder record.EventRecorder
	Expect   *Expectations
}

// Create creates n pods for the owner whose queue key is key: newPod(i) is the i-th. It creates
// them in batches (see InBatches) and returns the first error.
func (pc PodControl) Create(ctx context.Context, key string, o *Owner, n int, newPod func(i int) *corev1.Pod) error {
	pc.Expect.Expect(key, n)
	var next atomic.Int64
	notTried, err := InBatches(n, func() error {
		pod, err := pc.Client.CoreV1().Pods(o.Object.GetNamespace()).Create(ctx, newPod(int(next.Add(1)-1)), metav1.CreateOptions{})
		if err != nil {
			pc.Expect.Created(key, 1) // no event will come for it
			if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return nil // the namespace is going, and the owner with it
			}
			pc.Recorder.Eventf(o.ObjectRef(), corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			return err
		}
		pc.Recorder.Eventf(o.ObjectRef(), corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", pod.Name)
		return nil
	})
	pc.Expect.Created(key, notTried)
	return err
}

// Delete deletes pods, the owner's, all at once, and returns the first error. A pod already
// gone, or replaced by another of the same name, is not an error.
func (pc PodControl) Delete(ctx context.Context, key string, o *Owner, pods []*corev1.Pod) error {
	uids := make([]types.UID, len(pods))
	for i, p := range pods {
		uids[i] = p.UID
	}
	pc.Expect.Expect(key, 0, uids...)
	return Parallel(pods, func(p *corev1.Pod) error {
		err := pc.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(p.UID))})
		if err != nil {
			pc.Expect.Deleted(key, p.UID)
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				return nil
			}
			pc.Recorder.Eventf(o.ObjectRef(), corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
			return err
		}
		pc.Recorder.Eventf(o.ObjectRef(), corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
		return nil
	})
}
