package apps

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// TemplateGeneration is a DaemonSet's template generation, which apps/v1 keeps in the
// deprecated.daemonset.template.generation annotation (0 when there is none): it counts the
// changes of the template.
func TemplateGeneration(ds *appsv1.DaemonSet) int64 {
	g, _ := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	return g
}

// ValidateDaemonSet is the rule list of a new DaemonSet.
func ValidateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	return validation.Join(
		validation.Meta(&ds.ObjectMeta, true, validation.SubdomainName, metadata),
		daemonSetSpec(ds, nil),
	)
}

// ValidateDaemonSetUpdate is the rule list of an update: the selector cannot change, and the
// template generation moves with the template, up.
func ValidateDaemonSetUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	path := field.NewPath("spec", "templateGeneration")
	generation, oldGeneration := TemplateGeneration(ds), TemplateGeneration(old)
	changed := !equality.Semantic.DeepEqual(ds.Spec.Template, old.Spec.Template)
	return validation.Join(
		validation.MetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, metadata),
		validation.When(generation < oldGeneration, field.Invalid(path, generation, "must not be decremented")),
		validation.When(generation == oldGeneration && changed, field.Invalid(path, generation, "must be incremented upon template update")),
		validation.When(generation > oldGeneration && !changed, field.Invalid(path, generation, "must not be incremented without template update")),
		validation.Immutable(field.NewPath("spec", "selector"), ds.Spec.Selector, old.Spec.Selector),
		daemonSetSpec(ds, old),
	)
}

// daemonSetSpec: a DaemonSet has no replicas (one pod per node), so a missing selector is
// only reported as not matching the template.
func daemonSetSpec(ds, old *appsv1.DaemonSet) field.ErrorList {
	path, s := field.NewPath("spec"), &ds.Spec
	var oldSelector *metav1.LabelSelector
	var oldTemplate *corev1.PodTemplateSpec
	if old != nil {
		oldSelector, oldTemplate = old.Spec.Selector, &old.Spec.Template
	}
	tpath := path.Child("template")
	errs := validation.SelectorKeepingOld(path.Child("selector"), s.Selector, oldSelector)
	if ls, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !ls.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(tpath.Child("metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return validation.Join(errs,
		validation.When(s.Selector != nil && len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0,
			field.Invalid(path.Child("selector"), s.Selector, "empty selector is invalid for daemonset")),
		pods.ValidatePodTemplateSpec(&s.Template, oldTemplate, tpath),
		alwaysRestarts(tpath.Child("spec"), &s.Template.Spec, "DaemonSet"),
		validation.NonNegative(path.Child("minReadySeconds"), int64(s.MinReadySeconds)),
		validation.NonNegative(path.Child("templateGeneration"), TemplateGeneration(ds)),
		daemonSetStrategy(path.Child("updateStrategy"), &s.UpdateStrategy),
		nonNegative(path.Child("revisionHistoryLimit"), s.RevisionHistoryLimit),
	)
}

// daemonSetStrategy: replace pods when they are deleted (OnDelete) or node by node
// (RollingUpdate): either taking a node's pod down first or starting its new pod first.
func daemonSetStrategy(path *field.Path, s *appsv1.DaemonSetUpdateStrategy) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		r, rolling := s.RollingUpdate, path.Child("rollingUpdate")
		if r == nil {
			return field.ErrorList{field.Required(rolling, "")}
		}
		unavailable, surge := rolling.Child("maxUnavailable"), rolling.Child("maxSurge")
		return validation.Join(
			budget(unavailable, r.MaxUnavailable),
			budget(surge, r.MaxSurge),
			validation.AtMost100Percent(unavailable, deref(r.MaxUnavailable)),
			validation.AtMost100Percent(surge, deref(r.MaxSurge)),
			validation.When(!isZero(r.MaxUnavailable) && !isZero(r.MaxSurge),
				field.Invalid(surge, deref(r.MaxSurge), "may not be set when maxUnavailable is non-zero")),
			validation.When(isZero(r.MaxUnavailable) && isZero(r.MaxSurge), field.Required(unavailable, "cannot be 0 when maxSurge is 0")),
		)
	}
	return field.ErrorList{field.NotSupported(path, validation.Internal(s), []appsv1.DaemonSetUpdateStrategyType{
		appsv1.RollingUpdateDaemonSetStrategyType, appsv1.OnDeleteDaemonSetStrategyType})}
}

// ValidateDaemonSetStatusUpdate is the rule list of a /status update, which the daemon set
// controller writes.
func ValidateDaemonSetStatusUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	path, s := field.NewPath("status"), &ds.Status
	return validation.Join(
		validation.MetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, metadata),
		validation.NonNegative(path.Child("currentNumberScheduled"), int64(s.CurrentNumberScheduled)),
		validation.NonNegative(path.Child("numberMisscheduled"), int64(s.NumberMisscheduled)),
		validation.NonNegative(path.Child("desiredNumberScheduled"), int64(s.DesiredNumberScheduled)),
		validation.NonNegative(path.Child("numberReady"), int64(s.NumberReady)),
		validation.NonNegative(path.Child("observedGeneration"), s.ObservedGeneration),
		validation.NonNegative(path.Child("updatedNumberScheduled"), int64(s.UpdatedNumberScheduled)),
		validation.NonNegative(path.Child("numberAvailable"), int64(s.NumberAvailable)),
		validation.NonNegative(path.Child("numberUnavailable"), int64(s.NumberUnavailable)),
		nonNegative(path.Child("collisionCount"), s.CollisionCount),
		notDecremented(path.Child("collisionCount"), s.CollisionCount, old.Status.CollisionCount),
	)
}
