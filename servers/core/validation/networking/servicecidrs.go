package networking

import (
	networkingv1 "k8s.io/api/networking/v1"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/apichain/apichain/servers/core/validation"
)

// ServiceCIDRs (the ranges ClusterIPs come from) and IPAddresses (one per address handed out).

// ValidateServiceCIDR is the rule list of a new ServiceCIDR: one or two CIDRs, of two families
// when two.
func ValidateServiceCIDR(c *networkingv1.ServiceCIDR) field.ErrorList {
	return validation.Join(
		validation.Meta(&c.ObjectMeta, false, validation.SubdomainName, metadata),
		serviceCIDRs(&c.Spec),
	)
}

// ValidateServiceCIDRUpdate is the rule list of an update: the CIDRs stay, except that a
// single-stack range may gain a CIDR of the other family (a cluster going dual-stack).
func ValidateServiceCIDRUpdate(c, old *networkingv1.ServiceCIDR) field.ErrorList {
	cidrs := field.NewPath("spec", "cidrs")
	errs := validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata)
	is, was := c.Spec.CIDRs, old.Spec.CIDRs
	switch {
	case len(is) == len(was):
		for i := range was {
			errs = append(errs, validation.When(is[i] != was[i], field.Invalid(cidrs.Index(i), is[i], "field is immutable"))...)
		}
	case len(was) == 1 && len(is) == 2:
		errs = append(errs, validation.When(is[0] != was[0], field.Invalid(cidrs.Index(0), is[0], "field is immutable"))...)
		errs = append(errs, serviceCIDRs(&c.Spec)...)
	default:
		errs = append(errs, field.Invalid(cidrs, is, "field is immutable"))
	}
	return errs
}

// ValidateServiceCIDRStatusUpdate: whoever writes the status (the apiserver for the default
// range, the controller manager for the others) may write what it likes; only the metadata is
// checked.
func ValidateServiceCIDRStatusUpdate(c, old *networkingv1.ServiceCIDR) field.ErrorList {
	return validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata)
}

// serviceCIDRs: at least one CIDR, at most one of each family, each in canonical form.
func serviceCIDRs(s *networkingv1.ServiceCIDRSpec) field.ErrorList {
	path := field.NewPath("spec", "cidrs")
	switch n := len(s.CIDRs); {
	case n == 0:
		return field.ErrorList{field.Required(path, "at least one CIDR required")}
	case n > 2:
		return field.ErrorList{field.Invalid(path, validation.Internal(*s), "may only hold up to 2 values")}
	case n == 2:
		if dual, err := netutils.IsDualStackCIDRStrings(s.CIDRs); err != nil || !dual {
			return field.ErrorList{field.Invalid(path, s.CIDRs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64")}
		}
	}
	var errs field.ErrorList
	for i, cidr := range s.CIDRs {
		errs = append(errs, utilvalidation.IsValidCIDR(path.Index(i), cidr)...)
	}
	return errs
}

// ipAddressName: an IPAddress is named by its address, in canonical form. A generateName
// makes no sense for one: the registry uses it as the name as it is.
func ipAddressName(name string, _ bool) []string {
	var msgs []string
	for _, e := range utilvalidation.IsValidIP(field.NewPath(""), name) {
		msgs = append(msgs, e.Detail)
	}
	return msgs
}

// ValidateIPAddress is the rule list of a new IPAddress: an address, and the object it was
// handed out to. The generated rules report the missing parent, resource and name.
func ValidateIPAddress(a *networkingv1.IPAddress) field.ErrorList {
	return validation.Join(
		validation.Meta(&a.ObjectMeta, false, ipAddressName, metadata),
		parentRef(field.NewPath("spec", "parentRef"), a.Spec.ParentRef),
	)
}

// ValidateIPAddressUpdate is the rule list of an update: valid as if new, and the parent stays
// (the generated rule reports it).
func ValidateIPAddressUpdate(a, old *networkingv1.IPAddress) field.ErrorList {
	return validation.Join(
		ValidateIPAddress(a),
		validation.MetaUpdate(&a.ObjectMeta, &old.ObjectMeta, metadata),
		validation.ImmutableDeclared(field.NewPath("spec", "parentRef"), a.Spec.ParentRef, old.Spec.ParentRef),
	)
}

// parentRef: what an address belongs to: a group (the core group, "", is allowed), a resource
// and a name that can stand in a URL path and, for namespaced parents, a namespace.
func parentRef(p *field.Path, ref *networkingv1.ParentReference) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(p, "").MarkCoveredByDeclarative()}
	}
	segment := func(p *field.Path, v string) field.ErrorList {
		var errs field.ErrorList
		for _, msg := range pathvalidation.IsValidPathSegmentName(v) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
		return errs
	}
	requiredSegment := func(p *field.Path, v string) field.ErrorList {
		if v == "" {
			return field.ErrorList{field.Required(p, "").MarkCoveredByDeclarative()}
		}
		return segment(p, v)
	}
	return validation.Join(
		ifNotEmpty(p.Child("group"), ref.Group, validation.DNSSubdomain),
		requiredSegment(p.Child("resource"), ref.Resource),
		requiredSegment(p.Child("name"), ref.Name),
		ifNotEmpty(p.Child("namespace"), ref.Namespace, segment),
	)
}

func ifNotEmpty(p *field.Path, v string, check func(*field.Path, string) field.ErrorList) field.ErrorList {
	if v == "" {
		return nil
	}
	return check(p, v)
}
