package autoscaling

import (
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// sourceTypes are the metric source types, in the order kube-apiserver lists them.
var sourceTypes = []autoscalingv2.MetricSourceType{
	autoscalingv2.ContainerResourceMetricSourceType, autoscalingv2.ExternalMetricSourceType,
	autoscalingv2.ObjectMetricSourceType, autoscalingv2.PodsMetricSourceType, autoscalingv2.ResourceMetricSourceType,
}

// metric: a metric names its source type and fills in that source, and that source only.
func (a autoscaler) metric(path *field.Path, m *autoscalingv2.MetricSpec) field.ErrorList {
	typ := path.Child("type")
	errs := validation.When(m.Type == "", field.Required(typ, "must specify a metric source type"))
	errs = append(errs, validation.Supported(typ, m.Type, sourceTypes...)...)

	// The sources that are set, by their field name; only the first is looked into.
	type source struct {
		name  string
		set   bool
		check func() field.ErrorList
	}
	sources := []source{
		{"object", m.Object != nil, func() field.ErrorList { return a.object(path.Child("object"), m.Object) }},
		{"external", m.External != nil, func() field.ErrorList { return external(path.Child("external"), m.External) }},
		{"pods", m.Pods != nil, func() field.ErrorList { return podsSource(path.Child("pods"), m.Pods) }},
		{"resource", m.Resource != nil, func() field.ErrorList { return resource(path.Child("resource"), m.Resource) }},
		{"containerResource", m.ContainerResource != nil, func() field.ErrorList {
			return containerResource(path.Child("containerResource"), m.ContainerResource)
		}},
	}
	var set []string
	for _, s := range sources {
		if s.set {
			if len(set) == 0 {
				errs = append(errs, s.check()...)
			}
			set = append(set, s.name)
		}
	}

	// The source the type names must be there.
	want := map[autoscalingv2.MetricSourceType]string{autoscalingv2.ObjectMetricSourceType: "object", autoscalingv2.PodsMetricSourceType: "pods",
		autoscalingv2.ResourceMetricSourceType: "resource", autoscalingv2.ExternalMetricSourceType: "external",
		autoscalingv2.ContainerResourceMetricSourceType: "containerResource"}[m.Type]
	if want != "" && !slices.Contains(set, want) {
		errs = append(errs, field.Required(path.Child(want), "must populate information for the given metric source"))
	}
	if len(set) > 1 {
		for _, name := range set {
			errs = append(errs, validation.When(name != want, field.Forbidden(path.Child(name), "must populate the given metric source only"))...)
		}
	}
	return errs
}

// object: a metric of one object (the hits of an Ingress), as a value or per pod.
func (a autoscaler) object(path *field.Path, s *autoscalingv2.ObjectMetricSource) field.ErrorList {
	return validation.Join(
		a.described.check(path.Child("describedObject"), s.DescribedObject),
		identifier(path.Child("metric"), s.Metric),
		target(path.Child("target"), s.Target),
		validation.When(s.Target.Value == nil && s.Target.AverageValue == nil,
			field.Required(path.Child("target", "averageValue"), "must set either a target value or averageValue")),
	)
}

// external: a metric from outside the cluster (a queue's length), as a value or per pod.
func external(path *field.Path, s *autoscalingv2.ExternalMetricSource) field.ErrorList {
	return validation.Join(
		identifier(path.Child("metric"), s.Metric),
		target(path.Child("target"), s.Target),
		validation.When(s.Target.Value == nil && s.Target.AverageValue == nil,
			field.Required(path.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target")),
		validation.When(s.Target.Value != nil && s.Target.AverageValue != nil,
			field.Forbidden(path.Child("target", "value"), "may not set both a target value for metric and a per-pod target")),
	)
}

// podsSource: a metric of each pod (requests per second), averaged.
func podsSource(path *field.Path, s *autoscalingv2.PodsMetricSource) field.ErrorList {
	return validation.Join(
		identifier(path.Child("metric"), s.Metric),
		target(path.Child("target"), s.Target),
		validation.When(s.Target.AverageValue == nil, field.Required(path.Child("target", "averageValue"), "must specify a positive target averageValue")),
	)
}

// resource: the usage of a resource (cpu, memory) by the pods, raw or as a share of requests.
func resource(path *field.Path, s *autoscalingv2.ResourceMetricSource) field.ErrorList {
	return validation.Join(
		validation.When(s.Name == "", field.Required(path.Child("name"), "must specify a resource name")),
		target(path.Child("target"), s.Target),
		rawOrUtilization(path.Child("target"), s.Target),
	)
}

// containerResource: resource, for one container of each pod.
func containerResource(path *field.Path, s *autoscalingv2.ContainerResourceMetricSource) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "must specify a resource name"))
	} else {
		errs = append(errs, pods.ContainerResourceName(path.Child("name"), s.Name)...)
	}
	if s.Container == "" {
		errs = append(errs, field.Required(path.Child("container"), "must specify a container"))
	} else {
		errs = append(errs, validation.DNSLabel(path.Child("container"), s.Container)...)
	}
	return validation.Join(errs, target(path.Child("target"), s.Target), rawOrUtilization(path.Child("target"), s.Target))
}

func rawOrUtilization(path *field.Path, t autoscalingv2.MetricTarget) field.ErrorList {
	return validation.Join(
		validation.When(t.AverageUtilization == nil && t.AverageValue == nil,
			field.Required(path.Child("averageUtilization"), "must set either a target raw value or a target utilization")),
		validation.When(t.AverageUtilization != nil && t.AverageValue != nil,
			field.Forbidden(path.Child("averageValue"), "may not set both a target raw value and a target utilization")),
	)
}

// target: the value to keep the metric at, by its type.
func target(path *field.Path, t autoscalingv2.MetricTarget) field.ErrorList {
	errs := validation.When(t.Type == "", field.Required(path.Child("type"), "must specify a metric target type"))
	switch t.Type {
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(path.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("value"), t.Value, "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(path.Child("averageValue"), t.AverageValue, "must be positive"))
	}
	return append(errs, validation.IfSet(path.Child("averageUtilization"), t.AverageUtilization, func(p *field.Path, v int32) field.ErrorList {
		return validation.When(v < 1, field.Invalid(p, v, "must be greater than 0"))
	})...)
}

// identifier: a metric's name (the selector narrows it down and is free-form).
func identifier(path *field.Path, id autoscalingv2.MetricIdentifier) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(path.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range validation.PathSegmentName(id.Name, false) {
		errs = append(errs, field.Invalid(path.Child("name"), id.Name, msg))
	}
	return errs
}
