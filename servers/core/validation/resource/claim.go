package resource

import (
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateResourceClaim is the rule list of a new ResourceClaim: the devices it requests, the
// constraints between them and the configuration for their drivers.
func ValidateResourceClaim(c *resourcev1.ResourceClaim) field.ErrorList {
	return validation.Join(
		validation.Meta(&c.ObjectMeta, true, validation.SubdomainName, metadata),
		deviceClaim(spec.Child("devices"), &c.Spec.Devices),
	)
}

// ValidateResourceClaimUpdate: a claim's spec never changes, so nothing else is checked again.
func ValidateResourceClaimUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	return validation.Join(
		validation.Meta(&c.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata),
		validation.ImmutableDeclared(spec, c.Spec, old.Spec),
	)
}

// ValidateResourceClaimTemplate is the rule list of a new ResourceClaimTemplate: the metadata
// and spec of the claims made from it.
func ValidateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) field.ErrorList {
	template := spec.Child("metadata")
	return validation.Join(
		validation.Meta(&t.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.Labels(template.Child("labels"), t.Spec.Labels),
		validation.Annotations(template.Child("annotations"), t.Spec.Annotations),
		deviceClaim(spec.Child("spec", "devices"), &t.Spec.Spec.Devices),
	)
}

// ValidateResourceClaimTemplateUpdate: a template is valid as if new, and its spec never changes.
func ValidateResourceClaimTemplateUpdate(t, old *resourcev1.ResourceClaimTemplate) field.ErrorList {
	return validation.Join(
		ValidateResourceClaimTemplate(t),
		validation.MetaUpdate(&t.ObjectMeta, &old.ObjectMeta, metadata),
		validation.Immutable(spec, t.Spec, old.Spec),
	)
}

// deviceClaim: the requests, with unique names; the constraints and configuration that name
// them. The lists' sizes and the names' uniqueness are generated rules too.
func deviceClaim(p *field.Path, d *resourcev1.DeviceClaim) field.ErrorList {
	names := namesOf(d)
	return validation.Join(
		set(p.Child("requests"), d.Requests, resourcev1.DeviceRequestsMaxSize, func(r resourcev1.DeviceRequest) string { return r.Name }, request),
		list(p.Child("constraints"), d.Constraints, resourcev1.DeviceConstraintsMaxSize, func(p *field.Path, c *resourcev1.DeviceConstraint) field.ErrorList {
			return append(requestRefs(p.Child("requests"), c.Requests, names), constraintAttribute(p, c)...)
		}),
		list(p.Child("config"), d.Config, resourcev1.DeviceConfigMaxSize, func(p *field.Path, c *resourcev1.DeviceClaimConfiguration) field.ErrorList {
			return append(requestRefs(p.Child("requests"), c.Requests, names), opaqueConfig(p, c.DeviceConfiguration, false)...)
		}),
	)
}

// constraintAttribute: a constraint is on one attribute that the devices must share
// (matchAttribute) or must not share (distinctAttribute, consumable capacity being on).
func constraintAttribute(p *field.Path, c *resourcev1.DeviceConstraint) field.ErrorList {
	switch {
	case c.MatchAttribute != nil:
		return fullyQualifiedName(p.Child("matchAttribute"), string(*c.MatchAttribute))
	case c.DistinctAttribute != nil:
		return fullyQualifiedName(p.Child("distinctAttribute"), string(*c.DistinctAttribute))
	}
	return field.ErrorList{field.Required(p, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`)}
}

// fullyQualifiedName: an attribute name with its domain, "gpu.example.com/model" (a generated
// rule too).
func fullyQualifiedName(p *field.Path, name string) field.ErrorList {
	errs := qualifiedName(p, name)
	if !strings.Contains(name, "/") {
		errs = append(errs, field.Invalid(p, name, "a fully qualified name must be a domain and a name separated by a slash"))
	}
	return declared("format=k8s-resource-fully-qualified-name", errs)
}

// request: a DNS label, and exactly one of an exact request and a list of alternatives, tried in
// order, with unique names.
func request(p *field.Path, r *resourcev1.DeviceRequest) field.ErrorList {
	errs := validation.DNSLabel(p.Child("name"), r.Name)
	switch exact, alternatives := r.Exactly != nil, len(r.FirstAvailable) > 0; {
	case exact && alternatives:
		return append(errs, field.Invalid(p, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case exact:
		e := r.Exactly
		return append(errs, devicesOfClass(p.Child("exactly"), className(p.Child("exactly", "deviceClassName"), e.DeviceClassName),
			e.Selectors, e.AllocationMode, e.Count, e.Tolerations)...)
	case alternatives:
		return append(errs, set(p.Child("firstAvailable"), r.FirstAvailable, resourcev1.FirstAvailableDeviceRequestMaxSize,
			func(s resourcev1.DeviceSubRequest) string { return s.Name },
			func(p *field.Path, s *resourcev1.DeviceSubRequest) field.ErrorList {
				// An alternative's class is a generated rule too.
				class := declared("", className(p.Child("deviceClassName"), s.DeviceClassName))
				return append(validation.DNSLabel(p.Child("name"), s.Name),
					devicesOfClass(p, class, s.Selectors, s.AllocationMode, s.Count, s.Tolerations)...)
			})...)
	}
	return append(errs, field.Required(p, "exactly one of `exactly` or `firstAvailable` is required"))
}

// className: a request names a DeviceClass.
func className(p *field.Path, class string) field.ErrorList {
	if class == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return validation.DNSSubdomain(p, class).WithOrigin("format=k8s-long-name")
}

// devicesOfClass: what an exact request and an alternative share: the class's errors, then
// selectors, how many devices and tolerations.
func devicesOfClass(p *field.Path, class field.ErrorList, sel []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64,
	tolerations []resourcev1.DeviceToleration) field.ErrorList {
	return validation.Join(class,
		selectors(p.Child("selectors"), sel, false),
		howMany(p, mode, count),
		validation.Each(p.Child("tolerations"), tolerations, toleration),
	)
}

// howMany: All takes every matching device and no count; ExactCount a positive count.
func howMany(p *field.Path, mode resourcev1.DeviceAllocationMode, count int64) field.ErrorList {
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		return validation.When(count != 0, field.Invalid(p.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode)))
	case resourcev1.DeviceAllocationModeExactCount:
		return validation.Positive(p.Child("count"), count)
	}
	return declared("", validation.Supported(p.Child("allocationMode"), mode, resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount))
}
