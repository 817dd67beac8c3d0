package statefulset

import (
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

// ordinalOf reads the ordinal of a pod of sts from its name: "web-2" is web's pod 2.
func ordinalOf(sts *appsv1.StatefulSet, name string) (int, bool) {
	suffix, ok := strings.CutPrefix(name, sts.Name+"-")
	n, err := strconv.Atoi(suffix)
	if !ok || err != nil || n < 0 || strconv.Itoa(n) != suffix {
		return 0, false
	}
	return n, true
}

// revisionFor is the revision the pod of ordinal runs when it is made: the current one below
// a RollingUpdate's partition, the update everywhere else (OnDelete included: a pod the user
// deletes comes back updated).
func (s *set) revisionFor(ordinal int) *appsv1.ControllerRevision {
	if s.rolling() && ordinal < s.partition() {
		return s.current
	}
	return s.update
}

// prepare makes sure the claims of the pod of ordinal exist, and returns the pod: named after
// the set and ordinal, labelled with them and its revision, its claims as the volumes named
// after their templates.
func (c *Controller) prepare(ctx context.Context, s *set, ordinal int) (*corev1.Pod, error) {
	rev := s.revisionFor(ordinal)
	template := &s.Spec.Template
	if rev != s.update {
		t, err := workload.RevisionTemplate(rev)
		if err != nil {
			return nil, err
		}
		template = t
	}
	pod := workload.NewPod(c.owner(s.StatefulSet, nil), template)
	pod.GenerateName, pod.Name = "", fmt.Sprintf("%s-%d", s.Name, ordinal)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
	pod.Labels[appsv1.ControllerRevisionHashLabelKey] = rev.Name
	pod.Spec.Hostname, pod.Spec.Subdomain = pod.Name, s.Spec.ServiceName
	for i := range s.Spec.VolumeClaimTemplates {
		t := &s.Spec.VolumeClaimTemplates[i]
		claim, err := c.ensureClaim(ctx, s, t, ordinal)
		if err != nil {
			return nil, err
		}
		vol := corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
		pod.Spec.Volumes = append(slices.DeleteFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == t.Name }), vol)
	}
	return pod, nil
}

func claimName(t *corev1.PersistentVolumeClaim, s *set, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", t.Name, s.Name, ordinal)
}

// ensureClaim creates the claim of template t for the pod of ordinal, unless it exists, and
// returns its name. A claim being deleted holds its pod back until it is gone.
func (c *Controller) ensureClaim(ctx context.Context, s *set, t *corev1.PersistentVolumeClaim, ordinal int) (string, error) {
	name := claimName(t, s, ordinal)
	pod := fmt.Sprintf("%s-%d", s.Name, ordinal)
	existing, err := c.claims.PersistentVolumeClaims(s.Namespace).Get(name)
	switch {
	case err == nil && existing.DeletionTimestamp != nil:
		return "", fmt.Errorf("claim %s/%s is being deleted: pod %s waits until it is gone", s.Namespace, name, pod)
	case err == nil:
		return name, nil
	case !apierrors.IsNotFound(err):
		return "", err
	}
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       s.Namespace,
			Labels:          maps.Clone(t.Labels),
			Annotations:     maps.Clone(t.Annotations),
			OwnerReferences: s.claimOwners(ordinal),
		},
		Spec: *t.Spec.DeepCopy(),
	}
	// The set's selector labels, so that its claims are found with it.
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	maps.Copy(claim.Labels, s.Spec.Selector.MatchLabels)
	_, err = c.client.CoreV1().PersistentVolumeClaims(s.Namespace).Create(ctx, claim, metav1.CreateOptions{FieldManager: Name})
	switch {
	case apierrors.IsAlreadyExists(err):
		return name, nil // the cache had not shown it yet
	case err != nil:
		c.recorder.Eventf(s.StatefulSet, corev1.EventTypeWarning, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %v", name, pod, s.Name, err)
		return "", fmt.Errorf("creating claim %s/%s: %w", s.Namespace, name, err)
	}
	c.recorder.Eventf(s.StatefulSet, corev1.EventTypeNormal, "SuccessfulCreate", "create Claim %s Pod %s in StatefulSet %s success", name, pod, s.Name)
	return name, nil
}

// claimOwners are the owners persistentVolumeClaimRetentionPolicy gives the claims of the pod of
// ordinal: once the pod is scaled away and whenScaled is Delete, the pod alone; otherwise the
// set when whenDeleted is Delete. The garbage collector deletes a claim when its owners are gone.
func (s *set) claimOwners(ordinal int) []metav1.OwnerReference {
	policy := ptr.Deref(s.Spec.PersistentVolumeClaimRetentionPolicy, appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{})
	if p := s.pods[ordinal]; p != nil && !s.wanted(ordinal) && policy.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID}}
	}
	if policy.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
		return []metav1.OwnerReference{{APIVersion: kind.GroupVersion().String(), Kind: kind.Kind, Name: s.Name, UID: s.UID}}
	}
	return nil
}

// reconcileClaims gives the claims of every ordinal the set has or wants the owners its
// retention policy asks for (see claimOwners), keeping those others gave them.
func (c *Controller) reconcileClaims(ctx context.Context, s *set) error {
	if len(s.Spec.VolumeClaimTemplates) == 0 {
		return nil
	}
	ordinals := slices.Collect(maps.Keys(s.pods))
	for ord := s.first(); ord < s.end(); ord++ {
		if s.pods[ord] == nil {
			ordinals = append(ordinals, ord)
		}
	}
	for _, ord := range ordinals {
		for i := range s.Spec.VolumeClaimTemplates {
			claim, err := c.claims.PersistentVolumeClaims(s.Namespace).Get(claimName(&s.Spec.VolumeClaimTemplates[i], s, ord))
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			// Ours are references to the set and to the pod of that name (of any uid: one to a
			// pod gone would have the claim collected).
			podName := fmt.Sprintf("%s-%d", s.Name, ord)
			refs := slices.DeleteFunc(slices.Clone(claim.OwnerReferences), func(r metav1.OwnerReference) bool {
				return r.UID == s.UID || (r.Kind == "Pod" && r.Name == podName)
			})
			refs = append(refs, s.claimOwners(ord)...)
			if apiequality.Semantic.DeepEqual(refs, claim.OwnerReferences) || (len(refs) == 0 && len(claim.OwnerReferences) == 0) {
				continue
			}
			// An update, not a patch: the statefulset-controller role kube-apiserver bootstraps
			// may update claims but not patch them. The cached resourceVersion makes a stale
			// cache a conflict, retried.
			claim = claim.DeepCopy()
			claim.OwnerReferences = refs
			_, err = c.client.CoreV1().PersistentVolumeClaims(s.Namespace).Update(ctx, claim, metav1.UpdateOptions{FieldManager: Name})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("setting the owners of claim %s/%s: %w", s.Namespace, claim.Name, err)
			}
		}
	}
	return nil
}
