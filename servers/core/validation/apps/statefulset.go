package apps

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// statefulSet is a StatefulSet spec under validation: on update, what is immutable anyway is
// not checked again, and a template the stored set already got wrong is not held against it.
type statefulSet struct {
	update, skipTemplate bool
	oldTemplate          *corev1.PodTemplateSpec
}

// ValidateStatefulSet is the rule list of a new StatefulSet. Its name is a DNS label: it
// names the pods (name-0, name-1, ...) and their hostnames.
func ValidateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	return validation.Join(
		validation.Meta(&ss.ObjectMeta, true, validation.LabelName, metadata),
		statefulSet{}.spec(field.NewPath("spec"), &ss.Spec),
	)
}

// ValidateStatefulSetUpdate is the rule list of an update: a StatefulSet's identity (selector,
// service, claim templates, pod management policy) cannot change.
func ValidateStatefulSetUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	path := field.NewPath("spec")
	v := statefulSet{update: true, oldTemplate: &old.Spec.Template}
	v.skipTemplate = len(v.spec(path, &old.Spec)) > 0
	return validation.Join(
		validation.MetaUpdate(&ss.ObjectMeta, &old.ObjectMeta, metadata),
		v.spec(path, &ss.Spec),
		validation.ImmutableDeclared(path.Child("selector"), ss.Spec.Selector, old.Spec.Selector),
		validation.When(!equalClaims(ss.Spec.VolumeClaimTemplates, old.Spec.VolumeClaimTemplates),
			field.Invalid(path.Child("volumeClaimTemplates"), validation.Internal(ss.Spec.VolumeClaimTemplates), "field is immutable").
				WithOrigin("immutable").MarkCoveredByDeclarative()),
		validation.ImmutableDeclared(path.Child("serviceName"), ss.Spec.ServiceName, old.Spec.ServiceName),
		validation.ImmutableDeclared(path.Child("podManagementPolicy"), ss.Spec.PodManagementPolicy, old.Spec.PodManagementPolicy),
	)
}

func equalClaims(a, b []corev1.PersistentVolumeClaim) bool {
	return equality.Semantic.DeepEqual(a, b)
}

func (v statefulSet) spec(path *field.Path, s *appsv1.StatefulSetSpec) field.ErrorList {
	errs := validation.Join(
		podManagement(path.Child("podManagementPolicy"), s.PodManagementPolicy),
		statefulSetStrategy(path.Child("updateStrategy"), &s.UpdateStrategy),
		validation.IfSet(path.Child("persistentVolumeClaimRetentionPolicy"), s.PersistentVolumeClaimRetentionPolicy, retention),
	)
	if !v.update {
		for i := range s.VolumeClaimTemplates {
			errs = append(errs, pods.ValidatePersistentVolumeClaimSpec(&s.VolumeClaimTemplates[i].Spec, path.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
		}
	}
	errs = validation.Join(errs,
		nonNegative(path.Child("replicas"), s.Replicas),
		validation.NonNegative(path.Child("minReadySeconds"), int64(s.MinReadySeconds)),
	)
	if s.Ordinals != nil {
		errs = append(errs, validation.NonNegative(path.Child("ordinals.start"), int64(s.Ordinals.Start))...)
	}
	if !v.update && s.ServiceName != "" {
		errs = append(errs, validation.DNSLabel(path.Child("serviceName"), s.ServiceName)...)
	}
	sel := path.Child("selector")
	if s.Selector == nil {
		errs = append(errs, field.Required(sel, "").MarkCoveredByDeclarative())
	} else {
		errs = append(errs, selector(sel, s.Selector, "statefulset")...)
	}
	tpath := path.Child("template")
	if ls, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		errs = append(errs, field.Invalid(sel, s.Selector, ""))
	} else {
		errs = append(errs, matches(tpath, ls, &s.Template)...)
		errs = append(errs, v.template(tpath, s)...)
	}
	return append(errs, alwaysRestarts(tpath.Child("spec"), &s.Template.Spec, "StatefulSet")...)
}

// template: the pod template as the controller completes it: each pod's hostname and
// subdomain are its own and the set's service's, and each claim template is a volume.
func (v statefulSet) template(path *field.Path, s *appsv1.StatefulSetSpec) field.ErrorList {
	if v.skipTemplate {
		t := &s.Template
		return validation.Join(validation.Labels(path.Child("labels"), t.Labels), validation.Annotations(path.Child("annotations"), t.Annotations))
	}
	t := s.Template.DeepCopy()
	t.Spec.Hostname, t.Spec.Subdomain = "", ""
	claims := map[string]bool{}
	var volumes []corev1.Volume
	for _, c := range s.VolumeClaimTemplates {
		claims[c.Name] = true
		volumes = append(volumes, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
	for _, vol := range t.Spec.Volumes {
		if !claims[vol.Name] {
			volumes = append(volumes, vol)
		}
	}
	if len(s.VolumeClaimTemplates) > 0 {
		t.Spec.Volumes = volumes
	}
	return pods.ValidatePodTemplateSpec(t, v.oldTemplate, path)
}

// podManagement: start and stop pods one by one, in order, or all at once.
func podManagement(path *field.Path, p appsv1.PodManagementPolicyType) field.ErrorList {
	switch p {
	case "":
		return field.ErrorList{field.Required(path, "")}
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
		return nil
	}
	return field.ErrorList{field.Invalid(path, p, fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement))}
}

// statefulSetStrategy: replace pods when deleted (OnDelete) or in reverse order
// (RollingUpdate), from the partition up, maxUnavailable at a time.
func statefulSetStrategy(path *field.Path, s *appsv1.StatefulSetUpdateStrategy) field.ErrorList {
	rolling := path.Child("rollingUpdate")
	switch s.Type {
	case "":
		return field.ErrorList{field.Required(path, "")}
	case appsv1.OnDeleteStatefulSetStrategyType:
		return validation.When(s.RollingUpdate != nil, field.Invalid(rolling, validation.Internal(s.RollingUpdate),
			fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType)))
	case appsv1.RollingUpdateStatefulSetStrategyType:
		r := s.RollingUpdate
		if r == nil {
			return nil
		}
		errs := nonNegative(rolling.Child("partition"), r.Partition)
		if r.MaxUnavailable != nil {
			p := rolling.Child("maxUnavailable")
			errs = validation.Join(errs,
				budget(p, r.MaxUnavailable),
				validation.When(isZero(r.MaxUnavailable), field.Invalid(p, *r.MaxUnavailable, "cannot be 0")),
				validation.AtMost100Percent(p, *r.MaxUnavailable),
			)
		}
		return errs
	}
	return field.ErrorList{field.Invalid(path, validation.Internal(s), fmt.Sprintf("must be '%s' or '%s'",
		appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType))}
}

// retention: whether the claims of a set's pods go when the set is deleted or scaled down.
func retention(path *field.Path, p appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy) field.ErrorList {
	allowed := []appsv1.PersistentVolumeClaimRetentionPolicyType{appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
	return validation.Join(
		validation.Supported(path.Child("whenDeleted"), p.WhenDeleted, allowed...),
		validation.Supported(path.Child("whenScaled"), p.WhenScaled, allowed...),
	)
}

// ValidateStatefulSetStatusUpdate is the rule list of a /status update, which the stateful set
// controller writes.
func ValidateStatefulSetStatusUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	path, s := field.NewPath("status"), &ss.Status
	var errs field.ErrorList
	if s.ObservedGeneration != 0 {
		errs = validation.NonNegative(path.Child("observedGeneration"), s.ObservedGeneration)
	}
	return validation.Join(
		validation.NonNegative(path.Child("replicas"), int64(s.Replicas)),
		validation.NonNegative(path.Child("readyReplicas"), int64(s.ReadyReplicas)),
		validation.NonNegative(path.Child("currentReplicas"), int64(s.CurrentReplicas)),
		validation.NonNegative(path.Child("updatedReplicas"), int64(s.UpdatedReplicas)),
		validation.NonNegative(path.Child("availableReplicas"), int64(s.AvailableReplicas)),
		errs,
		nonNegative(path.Child("collisionCount"), s.CollisionCount),
		atMostReplicas(path, s.Replicas, "readyReplicas", s.ReadyReplicas),
		atMostReplicas(path, s.Replicas, "currentReplicas", s.CurrentReplicas),
		atMostReplicas(path, s.Replicas, "updatedReplicas", s.UpdatedReplicas),
		atMostReplicas(path, s.Replicas, "availableReplicas", s.AvailableReplicas),
		validation.When(s.AvailableReplicas > s.ReadyReplicas,
			field.Invalid(path.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than status.readyReplicas")),
		validation.MetaUpdate(&ss.ObjectMeta, &old.ObjectMeta, metadata),
		notDecremented(path.Child("collisionCount"), s.CollisionCount, old.Status.CollisionCount),
	)
}
