package apps

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateDeployment is the rule list of a new Deployment.
func ValidateDeployment(d *appsv1.Deployment) field.ErrorList {
	return validation.Join(
		validation.Meta(&d.ObjectMeta, true, validation.SubdomainName, metadata),
		deploymentSpec(d, nil),
	)
}

// ValidateDeploymentUpdate is the rule list of an update: the selector cannot change.
func ValidateDeploymentUpdate(d, old *appsv1.Deployment) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&d.ObjectMeta, &old.ObjectMeta, metadata),
		deploymentSpec(d, old),
		validation.Immutable(field.NewPath("spec", "selector"), d.Spec.Selector, old.Spec.Selector),
	)
}

func deploymentSpec(d, old *appsv1.Deployment) field.ErrorList {
	path, s := field.NewPath("spec"), &d.Spec
	var oldTemplate *corev1.PodTemplateSpec
	if old != nil {
		oldTemplate = &old.Spec.Template
	}
	errs := validation.Join(
		nonNegative(path.Child("replicas"), s.Replicas),
		replicated(path, s.Selector, &s.Template, oldTemplate),
		strategy(path.Child("strategy"), &s.Strategy),
		validation.NonNegative(path.Child("minReadySeconds"), int64(s.MinReadySeconds)),
		nonNegative(path.Child("revisionHistoryLimit"), s.RevisionHistoryLimit),
	)
	// apps/v1 has no spec.rollbackTo: kubectl rollout undo of old set this annotation instead.
	if revision, err := strconv.ParseInt(d.Annotations[appsv1.DeprecatedRollbackTo], 10, 64); err == nil {
		errs = append(errs, validation.NonNegative(path.Child("rollback", "version"), revision)...)
	}
	return append(errs, validation.IfSet(path.Child("progressDeadlineSeconds"), s.ProgressDeadlineSeconds, func(p *field.Path, v int32) field.ErrorList {
		return validation.Join(
			validation.NonNegative(p, int64(v)),
			// How long a rollout may make no progress: longer than a pod needs to be available.
			validation.When(v <= s.MinReadySeconds, field.Invalid(p, v, "must be greater than minReadySeconds")),
		)
	})...)
}

// strategy: replace all pods at once (Recreate) or a few at a time (RollingUpdate, defaulted
// to 25% unavailable and 25% surge), but not none at a time.
func strategy(path *field.Path, s *appsv1.DeploymentStrategy) field.ErrorList {
	rolling := path.Child("rollingUpdate")
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return validation.When(s.RollingUpdate != nil, field.Forbidden(rolling, "may not be specified when strategy `type` is 'Recreate'"))
	case appsv1.RollingUpdateDeploymentStrategyType:
		r := s.RollingUpdate
		if r == nil {
			return field.ErrorList{field.Required(rolling, "this should be defaulted and never be nil")}
		}
		unavailable := rolling.Child("maxUnavailable")
		return validation.Join(
			budget(unavailable, r.MaxUnavailable),
			budget(rolling.Child("maxSurge"), r.MaxSurge),
			validation.When(isZero(r.MaxUnavailable) && isZero(r.MaxSurge), field.Invalid(unavailable, deref(r.MaxUnavailable), "may not be 0 when `maxSurge` is 0")),
			validation.AtMost100Percent(unavailable, deref(r.MaxUnavailable)),
		)
	}
	return field.ErrorList{field.NotSupported(path, validation.Internal(s), []appsv1.DeploymentStrategyType{
		appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType})}
}

// ValidateDeploymentStatusUpdate is the rule list of a /status update, which the deployment
// controller writes.
func ValidateDeploymentStatusUpdate(d, old *appsv1.Deployment) field.ErrorList {
	path, s := field.NewPath("status"), &d.Status
	return validation.Join(
		validation.MetaUpdate(&d.ObjectMeta, &old.ObjectMeta, metadata),
		validation.NonNegative(path.Child("observedGeneration"), s.ObservedGeneration),
		validation.NonNegative(path.Child("replicas"), int64(s.Replicas)),
		validation.NonNegative(path.Child("updatedReplicas"), int64(s.UpdatedReplicas)),
		validation.NonNegative(path.Child("readyReplicas"), int64(s.ReadyReplicas)),
		validation.NonNegative(path.Child("availableReplicas"), int64(s.AvailableReplicas)),
		validation.NonNegative(path.Child("unavailableReplicas"), int64(s.UnavailableReplicas)),
		nonNegative(path.Child("terminatingReplicas"), s.TerminatingReplicas),
		nonNegative(path.Child("collisionCount"), s.CollisionCount),
		atMostReplicas(path, s.Replicas, "updatedReplicas", s.UpdatedReplicas),
		atMostReplicas(path, s.Replicas, "readyReplicas", s.ReadyReplicas),
		atMostReplicas(path, s.Replicas, "availableReplicas", s.AvailableReplicas),
		validation.When(s.AvailableReplicas > s.ReadyReplicas,
			field.Invalid(path.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas")),
		notDecremented(path.Child("collisionCount"), s.CollisionCount, old.Status.CollisionCount),
	)
}

// atMostReplicas: a count of some of the replicas is at most all of them.
func atMostReplicas(path *field.Path, replicas int32, name string, v int32) field.ErrorList {
	return validation.When(v > replicas, field.Invalid(path.Child(name), v, "cannot be greater than status.replicas"))
}
