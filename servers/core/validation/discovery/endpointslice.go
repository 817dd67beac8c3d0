// Package discovery validates the Core server's discovery.k8s.io EndpointSlices: the
// addresses and ports behind a Service, which kube-proxy and the aggregator's service
// resolver read.
//
// It sits in the Core server of the chain: the EndpointSlice Definition (servers/core/registry/
// discovery) calls these functions as its Validate hooks, after the request is decoded and
// defaulted and before the slice is stored; a non-empty error list becomes kube-apiserver's
// 422 Invalid. Field paths, error types and messages are kube-apiserver v1.37.2's, as
// observed. The generated declarative rules report addressType (required, one of FQDN, IPv4,
// IPv6, immutable) and each endpoint's addresses (required, at most 100) too: their errors
// replace ours, and come after them.
//
// Left out: kube-apiserver's guard that deprecatedTopology holds no topology.kubernetes.io/zone
// label. It protects its conversion to an internal type, which moves that label into zone;
// the chain stores the v1 object as it is.
package discovery

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/apichain/apichain/servers/core/validation"
)

var addressType = field.NewPath("addressType")

// ValidateEndpointSlice is the rule list of an EndpointSlice being created.
func ValidateEndpointSlice(es *discoveryv1.EndpointSlice) field.ErrorList {
	return slice(es, endpoints(field.NewPath("endpoints"), es.Endpoints, es.AddressType))
}

// ValidateEndpointSliceUpdate: a valid slice of the same address type; endpoints that do not
// change are not checked again, since older releases may have accepted what this one does not.
func ValidateEndpointSliceUpdate(es, old *discoveryv1.EndpointSlice) field.ErrorList {
	var endpointErrs field.ErrorList
	if !equality.Semantic.DeepEqual(es.Endpoints, old.Endpoints) {
		endpointErrs = endpoints(field.NewPath("endpoints"), es.Endpoints, es.AddressType)
	}
	return validation.Join(
		slice(es, endpointErrs),
		validation.Covered("immutable", validation.Immutable(addressType, es.AddressType, old.AddressType)),
	)
}

// slice is the rules of every EndpointSlice, with the errors of its endpoints.
func slice(es *discoveryv1.EndpointSlice, endpointErrs field.ErrorList) field.ErrorList {
	return validation.Join(
		validation.Meta(&es.ObjectMeta, true, validation.SubdomainName, field.NewPath("metadata")),
		validation.Covered("", validation.OneOf(addressType, es.AddressType,
			discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6)),
		ports(field.NewPath("ports"), es.Ports),
		endpointErrs,
	)
}

// ports: at most 20000, each named uniquely (one may go without a name), of a known protocol.
func ports(path *field.Path, list []discoveryv1.EndpointPort) field.ErrorList {
	if len(list) > 20000 {
		return field.ErrorList{field.TooMany(path, len(list), 20000)}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, p := range list {
		at := path.Index(i)
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != "" {
			errs = append(errs, validation.DNSLabel(at.Child("name"), name)...)
		}
		errs = append(errs, validation.When(seen[name], field.Duplicate(at.Child("name"), name))...)
		seen[name] = true
		if p.Protocol == nil {
			errs = append(errs, field.Required(at.Child("protocol"), ""))
		} else {
			errs = append(errs, validation.OneOf(at.Child("protocol"), *p.Protocol, corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP)...)
		}
		if p.AppProtocol != nil {
			errs = append(errs, validation.QualifiedName(at.Child("appProtocol"), *p.AppProtocol)...)
		}
	}
	return errs
}

// endpoints: at most 1000, each with addresses of the slice's type, a node, hostname,
// topology labels and hints that make sense.
func endpoints(path *field.Path, list []discoveryv1.Endpoint, addressType discoveryv1.AddressType) field.ErrorList {
	if len(list) > 1000 {
		return field.ErrorList{field.TooMany(path, len(list), 1000)}
	}
	var errs field.ErrorList
	for i := range list {
		e, at := &list[i], path.Index(i)
		addresses := at.Child("addresses")
		errs = append(errs, validation.Join(
			validation.Covered("", validation.When(len(e.Addresses) == 0, field.Required(addresses, "must contain at least 1 address"))),
			validation.Covered("maxItems", validation.When(len(e.Addresses) > 100, field.TooMany(addresses, len(e.Addresses), 100))),
		)...)
		for j, a := range e.Addresses {
			errs = append(errs, address(at.Child("addresses"), j, a, addressType)...)
		}
		if e.NodeName != nil {
			errs = append(errs, nodeName(at.Child("nodeName"), *e.NodeName)...)
		}
		topology := at.Child("deprecatedTopology")
		errs = append(errs, validation.When(len(e.DeprecatedTopology) > 16, field.TooMany(topology, len(e.DeprecatedTopology), 16))...)
		errs = append(errs, validation.Labels(topology, e.DeprecatedTopology)...)
		if e.Hostname != nil {
			errs = append(errs, validation.DNSLabel(at.Child("hostname"), *e.Hostname)...)
		}
		if e.Hints != nil {
			errs = append(errs, hints(at.Child("hints"), e.Hints)...)
		}
	}
	return errs
}

// address: an IP of the slice's family that traffic can go to, or a domain name. Some errors
// are at the list, without an index (kube-apiserver's paths).
func address(list *field.Path, i int, a string, addressType discoveryv1.AddressType) field.ErrorList {
	at := list.Index(i)
	var parse field.ErrorList
	var family bool
	switch addressType {
	case discoveryv1.AddressTypeIPv4:
		parse, family = utilvalidation.IsValidIPForLegacyField(at, a, true, nil), netutils.IsIPv4String(a)
	case discoveryv1.AddressTypeIPv6:
		parse, family = utilvalidation.IsValidIP(at, a), netutils.IsIPv6String(a)
	case discoveryv1.AddressTypeFQDN:
		return utilvalidation.IsFullyQualifiedDomainName(at, a)
	default:
		return nil // an unknown type: reported at addressType
	}
	if len(parse) > 0 {
		return parse
	}
	return validation.Join(
		validation.When(!family, field.Invalid(list, a, "must be an "+string(addressType)+" address")),
		validation.EndpointIP(at, a),
	)
}

// hints: at most 8 zones and 8 nodes, each named once.
func hints(path *field.Path, h *discoveryv1.EndpointHints) field.ErrorList {
	zones, nodes := path.Child("forZones"), path.Child("forNodes")
	if len(h.ForZones) > 8 {
		return field.ErrorList{field.TooMany(zones, len(h.ForZones), 8)}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, z := range h.ForZones {
		at := zones.Index(i).Child("name")
		errs = append(errs, validation.When(seen[z.Name], field.Duplicate(at, z.Name))...)
		seen[z.Name] = true
		for _, msg := range utilvalidation.IsValidLabelValue(z.Name) {
			errs = append(errs, field.Invalid(at, z.Name, msg))
		}
	}
	if len(h.ForNodes) > 8 {
		return append(errs, field.TooMany(nodes, len(h.ForNodes), 8))
	}
	seen = map[string]bool{}
	for i, n := range h.ForNodes {
		at := nodes.Index(i).Child("name")
		errs = append(errs, validation.When(seen[n.Name], field.Duplicate(at, n.Name))...)
		seen[n.Name] = true
		errs = append(errs, nodeName(at, n.Name)...)
	}
	return errs
}

func nodeName(path *field.Path, name string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.SubdomainName(name, false) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}
