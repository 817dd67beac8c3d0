package workload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
)

// TemplateHash names a version of a pod template: an FNV-32a hash of the template's JSON and
// the owner's collision count, written with the letters apimachinery's rand.SafeEncodeString
// uses (no vowels, no confusable digits), so that it is a valid label value and name part.
// A Deployment's ReplicaSets and a StatefulSet's or DaemonSet's ControllerRevisions are named
// after it.
func TemplateHash(t *corev1.PodTemplateSpec, collisions *int32) string {
	h := fnv.New32a()
	data, _ := json.Marshal(t) // a pod template always marshals
	h.Write(data)
	if collisions != nil {
		fmt.Fprint(h, *collisions)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// Revisions keeps the ControllerRevisions of StatefulSets and DaemonSets: one per version of
// an owner's pod template, numbered in the order the versions were rolled out (a version rolled
// out again takes the next number). Each holds a strategic merge patch that puts its template
// back: kubectl rollout history lists them, and kubectl rollout undo applies one to the owner.
type Revisions struct {
	Client kubernetes.Interface
	Lister appslisters.ControllerRevisionLister
}

// History is an owner's revisions, as one sync found or made them.
type History struct {
	// All are the owner's revisions, lowest number first.
	All []*appsv1.ControllerRevision
	// Update is the revision of the owner's template, which its pods are updated to.
	Update *appsv1.ControllerRevision
}

// Named returns the revision called name, or nil.
func (h *History) Named(name string) *appsv1.ControllerRevision {
	if i := slices.IndexFunc(h.All, func(r *appsv1.ControllerRevision) bool { return r.Name == name }); i >= 0 {
		return h.All[i]
	}
	return nil
}

// ErrHashCollision: a revision of the name the template hashes to exists with another template.
// The owner counts it in status.collisionCount, and the next sync tries the next name.
var ErrHashCollision = errors.New("a controller revision of that name has another template")

// Sync claims the owner's revisions (those its selector matches, as its pods) and makes sure
// its template has one, numbered highest.
func (r Revisions) Sync(ctx context.Context, o *Owner, template *corev1.PodTemplateSpec, collisions *int32) (*History, error) {
	ns := o.Object.GetNamespace()
	owner := *o
	owner.ReleaseFinalizer = ""
	owner.Patch = func(ctx context.Context, name string, patch []byte) error {
		_, err := r.Client.AppsV1().ControllerRevisions(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		return err
	}
	candidates, err := r.Lister.ControllerRevisions(ns).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	mine, err := Claim(ctx, &owner, candidates)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(mine, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Revision, b.Revision), a.CreationTimestamp.Compare(b.CreationTimestamp.Time))
	})
	h := &History{All: mine}
	data, err := TemplatePatch(template)
	if err != nil {
		return nil, err
	}
	next := int64(1)
	if len(mine) > 0 {
		next = mine[len(mine)-1].Revision + 1
	}
	for _, rev := range slices.Backward(mine) {
		if holds(rev, data) {
			h.Update, err = r.renumber(ctx, rev, next)
			h.replace(h.Update)
			return h, err
		}
	}

	hash := TemplateHash(template, collisions)
	rev := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            o.Object.GetName() + "-" + hash,
			Namespace:       ns,
			Labels:          maps.Clone(template.Labels),
			OwnerReferences: []metav1.OwnerReference{o.Ref()},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: next,
	}
	if rev.Labels == nil {
		rev.Labels = map[string]string{}
	}
	rev.Labels[appsv1.ControllerRevisionHashLabelKey] = hash
	created, err := r.Client.AppsV1().ControllerRevisions(ns).Create(ctx, rev, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Ours, which the cache has not shown yet; or another template's: a collision.
		existing, getErr := r.Client.AppsV1().ControllerRevisions(ns).Get(ctx, rev.Name, metav1.GetOptions{})
		if getErr != nil {
			return nil, fmt.Errorf("reading controller revision %s/%s: %w", ns, rev.Name, getErr)
		}
		if !metav1.IsControlledBy(existing, o.Object) || !holds(existing, data) {
			return nil, fmt.Errorf("controller revision %s/%s: %w", ns, rev.Name, ErrHashCollision)
		}
		h.Update, err = r.renumber(ctx, existing, next)
		h.replace(h.Update)
		return h, err
	}
	if err != nil {
		return nil, fmt.Errorf("creating controller revision %s/%s: %w", ns, rev.Name, err)
	}
	h.Update = created
	h.All = append(h.All, created)
	return h, nil
}

// renumber gives rev the number next, unless it is the newest already.
func (r Revisions) renumber(ctx context.Context, rev *appsv1.ControllerRevision, next int64) (*appsv1.ControllerRevision, error) {
	if rev.Revision >= next-1 {
		return rev, nil
	}
	rev = rev.DeepCopy()
	rev.Revision = next
	updated, err := r.Client.AppsV1().ControllerRevisions(rev.Namespace).Update(ctx, rev, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("renumbering controller revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return updated, nil
}

// replace puts rev in the place of the revision of its name, keeping All in number order.
func (h *History) replace(rev *appsv1.ControllerRevision) {
	if rev == nil {
		return
	}
	h.All = slices.DeleteFunc(h.All, func(r *appsv1.ControllerRevision) bool { return r.Name == rev.Name })
	h.All = append(h.All, rev)
	slices.SortStableFunc(h.All, func(a, b *appsv1.ControllerRevision) int { return cmp.Compare(a.Revision, b.Revision) })
}

// Prune deletes the oldest revisions beyond limit, of those not in use (inUse names them: the
// current and update revisions, and those of pods that still run).
func (r Revisions) Prune(ctx context.Context, h *History, limit int32, inUse sets.Set[string]) error {
	var spare []*appsv1.ControllerRevision
	for _, rev := range h.All {
		if !inUse.Has(rev.Name) {
			spare = append(spare, rev)
		}
	}
	var errs []error
	for _, rev := range spare[:max(0, len(spare)-int(limit))] {
		err := r.Client.AppsV1().ControllerRevisions(rev.Namespace).Delete(ctx, rev.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(rev.UID))})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("deleting controller revision %s/%s: %w", rev.Namespace, rev.Name, err))
		}
	}
	return errors.Join(errs...)
}

// TemplatePatch is the data of a revision of template, the patch kubectl rollout undo applies:
// {"spec":{"template":{...,"$patch":"replace"}}}, written as kubectl writes it (sorted keys),
// so that kubectl recognises the revision the owner runs.
func TemplatePatch(template *corev1.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encoding pod template: %w", err)
	}
	var t map[string]any
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decoding pod template: %w", err)
	}
	t["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": t}})
}

// RevisionTemplate is the pod template a revision holds.
func RevisionTemplate(rev *appsv1.ControllerRevision) (*corev1.PodTemplateSpec, error) {
	var patch struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &patch); err != nil {
		return nil, fmt.Errorf("reading the template of controller revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return &patch.Spec.Template, nil
}

// holds reports whether rev holds the template whose patch is data. Both are written anew, so
// that a revision written by another hand (in another key order, say) is recognised too.
func holds(rev *appsv1.ControllerRevision, data []byte) bool {
	t, err := RevisionTemplate(rev)
	if err != nil {
		return false
	}
	again, err := TemplatePatch(t)
	return err == nil && bytes.Equal(again, data)
}
