// Package autoscaling validates the autoscaling kinds of the Core server: the
// HorizontalPodAutoscaler of autoscaling/v2 (and its status) and the Scale that every /scale
// subresource reads and writes.
//
// It sits in the Core server of the chain: the HorizontalPodAutoscaler Definition
// (servers/core/registry/autoscaling) calls these functions as its Validate hooks, and the
// scale subresource (servers/core/resource/scale.go) calls ValidateScale before it sets a
// parent's replicas; a non-empty error list becomes kube-apiserver's 422 Invalid. The rules,
// paths and messages are kube-apiserver v1.37.2's, as observed, with HPAScaleToZero on (its
// v1.37 default): minReplicas may be 0 when an Object or External metric says when to wake.
//
// The generated declarative rules report the Scale's and the autoscaler's replica bounds and
// that maxReplicas is required: ours, marked as covered by them, are dropped in favour of
// theirs. An update keeps a scale target's apiVersion it does not change and the described
// objects' apiVersions the stored autoscaler already has. Left out: nothing the API has.
package autoscaling

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateScale is the rule list of a Scale written to a /scale subresource: only its managed
// fields and replicas count, the rest is the parent's.
func ValidateScale(scale *autoscalingv1.Scale) field.ErrorList {
	return validation.Join(
		metavalidation.ValidateManagedFields(scale.ManagedFields, field.NewPath("metadata", "managedFields")),
		validation.NonNegative(field.NewPath("spec", "replicas"), int64(scale.Spec.Replicas)).MarkCoveredByDeclarative(),
	)
}

// ref says what a cross-version object reference may leave out or keep.
type ref struct {
	emptyGroup, anyVersion bool
}

// autoscaler is an HPA spec under validation, with what its references may do.
type autoscaler struct {
	target, described ref
}

// ValidateHorizontalPodAutoscaler is the rule list of a new autoscaler.
func ValidateHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	return validation.Join(
		validation.Meta(&hpa.ObjectMeta, true, validation.SubdomainName, field.NewPath("metadata")),
		newAutoscaler(hpa, nil).spec(field.NewPath("spec"), &hpa.Spec),
	)
}

// ValidateHorizontalPodAutoscalerUpdate is the rule list of an update.
func ValidateHorizontalPodAutoscalerUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")),
		newAutoscaler(hpa, old).spec(field.NewPath("spec"), &hpa.Spec),
	)
}

func newAutoscaler(hpa, old *autoscalingv2.HorizontalPodAutoscaler) autoscaler {
	a := autoscaler{described: ref{emptyGroup: true}}
	target := hpa.Spec.ScaleTargetRef
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == target.APIVersion && old.Spec.ScaleTargetRef.Kind == target.Kind:
		a.target.anyVersion = true
	case target.Kind == "ReplicationController": // the one scalable kind of the core group
		a.target.emptyGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && a.described.apiVersion(m.Object.DescribedObject.APIVersion) != nil {
				a.described.anyVersion = true
			}
		}
	}
	return a
}

// spec: the target to scale, between minReplicas and maxReplicas, by the metrics, as fast as
// the behavior allows.
func (a autoscaler) spec(path *field.Path, s *autoscalingv2.HorizontalPodAutoscalerSpec) field.ErrorList {
	max := path.Child("maxReplicas")
	errs := validation.Join(
		validation.IfSet(path.Child("minReplicas"), s.MinReplicas, func(p *field.Path, v int32) field.ErrorList {
			return validation.NonNegative(p, int64(v)).MarkCoveredByDeclarative()
		}),
		validation.When(s.MaxReplicas == 0, field.Required(max, "must be set and greater than 0").MarkCoveredByDeclarative()),
		validation.When(s.MaxReplicas < 0, field.Invalid(max, s.MaxReplicas, "must be greater than or equal to 1").
			WithOrigin("minimum").MarkCoveredByDeclarative()),
		validation.When(s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas,
			field.Invalid(max, s.MaxReplicas, "must be greater than or equal to `minReplicas`")),
		a.target.check(path.Child("scaleTargetRef"), s.ScaleTargetRef),
	)
	wakers := false
	for i := range s.Metrics {
		errs = append(errs, a.metric(path.Child("metrics").Index(i), &s.Metrics[i])...)
		wakers = wakers || s.Metrics[i].Type == autoscalingv2.ObjectMetricSourceType || s.Metrics[i].Type == autoscalingv2.ExternalMetricSourceType
	}
	if s.MinReplicas != nil && *s.MinReplicas == 0 && !wakers {
		errs = append(errs, field.Forbidden(path.Child("metrics"), "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	if b := s.Behavior; b != nil {
		errs = validation.Join(errs, scalingRules(path.Child("behavior", "scaleUp"), b.ScaleUp), scalingRules(path.Child("behavior", "scaleDown"), b.ScaleDown))
	}
	return errs
}

// check: an object by kind, name and apiVersion. The generated rules also report a missing
// kind or name; theirs are alpha, so ours stand.
func (r ref) check(path *field.Path, o autoscalingv2.CrossVersionObjectReference) field.ErrorList {
	named := func(p *field.Path, v string) field.ErrorList {
		if v == "" {
			return field.ErrorList{field.Required(p, "").MarkCoveredByDeclarative()}
		}
		var errs field.ErrorList
		for _, msg := range validation.PathSegmentName(v, false) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
		return errs
	}
	errs := validation.Join(named(path.Child("kind"), o.Kind), named(path.Child("name"), o.Name))
	if err := r.apiVersion(o.APIVersion); err != nil {
		errs = append(errs, field.Invalid(path.Child("apiVersion"), o.APIVersion, err.Error()))
	}
	return errs
}

func (r ref) apiVersion(v string) error {
	if r.anyVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(v)
	switch {
	case err != nil:
		return err
	case gv.Group == "" && !r.emptyGroup:
		return fmt.Errorf("apiVersion must specify API group")
	}
	return nil
}

// scalingRules: how fast the autoscaler may scale one way: the policies, the one of them to
// pick, and how long a recommendation must last.
func scalingRules(path *field.Path, r *autoscalingv2.HPAScalingRules) field.ErrorList {
	if r == nil {
		return nil
	}
	window := path.Child("stabilizationWindowSeconds")
	selects := []autoscalingv2.ScalingPolicySelect{autoscalingv2.DisabledPolicySelect, autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect}
	return validation.Join(
		validation.IfSet(window, r.StabilizationWindowSeconds, func(p *field.Path, v int32) field.ErrorList {
			return validation.Join(
				validation.When(v < 0, field.Invalid(p, v, "must be greater than or equal to zero")),
				validation.When(v > 3600, field.Invalid(p, v, "must be less than or equal to 3600")),
			)
		}),
		validation.IfSet(path.Child("selectPolicy"), r.SelectPolicy, func(p *field.Path, v autoscalingv2.ScalingPolicySelect) field.ErrorList {
			return validation.Supported(p, v, selects...)
		}),
		validation.When(len(r.Policies) == 0, field.Required(path.Child("policies"), "must specify at least one Policy")),
		validation.Each(path.Child("policies"), r.Policies, policy),
		validation.IfSet(path.Child("tolerance"), r.Tolerance, validation.NonNegativeQuantity),
	)
}

// policy: at most value pods, or value percent of them, per periodSeconds (up to 30 minutes).
func policy(path *field.Path, p *autoscalingv2.HPAScalingPolicy) field.ErrorList {
	period := path.Child("periodSeconds")
	return validation.Join(
		validation.Supported(path.Child("type"), p.Type, autoscalingv2.PercentScalingPolicy, autoscalingv2.PodsScalingPolicy),
		validation.When(p.Value <= 0, field.Invalid(path.Child("value"), p.Value, "must be greater than zero")),
		validation.When(p.PeriodSeconds <= 0, field.Invalid(period, p.PeriodSeconds, "must be greater than zero")),
		validation.When(p.PeriodSeconds > 1800, field.Invalid(period, p.PeriodSeconds, "must be less than or equal to 1800")),
	)
}

// ValidateHorizontalPodAutoscalerStatusUpdate is the rule list of a /status update, which
// the autoscaler controller writes.
func ValidateHorizontalPodAutoscalerStatusUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	path, s := field.NewPath("status"), &hpa.Status
	errs := validation.MetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	for i, c := range s.Conditions {
		errs = append(errs, validation.IfSet(path.Child("conditions").Index(i).Child("observedGeneration"), c.ObservedGeneration, validation.NonNegative)...)
	}
	return validation.Join(errs,
		validation.NonNegative(path.Child("currentReplicas"), int64(s.CurrentReplicas)),
		validation.NonNegative(path.Child("desiredReplicas"), int64(s.DesiredReplicas)),
	)
}
