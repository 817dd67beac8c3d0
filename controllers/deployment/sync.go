package deployment

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// rollout is a Deployment and its ReplicaSets, at one sync.
type rollout struct {
	d *appsv1.Deployment
	// new is the ReplicaSet whose template is the Deployment's: nil until it is created.
	new *appsv1.ReplicaSet
	// old are the others, oldest revision first.
	old []*appsv1.ReplicaSet
	// created says this sync created new.
	created bool
}

// replace puts rs, updated, in the place of the ReplicaSet with its uid.
func (r *rollout) replace(rs *appsv1.ReplicaSet) {
	if r.new != nil && r.new.UID == rs.UID {
		r.new = rs
	}
	for i := range r.old {
		if r.old[i].UID == rs.UID {
			r.old[i] = rs
		}
	}
}

func (r *rollout) all() []*appsv1.ReplicaSet {
	if r.new == nil {
		return r.old
	}
	return append(slices.Clone(r.old), r.new)
}

// sync moves the Deployment at key one step toward running its template with its replicas.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	d, err := c.deployments.Deployments(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // gone: the garbage collector takes its ReplicaSets
	}
	if err != nil {
		return err
	}
	selector := workload.Selector(d.Spec.Selector)
	if selector == nil {
		return nil // validation refuses such a selector: nothing to select ReplicaSets with
	}
	all, err := c.sets.ReplicaSets(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	owned, err := workload.Claim(ctx, c.owner(d, selector), all)
	if err != nil {
		return err
	}
	r := split(d, owned)
	now := time.Now()

	switch {
	case d.DeletionTimestamp != nil:
		// Being deleted: only report.
	case d.Spec.Paused:
		// Paused: scale, but start nothing new.
		if err := c.scalePaused(ctx, r); err != nil {
			return err
		}
		if err := c.prune(ctx, r); err != nil {
			return err
		}
	default:
		if err := c.ensureNew(ctx, r); err != nil {
			return err
		}
		step := c.roll
		if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			step = c.recreate
		}
		if err := step(ctx, r); err != nil {
			return err
		}
		if complete(r.d, status(r)) {
			if err := c.prune(ctx, r); err != nil {
				return err
			}
		}
	}
	return c.report(ctx, r, now)
}

// roll moves a RollingUpdate one step: the new ReplicaSet grows as long as all of them
// together ask for at most replicas+maxSurge pods, and the old ones shrink, oldest first, as
// long as at least replicas-maxUnavailable pods stay available. A scale-down of the Deployment
// takes the new ReplicaSet down to replicas at once.
func (c *Controller) roll(ctx context.Context, r *rollout) error {
	desired := ptr.Deref(r.d.Spec.Replicas, 1)
	surge, unavailable := limits(r.d)

	want := min(desired, *r.new.Spec.Replicas+max(0, desired+surge-specTotal(r.all())))
	if *r.new.Spec.Replicas > desired {
		want = desired
	}
	if err := c.scale(ctx, r, r.new, want); err != nil {
		return err
	}

	// Pods that are not available can go at no cost; available ones while there is room.
	room := availableTotal(r.all()) - (desired - unavailable)
	for _, rs := range r.old {
		have := *rs.Spec.Replicas
		if have == 0 {
			continue
		}
		available := min(have, rs.Status.AvailableReplicas)
		take := have - available + min(available, max(0, room))
		room -= take - (have - available)
		if err := c.scale(ctx, r, rs, have-take); err != nil {
			return err
		}
	}
	return nil
}

// recreate moves a Recreate rollout one step: the old ReplicaSets go to zero, and once none of
// their pods runs any more, the new one gets the replicas.
func (c *Controller) recreate(ctx context.Context, r *rollout) error {
	for _, rs := range r.old {
		if err := c.scale(ctx, r, rs, 0); err != nil {
			return err
		}
	}
	for _, rs := range r.old {
		if rs.Status.Replicas > 0 || ptr.Deref(rs.Status.TerminatingReplicas, 0) > 0 {
			return nil // the ReplicaSet controller has not deleted them all yet
		}
		running, err := c.runningPods(rs)
		if err != nil || running {
			return err // the pod deletions bring us back
		}
	}
	return c.scale(ctx, r, r.new, ptr.Deref(r.d.Spec.Replicas, 1))
}

// runningPods reports whether a pod of rs has yet to finish.
func (c *Controller) runningPods(rs *appsv1.ReplicaSet) (bool, error) {
	pods, err := c.pods.Pods(rs.Namespace).List(labels.Everything())
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(pods, func(p *corev1.Pod) bool {
		ref := metav1.GetControllerOfNoCopy(p)
		return ref != nil && ref.UID == rs.UID && !workload.IsFinished(p)
	}), nil
}

// scalePaused keeps a paused Deployment's replicas without rolling anything out: the
// difference goes to the newest ReplicaSet that has pods (or to the newest one), or, for a
// scale-down, comes from the oldest ones first.
func (c *Controller) scalePaused(ctx context.Context, r *rollout) error {
	sets := r.all() // oldest first, the new one last
	if len(sets) == 0 {
		return nil // created paused: nothing to scale until it is resumed
	}
	slices.SortStableFunc(sets, func(a, b *appsv1.ReplicaSet) int {
		return cmpBool(*a.Spec.Replicas > 0, *b.Spec.Replicas > 0) // those without pods first
	})
	diff := ptr.Deref(r.d.Spec.Replicas, 1) - specTotal(sets)
	if diff > 0 {
		newest := sets[len(sets)-1]
		return c.scale(ctx, r, newest, *newest.Spec.Replicas+diff)
	}
	for _, rs := range sets {
		if diff == 0 {
			break
		}
		take := min(*rs.Spec.Replicas, -diff)
		diff += take
		if err := c.scale(ctx, r, rs, *rs.Spec.Replicas-take); err != nil {
			return err
		}
	}
	return nil
}

// scale sets the replicas of rs, one of r's ReplicaSets, with the annotations that say what
// the Deployment asked for at the time, and puts the updated ReplicaSet in its place in r.
func (c *Controller) scale(ctx context.Context, r *rollout, old *appsv1.ReplicaSet, replicas int32) error {
	d := r.d
	desired := ptr.Deref(d.Spec.Replicas, 1)
	surge, _ := limits(d)
	annotations := map[string]string{desiredReplicasAnnotation: fmt.Sprint(desired), maxReplicasAnnotation: fmt.Sprint(desired + surge)}
	if *old.Spec.Replicas == replicas && hasAll(old.Annotations, annotations) {
		return nil
	}
	updated := old.DeepCopy()
	updated.Spec.Replicas = &replicas
	if updated.Annotations == nil {
		updated.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		updated.Annotations[k] = v
	}
	updated, err := c.client.AppsV1().ReplicaSets(updated.Namespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: Name})
	if err != nil {
		return fmt.Errorf("scaling replicaset %s/%s to %d: %w", old.Namespace, old.Name, replicas, err)
	}
	if from := *old.Spec.Replicas; from != replicas {
		direction := "up"
		if replicas < from {
			direction = "down"
		}
		c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", direction, old.Name, from, replicas)
	}
	r.replace(updated)
	return nil
}

// limits are the RollingUpdate's maxSurge and maxUnavailable as numbers of pods: a percentage
// of replicas, surge rounded up and unavailability down; both 0 would never move, so
// unavailability is then 1. Recreate allows neither.
func limits(d *appsv1.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil {
		return 0, 0
	}
	desired := int(ptr.Deref(d.Spec.Replicas, 1))
	// Validation has checked both: an error cannot happen, and would mean 0.
	s, _ := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true)
	u, _ := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, false)
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(min(u, desired))
}

func specTotal(sets []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range sets {
		n += *rs.Spec.Replicas
	}
	return n
}

// availableTotal counts the available pods the ReplicaSets keep: a ReplicaSet asked for fewer
// pods than it reports available is about to lose the difference.
func availableTotal(sets []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range sets {
		n += min(*rs.Spec.Replicas, rs.Status.AvailableReplicas)
	}
	return n
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
