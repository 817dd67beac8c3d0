package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateReplicaSet is the rule list of a new ReplicaSet.
func ValidateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	return validation.Join(
		validation.Meta(&rs.ObjectMeta, true, validation.SubdomainName, metadata),
		replicaSetSpec(&rs.Spec, nil),
	)
}

// ValidateReplicaSetUpdate is the rule list of an update: the selector cannot change.
func ValidateReplicaSetUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, metadata),
		replicaSetSpec(&rs.Spec, &old.Spec.Template),
		validation.Immutable(field.NewPath("spec", "selector"), rs.Spec.Selector, old.Spec.Selector),
	)
}

func replicaSetSpec(s *appsv1.ReplicaSetSpec, oldTemplate *corev1.PodTemplateSpec) field.ErrorList {
	path := field.NewPath("spec")
	return validation.Join(
		nonNegative(path.Child("replicas"), s.Replicas),
		validation.NonNegative(path.Child("minReadySeconds"), int64(s.MinReadySeconds)),
		replicated(path, s.Selector, &s.Template, oldTemplate),
	)
}

// ValidateReplicaSetStatusUpdate is the rule list of a /status update, which the replica set
// controller writes.
func ValidateReplicaSetStatusUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	path, s := field.NewPath("status"), &rs.Status
	return validation.Join(
		validation.MetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, metadata),
		validation.NonNegative(path.Child("replicas"), int64(s.Replicas)),
		validation.NonNegative(path.Child("fullyLabeledReplicas"), int64(s.FullyLabeledReplicas)),
		validation.NonNegative(path.Child("readyReplicas"), int64(s.ReadyReplicas)),
		validation.NonNegative(path.Child("availableReplicas"), int64(s.AvailableReplicas)),
		validation.NonNegative(path.Child("observedGeneration"), s.ObservedGeneration),
		nonNegative(path.Child("terminatingReplicas"), s.TerminatingReplicas),
		atMostReplicas(path, s.Replicas, "fullyLabeledReplicas", s.FullyLabeledReplicas),
		atMostReplicas(path, s.Replicas, "readyReplicas", s.ReadyReplicas),
		atMostReplicas(path, s.Replicas, "availableReplicas", s.AvailableReplicas),
		validation.When(s.AvailableReplicas > s.ReadyReplicas,
			field.Invalid(path.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas")),
	)
}
