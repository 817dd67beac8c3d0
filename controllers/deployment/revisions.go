package deployment

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// The annotations kube's deployment controller writes, and kubectl reads.
const (
	revisionAnnotation        = "deployment.kubernetes.io/revision"
	revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// notCopied are the Deployment's annotations its ReplicaSets do not get: the controller's own,
// and kubectl apply's record of the Deployment.
var notCopied = []string{revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation,
	corev1.LastAppliedConfigAnnotation}

// split sorts a Deployment's ReplicaSets into the new one (the oldest whose template is the
// Deployment's, if several are) and the old ones, oldest revision first.
func split(d *appsv1.Deployment, sets []*appsv1.ReplicaSet) *rollout {
	r := &rollout{d: d}
	sets = slices.Clone(sets)
	slices.SortFunc(sets, func(a, b *appsv1.ReplicaSet) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for _, rs := range sets {
		if r.new == nil && sameTemplate(&rs.Spec.Template, &d.Spec.Template) {
			r.new = rs
		} else {
			r.old = append(r.old, rs)
		}
	}
	slices.SortStableFunc(r.old, func(a, b *appsv1.ReplicaSet) int { return cmp.Compare(revision(a), revision(b)) })
	return r
}

// sameTemplate: the templates are equal but for the pod-template-hash label.
func sameTemplate(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(a, b)
}

func revision(rs metav1.Object) int64 {
	n, _ := strconv.ParseInt(rs.GetAnnotations()[revisionAnnotation], 10, 64)
	return n
}

// ensureNew makes sure the Deployment's template has its ReplicaSet, with the newest revision
// (one past the old ones'), the Deployment's annotations and minReadySeconds; and that the
// Deployment's revision annotation says which.
func (c *Controller) ensureNew(ctx context.Context, r *rollout) error {
	next := int64(1)
	for _, rs := range r.old {
		next = max(next, revision(rs)+1)
	}
	if r.new == nil {
		if err := c.create(ctx, r, next); err != nil {
			return err
		}
	} else if want := c.newAnnotations(r.d, r.new, next); !maps.Equal(want, r.new.Annotations) || r.new.Spec.MinReadySeconds != r.d.Spec.MinReadySeconds {
		updated := r.new.DeepCopy()
		updated.Annotations = want
		updated.Spec.MinReadySeconds = r.d.Spec.MinReadySeconds
		updated, err := c.client.AppsV1().ReplicaSets(updated.Namespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: Name})
		if err != nil {
			return fmt.Errorf("updating replicaset %s/%s: %w", r.new.Namespace, r.new.Name, err)
		}
		r.new = updated
	}
	if rev := r.new.Annotations[revisionAnnotation]; r.d.Annotations[revisionAnnotation] != rev {
		d := r.d.DeepCopy()
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[revisionAnnotation] = rev
		d, err := c.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: Name})
		if err != nil {
			return fmt.Errorf("recording revision %s on deployment %s/%s: %w", rev, r.d.Namespace, r.d.Name, err)
		}
		r.d = d
	}
	return nil
}

// newAnnotations are the annotations of the new ReplicaSet rs: the Deployment's, and the
// revision, next (one past the old ReplicaSets') unless it is past them already. A ReplicaSet
// that comes back (a rollback) keeps the numbers it had in revision-history.
func (c *Controller) newAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, next int64) map[string]string {
	out := maps.Clone(rs.Annotations)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range d.Annotations {
		if !slices.Contains(notCopied, k) {
			out[k] = v
		}
	}
	if have := revision(rs); have < next {
		if have > 0 {
			history := slices.DeleteFunc(strings.Split(out[revisionHistoryAnnotation], ","), func(s string) bool { return s == "" })
			out[revisionHistoryAnnotation] = strings.Join(append(history, strconv.FormatInt(have, 10)), ",")
		}
		out[revisionAnnotation] = strconv.FormatInt(next, 10)
	}
	return out
}

// create creates the ReplicaSet of the Deployment's template, with no replicas yet, named after
// the hash of the template and status.collisionCount. A ReplicaSet of that name with another
// template is a collision: the count goes up, and the next sync tries the next name.
func (c *Controller) create(ctx context.Context, r *rollout, rev int64) error {
	d := r.d
	hash := workload.TemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			Labels:          withHash(d.Spec.Template.Labels, hash),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, kind)},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        ptr.To[int32](0),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        d.Spec.Selector.DeepCopy(),
			Template:        *d.Spec.Template.DeepCopy(),
		},
	}
	rs.Spec.Selector.MatchLabels = withHash(rs.Spec.Selector.MatchLabels, hash)
	rs.Spec.Template.Labels = withHash(rs.Spec.Template.Labels, hash)
	rs.Annotations = c.newAnnotations(d, rs, rev)

	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{FieldManager: Name})
	if apierrors.IsAlreadyExists(err) {
		existing, getErr := c.client.AppsV1().ReplicaSets(d.Namespace).Get(ctx, rs.Name, metav1.GetOptions{})
		if getErr != nil {
			return fmt.Errorf("reading replicaset %s/%s: %w", d.Namespace, rs.Name, getErr)
		}
		if ref := metav1.GetControllerOfNoCopy(existing); ref != nil && ref.UID == d.UID && sameTemplate(&existing.Spec.Template, &d.Spec.Template) {
			r.new = existing // ours: the cache had not shown it yet
			return nil
		}
		st := d.Status.DeepCopy()
		st.CollisionCount = ptr.To(ptr.Deref(st.CollisionCount, 0) + 1)
		if err := c.writeStatus(ctx, d, st); err != nil {
			return err
		}
		return fmt.Errorf("replicaset %s/%s exists with another template: trying the next name", d.Namespace, rs.Name)
	}
	if err != nil {
		c.recorder.Eventf(d, corev1.EventTypeWarning, "FailedCreate", "Failed to create new replica set %q: %v", rs.Name, err)
		return fmt.Errorf("creating replicaset %s/%s: %w", d.Namespace, rs.Name, err)
	}
	r.new, r.created = created, true
	return nil
}

func withHash(labels map[string]string, hash string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	return out
}

// prune deletes the oldest ReplicaSets beyond revisionHistoryLimit, of those with no pods left.
func (c *Controller) prune(ctx context.Context, r *rollout) error {
	limit := int(ptr.Deref(r.d.Spec.RevisionHistoryLimit, 10))
	var old []*appsv1.ReplicaSet
	for _, rs := range r.old {
		if rs.DeletionTimestamp == nil {
			old = append(old, rs)
		}
	}
	for _, rs := range old[:max(0, len(old)-limit)] {
		if *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0 || rs.Status.ObservedGeneration < rs.Generation {
			continue
		}
		err := c.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(rs.UID))})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting old replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	return nil
}
