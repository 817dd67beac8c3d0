package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// ValidateReplicationController is the rule list of a ReplicationController being created.
func ValidateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	meta := validation.Meta(&rc.ObjectMeta, true, validation.SubdomainName, metadata)
	for _, e := range meta {
		if e.Field == "metadata.name" { // a generated rule's too
			validation.Covered("format=k8s-long-name", field.ErrorList{e})
		}
	}
	return validation.Join(meta, rcSpec(&rc.Spec, nil))
}

// ValidateReplicationControllerUpdate: any valid spec (the template may change; the pods
// already running keep the old one).
func ValidateReplicationControllerUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, metadata),
		rcSpec(&rc.Spec, old.Spec.Template),
	)
}

// rcSpec: a number of replicas, a selector, and a template whose pods it selects, which
// restart forever. The generated rules report replicas and minReadySeconds too.
func rcSpec(s *corev1.ReplicationControllerSpec, old *corev1.PodTemplateSpec) field.ErrorList {
	template := spec.Child("template")
	selector := labels.SelectorFromSet(s.Selector)
	replicas := validation.Covered("", validation.When(s.Replicas == nil, field.Required(spec.Child("replicas"), "")))
	if s.Replicas != nil {
		replicas = validation.Covered("minimum", validation.NonNegative(spec.Child("replicas"), int64(*s.Replicas)))
	}
	errs := validation.Join(
		validation.Covered("minimum", validation.NonNegative(spec.Child("minReadySeconds"), int64(s.MinReadySeconds))),
		validation.When(selector.Empty(), field.Required(spec.Child("selector"), "")),
		replicas,
	)
	if s.Template == nil {
		return append(errs, field.Required(template, ""))
	}
	t := &s.Template.Spec
	return validation.Join(errs,
		validation.When(!selector.Empty() && !selector.Matches(labels.Set(s.Template.Labels)),
			field.Invalid(template.Child("metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`")),
		pods.ValidatePodTemplateSpec(s.Template, old, template),
		validation.When(t.RestartPolicy != corev1.RestartPolicyAlways,
			field.NotSupported(template.Child("spec", "restartPolicy"), t.RestartPolicy, []corev1.RestartPolicy{corev1.RestartPolicyAlways})),
		validation.When(t.ActiveDeadlineSeconds != nil,
			field.Forbidden(template.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported")),
	)
}

// ValidateReplicationControllerStatusUpdate is the rule list of /status, which the
// replication manager writes: counts of pods, each a part of the one before.
func ValidateReplicationControllerStatusUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	st, path := &rc.Status, field.NewPath("status")
	const overReplicas = "cannot be greater than status.replicas"
	return validation.Join(
		validation.MetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, metadata),
		validation.NonNegative(path.Child("replicas"), int64(st.Replicas)),
		validation.NonNegative(path.Child("fullyLabeledReplicas"), int64(st.FullyLabeledReplicas)),
		validation.NonNegative(path.Child("readyReplicas"), int64(st.ReadyReplicas)),
		validation.NonNegative(path.Child("availableReplicas"), int64(st.AvailableReplicas)),
		validation.NonNegative(path.Child("observedGeneration"), st.ObservedGeneration),
		validation.When(st.FullyLabeledReplicas > st.Replicas, field.Invalid(path.Child("fullyLabeledReplicas"), st.FullyLabeledReplicas, overReplicas)),
		validation.When(st.ReadyReplicas > st.Replicas, field.Invalid(path.Child("readyReplicas"), st.ReadyReplicas, overReplicas)),
		validation.When(st.AvailableReplicas > st.Replicas, field.Invalid(path.Child("availableReplicas"), st.AvailableReplicas, overReplicas)),
		validation.When(st.AvailableReplicas > st.ReadyReplicas, field.Invalid(path.Child("availableReplicas"), st.AvailableReplicas, "cannot be greater than readyReplicas")),
	)
}
