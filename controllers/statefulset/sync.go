package statefulset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// set is a StatefulSet and what it has, at one sync.
type set struct {
	*appsv1.StatefulSet
	// pods are its pods by ordinal, those outside its ordinals (condemned) included.
	pods map[int]*corev1.Pod
	// current is the revision its older pods run, update the revision of its template.
	current, update *appsv1.ControllerRevision
	now             time.Time
}

// first and end bound the ordinals the StatefulSet asks for: [first, end).
func (s *set) first() int { return int(ptr.Deref(s.Spec.Ordinals, appsv1.StatefulSetOrdinals{}).Start) }
func (s *set) end() int   { return s.first() + int(ptr.Deref(s.Spec.Replicas, 1)) }

func (s *set) wanted(ordinal int) bool { return ordinal >= s.first() && ordinal < s.end() }

func (s *set) ordered() bool { return s.Spec.PodManagementPolicy != appsv1.ParallelPodManagement }

func (s *set) rolling() bool {
	return s.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType
}

// partition is the lowest ordinal a RollingUpdate updates.
func (s *set) partition() int {
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return s.first() + int(*ru.Partition)
	}
	return s.first()
}

// healthy: the pod runs, is Ready for minReadySeconds, and is not going away.
func (s *set) healthy(p *corev1.Pod) bool {
	if p == nil || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	ok, _ := workload.Available(p, s.Spec.MinReadySeconds, s.now)
	return ok
}

// sync moves the StatefulSet at key one step toward its replicas, all of its template's
// revision, and reports where it is.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	sts, err := c.sets.StatefulSets(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key) // gone: the garbage collector takes its pods
		return nil
	}
	if err != nil {
		return err
	}
	selector := workload.Selector(sts.Spec.Selector)
	if selector == nil {
		return nil // validation refuses such a selector: nothing to select pods with
	}
	owner := c.owner(sts, selector)
	history, err := c.revisions.Sync(ctx, owner, &sts.Spec.Template, sts.Status.CollisionCount)
	if errors.Is(err, workload.ErrHashCollision) {
		st := sts.Status.DeepCopy()
		st.CollisionCount = ptr.To(ptr.Deref(st.CollisionCount, 0) + 1)
		return errors.Join(err, c.writeStatus(ctx, sts, st))
	}
	if err != nil {
		return err
	}
	all, err := c.pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	// Only pods named after the set and an ordinal are its to adopt.
	members := slices.DeleteFunc(all, func(p *corev1.Pod) bool { _, ok := ordinalOf(sts, p.Name); return !ok })
	pods, err := workload.Claim(ctx, owner, members)
	if err != nil {
		return err
	}
	s := &set{StatefulSet: sts, pods: map[int]*corev1.Pod{}, update: history.Update, now: time.Now()}
	for _, p := range pods {
		ord, _ := ordinalOf(sts, p.Name)
		s.pods[ord] = p
	}
	if s.current = history.Named(sts.Status.CurrentRevision); s.current == nil {
		s.current = s.update
	}

	var stepErr error
	if sts.DeletionTimestamp == nil && c.expect.Satisfied(key) {
		stepErr = c.step(ctx, key, s)
	}
	st, wait := s.status()
	if err := c.writeStatus(ctx, sts, &st); err != nil {
		return errors.Join(stepErr, err)
	}
	inUse := sets.New(st.CurrentRevision, st.UpdateRevision)
	for _, p := range pods {
		inUse.Insert(p.Labels[appsv1.ControllerRevisionHashLabelKey])
	}
	if err := c.revisions.Prune(ctx, history, ptr.Deref(sts.Spec.RevisionHistoryLimit, 10), inUse); err != nil {
		return errors.Join(stepErr, err)
	}
	if wait > 0 { // a ready pod becomes available then
		c.queue.AddAfter(key, wait)
	}
	return stepErr
}

// step creates and deletes the pods that move the set on: missing ones created (in order, each
// once the one before is healthy, unless Parallel), finished ones deleted to be made again, those
// beyond the replicas deleted from the highest ordinal, and, for a RollingUpdate, pods of an
// older revision deleted from the highest ordinal down to the partition, as many at a time as
// maxUnavailable allows; a deleted pod comes back at the revision it should run.
func (c *Controller) step(ctx context.Context, key string, s *set) error {
	var create []int
	var remove []*corev1.Pod
	blocked := false // OrderedReady: a pod is not healthy, and everything after it waits
	for ord := s.first(); ord < s.end() && !blocked; ord++ {
		p := s.pods[ord]
		switch {
		case p == nil:
			create = append(create, ord)
		case workload.IsFinished(p) && p.DeletionTimestamp == nil:
			remove = append(remove, p)
		}
		blocked = s.ordered() && !s.healthy(p)
	}

	var condemned []*corev1.Pod // highest ordinal first
	for _, ord := range slices.Backward(slices.Sorted(maps.Keys(s.pods))) {
		if !s.wanted(ord) {
			condemned = append(condemned, s.pods[ord])
		}
	}
	leaving := slices.ContainsFunc(condemned, func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil })
	scaledDown := 0
	for _, p := range condemned {
		if s.ordered() && (blocked || leaving || scaledDown > 0) {
			break // one at a time, once the others are healthy
		}
		if p.DeletionTimestamp == nil {
			remove = append(remove, p)
			scaledDown++
		}
	}

	if s.rolling() && !(s.ordered() && (blocked || leaving || scaledDown > 0)) {
		remove = append(remove, s.outdated()...)
	}

	if err := c.reconcileClaims(ctx, s); err != nil {
		return err
	}
	// Creations first: expectations hold one batch of writes at a time, and the deletions
	// follow in the sync the new pods bring.
	owner := c.owner(s.StatefulSet, nil)
	if len(create) > 0 {
		newPods := make([]*corev1.Pod, len(create))
		for i, ord := range create {
			p, err := c.prepare(ctx, s, ord)
			if err != nil {
				return err
			}
			newPods[i] = p
		}
		return c.podControl.Create(ctx, key, owner, len(newPods), func(i int) *corev1.Pod { return newPods[i] })
	}
	if len(remove) > 0 {
		return c.podControl.Delete(ctx, key, owner, remove)
	}
	return nil
}

// outdated are the pods a RollingUpdate deletes now: of an older revision, from the highest
// ordinal down to the partition, while fewer than maxUnavailable of the replicas are unhealthy.
func (s *set) outdated() []*corev1.Pod {
	replicas := s.end() - s.first()
	limit := 1
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		// Validation has checked it: an error cannot happen, and would mean 0 (then 1).
		n, _ := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, replicas, false)
		limit = max(1, n)
	}
	unhealthy := 0
	for ord := s.first(); ord < s.end(); ord++ {
		if !s.healthy(s.pods[ord]) {
			unhealthy++
		}
	}
	var out []*corev1.Pod
	for ord := s.end() - 1; ord >= s.partition() && unhealthy < limit; ord-- {
		p := s.pods[ord]
		if p == nil || p.DeletionTimestamp != nil || p.Labels[appsv1.ControllerRevisionHashLabelKey] == s.update.Name {
			continue
		}
		out = append(out, p)
		unhealthy++
	}
	return out
}

// status is what the set reports of its pods; wait, when not zero, is how long until one of its
// ready pods becomes available.
func (s *set) status() (st appsv1.StatefulSetStatus, wait time.Duration) {
	st = appsv1.StatefulSetStatus{
		ObservedGeneration: s.Generation,
		CollisionCount:     s.Status.CollisionCount,
		CurrentRevision:    s.current.Name,
		UpdateRevision:     s.update.Name,
	}
	for _, p := range s.pods {
		st.Replicas++
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Status.Phase == corev1.PodRunning && workload.IsReady(p) {
			st.ReadyReplicas++
			ok, after := workload.Available(p, s.Spec.MinReadySeconds, s.now)
			switch {
			case ok:
				st.AvailableReplicas++
			case wait == 0 || after < wait:
				wait = after
			}
		}
		if rev := p.Labels[appsv1.ControllerRevisionHashLabelKey]; rev == st.CurrentRevision {
			st.CurrentReplicas++
		}
		if rev := p.Labels[appsv1.ControllerRevisionHashLabelKey]; rev == st.UpdateRevision {
			st.UpdatedReplicas++
		}
	}
	// Every pod asked for runs the template and is ready: the update is the current revision.
	replicas := ptr.Deref(s.Spec.Replicas, 1)
	if st.Replicas == replicas && st.UpdatedReplicas == replicas && st.ReadyReplicas == replicas {
		st.CurrentRevision, st.CurrentReplicas = st.UpdateRevision, st.UpdatedReplicas
	}
	return st, wait
}

func (c *Controller) writeStatus(ctx context.Context, sts *appsv1.StatefulSet, st *appsv1.StatefulSetStatus) error {
	if apiequality.Semantic.DeepEqual(sts.Status, *st) {
		return nil
	}
	sts = sts.DeepCopy()
	sts.Status = *st
	_, err := c.client.AppsV1().StatefulSets(sts.Namespace).UpdateStatus(ctx, sts, metav1.UpdateOptions{FieldManager: Name})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating the status of statefulset %s/%s: %w", sts.Namespace, sts.Name, err)
	}
	return nil
}
