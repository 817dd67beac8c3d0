package resource

import (
	"context"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var (
	metadata = field.NewPath("metadata")
	spec     = field.NewPath("spec")
	status   = field.NewPath("status")
)

// ValidateDeviceClass is the rule list of a new DeviceClass: a DNS subdomain for a name, the
// CEL selectors that pick its devices, the configuration its drivers get, and the extended
// resource name under which pods may ask for its devices.
func ValidateDeviceClass(c *resourcev1.DeviceClass) field.ErrorList {
	return validation.Join(
		classMeta(c),
		classSpec(&c.Spec, nil),
	)
}

// ValidateDeviceClassUpdate: a class may change; selectors and configuration that did not
// change are not checked again.
func ValidateDeviceClassUpdate(c, old *resourcev1.DeviceClass) field.ErrorList {
	return validation.Join(
		classMeta(c),
		validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata),
		classSpec(&c.Spec, &old.Spec),
	)
}

// classMeta: the metadata, the name's format being a generated rule too.
func classMeta(c *resourcev1.DeviceClass) field.ErrorList {
	errs := validation.Meta(&c.ObjectMeta, false, func(string, bool) []string { return nil }, metadata)
	if c.Name == "" {
		return errs
	}
	name := declared("", validate.LongName(context.Background(), operation.Operation{}, metadata.Child("name"), &c.Name, nil))
	return append(name, errs...)
}

func classSpec(s, old *resourcev1.DeviceClassSpec) field.ErrorList {
	storedSelectors := old != nil && equality.Semantic.DeepEqual(s.Selectors, old.Selectors)
	storedConfig := old != nil && equality.Semantic.DeepEqual(s.Config, old.Config)
	errs := validation.Join(
		selectors(spec.Child("selectors"), s.Selectors, storedSelectors),
		list(spec.Child("config"), s.Config, resourcev1.DeviceConfigMaxSize, func(p *field.Path, c *resourcev1.DeviceClassConfiguration) field.ErrorList {
			return opaqueConfig(p, c.DeviceConfiguration, storedConfig)
		}),
	)
	if name := s.ExtendedResourceName; name != nil && !extendedResourceName(*name) {
		errs = append(errs, declared("format=k8s-extended-resource-name", field.ErrorList{
			field.Invalid(spec.Child("extendedResourceName"), *name, "must be a valid extended resource name")})...)
	}
	return errs
}

// extendedResourceName: a resource of the node that is none of Kubernetes' own: a name with a
// domain, not under kubernetes.io/, and a label key even with "requests." in front (as a quota
// names it).
func extendedResourceName(name string) bool {
	return strings.Contains(name, "/") && !strings.Contains(name, "kubernetes.io/") && !strings.HasPrefix(name, "requests.") &&
		len(utilvalidation.IsQualifiedName("requests."+name)) == 0
}

// selectors: at most 32, each a CEL expression (the only kind of selector there is).
func selectors(p *field.Path, sel []resourcev1.DeviceSelector, stored bool) field.ErrorList {
	return list(p, sel, resourcev1.DeviceSelectorsMaxSize, func(p *field.Path, s *resourcev1.DeviceSelector) field.ErrorList {
		if s.CEL == nil {
			return field.ErrorList{field.Required(p.Child("cel"), "")}
		}
		return celSelector(p.Child("cel", "expression"), s.CEL.Expression, stored)
	})
}

// ValidateDeviceTaintRule is the rule list of a new DeviceTaintRule: which devices (driver,
// pool, device) and the taint they get.
func ValidateDeviceTaintRule(r *resourcev1.DeviceTaintRule) field.ErrorList {
	return validation.Join(
		validation.Meta(&r.ObjectMeta, false, validation.SubdomainName, metadata),
		taintRuleSpec(&r.Spec, nil),
	)
}

// ValidateDeviceTaintRuleUpdate: a rule may change, within the same rules; an effect that
// did not change is not checked again.
func ValidateDeviceTaintRuleUpdate(r, old *resourcev1.DeviceTaintRule) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&r.ObjectMeta, &old.ObjectMeta, metadata),
		taintRuleSpec(&r.Spec, &old.Spec.Taint),
	)
}

// ValidateDeviceTaintRuleStatusUpdate: the conditions a controller reports about the rule.
func ValidateDeviceTaintRuleStatusUpdate(r, old *resourcev1.DeviceTaintRule) field.ErrorList {
	conditions := status.Child("conditions")
	return validation.Join(
		validation.MetaUpdate(&r.ObjectMeta, &old.ObjectMeta, metadata),
		metavalidation.ValidateConditions(r.Status.Conditions, conditions),
		validation.When(len(r.Status.Conditions) > resourcev1.DeviceTaintRuleStatusMaxConditions,
			field.TooMany(conditions, len(r.Status.Conditions), resourcev1.DeviceTaintRuleStatusMaxConditions)),
	)
}

func taintRuleSpec(s *resourcev1.DeviceTaintRuleSpec, old *resourcev1.DeviceTaint) field.ErrorList {
	var errs field.ErrorList
	if sel := s.DeviceSelector; sel != nil {
		p := spec.Child("deviceSelector")
		errs = validation.Join(
			validation.IfSet(p.Child("driver"), sel.Driver, func(p *field.Path, d string) field.ErrorList { return driverName(p, d, false) }),
			validation.IfSet(p.Child("pool"), sel.Pool, func(p *field.Path, pool string) field.ErrorList { return poolName(p, pool, false) }),
			validation.IfSet(p.Child("device"), sel.Device, validation.DNSLabel),
		)
	}
	return append(errs, taint(spec.Child("taint"), &s.Taint, old)...)
}

// taint: a key named like a label key, a value (if any) like a label value, and an effect,
// required and one of NoSchedule, NoExecute and None (checked again only when it changes).
func taint(p *field.Path, t, old *resourcev1.DeviceTaint) field.ErrorList {
	errs := labelName(p.Child("key"), t.Key)
	if t.Value != "" {
		errs = append(errs, validation.LabelValue(p.Child("value"), t.Value)...)
	}
	if old == nil || old.Effect != t.Effect {
		errs = append(errs, declared("", validation.OneOf(p.Child("effect"), t.Effect, effects...))...)
	}
	return errs
}
