package workload

import (
	"cmp"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NewPod is the pod an owner makes from template: the template's labels, annotations,
// finalizers and spec, a name generated from the owner's ("web-7d4b9-" → "web-7d4b9-x2x8q"),
// and the owner as its controller.
func NewPod(o *Owner, template *corev1.PodTemplateSpec) *corev1.Pod {
	t := template.DeepCopy()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    o.Object.GetName() + "-",
			Namespace:       o.Object.GetNamespace(),
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      t.Finalizers,
			OwnerReferences: []metav1.OwnerReference{o.Ref()},
		},
		Spec: t.Spec,
	}
}

// MaxBurst bounds the pods one sync creates or deletes (kube's burstReplicas): the rest wait
// for the next sync, so that a ReplicaSet scaled to 10000 does not flood the chain at once.
const MaxBurst = 500

// InBatches calls create n times, in batches of 1, 2, 4, … whose calls run in parallel, and
// stops after a batch in which one failed: when creating a pod fails (quota, admission, the
// namespace going away) it usually fails for all, and one attempt is enough to learn it. It
// returns how many calls it did not make, and the errors of those it made.
func InBatches(n int, create func() error) (notTried int, err error) {
	done := 0
	for batch := 1; done < n; batch *= 2 {
		batch = min(batch, n-done)
		err = Parallel(make([]struct{}, batch), func(struct{}) error { return create() })
		done += batch
		if err != nil {
			return n - done, err
		}
	}
	return 0, nil
}

// Parallel calls fn for every item at once, and returns the first error.
func Parallel[T any](items []T, fn func(T) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(items))
	for i, item := range items {
		wg.Go(func() { errs[i] = fn(item) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// IsActive: the pod runs or will run; it has neither finished nor begun to be deleted.
func IsActive(p *corev1.Pod) bool {
	return !IsFinished(p) && p.DeletionTimestamp == nil
}

// IsFinished: the pod succeeded or failed; it will not run again.
func IsFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// IsTerminating: the pod is being deleted and has not finished yet.
func IsTerminating(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil && !IsFinished(p)
}

// readySince is when the pod became Ready; zero when it is not.
func readySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// IsReady: the pod's Ready condition is True.
func IsReady(p *corev1.Pod) bool { return !readySince(p).IsZero() }

// Available reports whether the pod has been ready for minReadySeconds at now; when it is
// ready but not for long enough yet, wait says how long until it is.
func Available(p *corev1.Pod, minReadySeconds int32, now time.Time) (ok bool, wait time.Duration) {
	since := readySince(p)
	if since.IsZero() {
		return false, 0
	}
	at := since.Add(time.Duration(minReadySeconds) * time.Second)
	if minReadySeconds == 0 || !now.Before(at) {
		return true, 0
	}
	return false, at.Sub(now)
}

// DeletionCostAnnotation lets a user say which pods a scale-down should take first: the lowest
// cost first (kube's PodDeletionCost, on by default).
const DeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// DeleteFirst orders pods for a scale-down, the first to go first, the order kube documents
// for ReplicaSets: pods not yet on a node, then pending ones, then those not ready, then the
// cheapest to delete, then those ready for the least time, then those with the most restarts,
// then the youngest. The cheapest pods to lose go; the settled ones stay.
func DeleteFirst(a, b *corev1.Pod) int {
	return cmp.Or(
		first(a.Spec.NodeName == "", b.Spec.NodeName == ""),
		cmp.Compare(phaseRank(a.Status.Phase), phaseRank(b.Status.Phase)),
		first(!IsReady(a), !IsReady(b)),
		cmp.Compare(deletionCost(a), deletionCost(b)),
		readySince(b).Compare(readySince(a)),
		cmp.Compare(restarts(b), restarts(a)),
		b.CreationTimestamp.Compare(a.CreationTimestamp.Time),
	)
}

// first orders the one for which the property holds first.
func first(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func phaseRank(phase corev1.PodPhase) int {
	switch phase {
	case corev1.PodPending:
		return 0
	case corev1.PodUnknown:
		return 1
	}
	return 2
}

func deletionCost(p *corev1.Pod) int64 {
	cost, err := strconv.ParseInt(p.Annotations[DeletionCostAnnotation], 10, 32)
	if err != nil {
		return 0
	}
	return cost
}

func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, c := range p.Status.ContainerStatuses {
		n = max(n, c.RestartCount)
	}
	return n
}
