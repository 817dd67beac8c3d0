// Package apps validates the apps/v1 kinds of the Core server: Deployment, ReplicaSet,
// StatefulSet and DaemonSet (each with its status) and ControllerRevision.
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/apps call
// these functions as their Validate hooks, after the request is decoded and defaulted and
// before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, paths and messages are kube-apiserver v1.37.2's, as observed, with the feature
// gates at their v1.37 defaults (MaxUnavailableStatefulSet on, StatefulSetRecreateStrategy
// off). Each workload's pod template is checked by servers/core/validation/pods, then here for
// what a workload adds: a selector that matches the template's labels, and pods that always
// restart.
//
// The generated declarative rules of StatefulSet (selector required; selector, serviceName,
// podManagementPolicy and volumeClaimTemplates immutable) are alpha: ours, marked as covered
// by them, are the ones users see. What apps/v1 keeps in annotations is checked there: a
// DaemonSet's template generation and a Deployment's rollback revision. Left out: nothing.
package apps

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

var metadata = field.NewPath("metadata")

// selector: a workload's selector is required, valid (no invalid label values, whatever an
// older object may have had) and not empty, as it must not take every pod of the namespace.
func selector(path *field.Path, s *metav1.LabelSelector, kind string) field.ErrorList {
	if s == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	return validation.Join(
		validation.Selector(path, s),
		validation.When(len(s.MatchLabels)+len(s.MatchExpressions) == 0, field.Invalid(path, s, "empty selector is invalid for "+kind)),
	)
}

// matches: the pods of the template are the workload's own, so its selector matches them. A
// missing selector matches nothing; an empty one is not looked at.
func matches(path *field.Path, s labels.Selector, template *corev1.PodTemplateSpec) field.ErrorList {
	return validation.When(!s.Empty() && !s.Matches(labels.Set(template.Labels)),
		field.Invalid(path.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
}

// alwaysRestarts: a workload's pods run until replaced, so they restart and have no deadline.
func alwaysRestarts(path *field.Path, spec *corev1.PodSpec, kind string) field.ErrorList {
	return validation.Join(
		validation.When(spec.RestartPolicy != corev1.RestartPolicyAlways,
			field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, []corev1.RestartPolicy{corev1.RestartPolicyAlways})),
		validation.When(spec.ActiveDeadlineSeconds != nil,
			field.Forbidden(path.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported")),
	)
}

// replicated is the part of a Deployment and a ReplicaSet that makes the pods: the selector
// and the template (old is the stored one on update).
func replicated(path *field.Path, s *metav1.LabelSelector, template, old *corev1.PodTemplateSpec) field.ErrorList {
	errs := selector(path.Child("selector"), s, "deployment")
	ls, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return append(errs, field.Invalid(path.Child("selector"), s, "invalid label selector"))
	}
	tpath := path.Child("template")
	return validation.Join(errs,
		matches(tpath, ls, template),
		pods.ValidatePodTemplateSpec(template, old, tpath),
		alwaysRestarts(tpath.Child("spec"), &template.Spec, "ReplicaSet"),
	)
}

// budget: a rollout's maxUnavailable or maxSurge, a count or a share of the replicas.
func budget(path *field.Path, v *intstr.IntOrString) field.ErrorList {
	return validation.NonNegativeIntOrPercent(path, deref(v))
}

func deref(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.IntOrString{}
	}
	return *v
}

// isZero: a budget of no pods (0 or "0%").
func isZero(v *intstr.IntOrString) bool {
	value := deref(v)
	if p, ok := validation.Percent(value); ok {
		return p == 0
	}
	return value.IntValue() == 0 // a string that is no percentage counts as its number, or 0
}

// notDecremented: a collision count only grows (a controller counts the hash collisions of
// its revisions).
func notDecremented(path *field.Path, count, old *int32) field.ErrorList {
	if old == nil || (count != nil && *count >= *old) {
		return nil
	}
	var v int32
	if count != nil {
		v = *count
	}
	return field.ErrorList{field.Invalid(path, v, "cannot be decremented")}
}

func nonNegative(path *field.Path, v *int32) field.ErrorList {
	if v == nil {
		return nil
	}
	return validation.NonNegative(path, int64(*v))
}
