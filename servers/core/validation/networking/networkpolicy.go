// Package networking validates the networking.k8s.io kinds of the Core server: Ingress (and
// its status), IngressClass, NetworkPolicy, ServiceCIDR (and its status) and IPAddress.
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/networking
// call these functions as their Validate hooks, after the request is decoded and defaulted and
// before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, paths and messages are kube-apiserver v1.37.2's, as observed. The generated
// declarative rules report that an ipBlock's cidr, an IngressClass's parameters kind and name,
// and an IPAddress's parentRef (and its resource and name) are required, and that the parentRef
// is immutable: ours, marked as covered by them, are dropped in favour of theirs.
//
// An update keeps what the stored object already has and today's rules reject: invalid label
// values in a policy's selectors, invalid CIDRs, an Ingress's invalid TLS secret names and
// invalid rules under wildcard hosts.
package networking

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/apichain/apichain/servers/core/validation"
)

var metadata = field.NewPath("metadata")

// policy is a NetworkPolicy spec under validation, with what an update lets it keep.
type policy struct {
	selectors metavalidation.LabelSelectorValidationOptions
	oldCIDRs  []string
}

// ValidateNetworkPolicy is the rule list of a new NetworkPolicy.
func ValidateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	return validation.Join(
		validation.Meta(&np.ObjectMeta, true, validation.SubdomainName, metadata),
		policy{}.spec(field.NewPath("spec"), &np.Spec),
	)
}

// ValidateNetworkPolicyUpdate is the rule list of an update: the policy as if new, keeping the
// stored policy's invalid label values (if its pod selector has one) and CIDRs.
func ValidateNetworkPolicyUpdate(np, old *networkingv1.NetworkPolicy) field.ErrorList {
	var p policy
	p.selectors.AllowInvalidLabelValueInSelector = len(validation.Selector(nil, &old.Spec.PodSelector)) > 0
	for _, peers := range peerLists(&old.Spec) {
		for _, peer := range peers {
			if peer.IPBlock != nil {
				p.oldCIDRs = append(append(p.oldCIDRs, peer.IPBlock.CIDR), peer.IPBlock.Except...)
			}
		}
	}
	return validation.Join(
		validation.MetaUpdate(&np.ObjectMeta, &old.ObjectMeta, metadata),
		p.spec(field.NewPath("spec"), &np.Spec),
	)
}

func peerLists(s *networkingv1.NetworkPolicySpec) [][]networkingv1.NetworkPolicyPeer {
	var lists [][]networkingv1.NetworkPolicyPeer
	for _, r := range s.Ingress {
		lists = append(lists, r.From)
	}
	for _, r := range s.Egress {
		lists = append(lists, r.To)
	}
	return lists
}

// spec: which pods the policy selects, the traffic it lets in and out, and its types.
func (p policy) spec(path *field.Path, s *networkingv1.NetworkPolicySpec) field.ErrorList {
	errs := p.selector(path.Child("podSelector"), &s.PodSelector)
	for i, r := range s.Ingress {
		errs = append(errs, p.rule(path.Child("ingress").Index(i), r.Ports, "from", r.From)...)
	}
	for i, r := range s.Egress {
		errs = append(errs, p.rule(path.Child("egress").Index(i), r.Ports, "to", r.To)...)
	}
	types := path.Child("policyTypes")
	if len(s.PolicyTypes) > 2 {
		return append(errs, field.Invalid(types, s.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range s.PolicyTypes {
		errs = append(errs, validation.Supported(types.Index(i), t, networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress)...)
	}
	return errs
}

func (p policy) selector(path *field.Path, s *metav1.LabelSelector) field.ErrorList {
	return metavalidation.ValidateLabelSelector(s, p.selectors, path)
}

// rule: the ports and the peers (from or to) of one ingress or egress rule.
func (p policy) rule(path *field.Path, ports []networkingv1.NetworkPolicyPort, peersName string, peers []networkingv1.NetworkPolicyPeer) field.ErrorList {
	return validation.Join(
		validation.Each(path.Child("ports"), ports, port),
		validation.Each(path.Child(peersName), peers, p.peer),
	)
}

// port: a protocol and a port, by number or by name, or a range of numbers.
func port(path *field.Path, np *networkingv1.NetworkPolicyPort) field.ErrorList {
	errs := validation.IfSet(path.Child("protocol"), np.Protocol, func(p *field.Path, v corev1.Protocol) field.ErrorList {
		return validation.Supported(p, v, corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP)
	})
	end := path.Child("endPort")
	switch {
	case np.Port == nil:
		return append(errs, validation.IfSet(end, np.EndPort, func(p *field.Path, v int32) field.ErrorList {
			return field.ErrorList{field.Invalid(p, v, "may not be specified when `port` is not specified")}
		})...)
	case np.Port.Type == intstr.String:
		return validation.Join(errs,
			validation.IfSet(end, np.EndPort, func(p *field.Path, v int32) field.ErrorList {
				return field.ErrorList{field.Invalid(p, v, "may not be specified when `port` is non-numeric")}
			}),
			validation.PortName(path.Child("port"), np.Port.StrVal),
		)
	}
	return validation.Join(errs,
		validation.Port(path.Child("port"), np.Port.IntVal),
		validation.IfSet(end, np.EndPort, func(p *field.Path, v int32) field.ErrorList {
			return validation.Join(
				validation.When(v < np.Port.IntVal, field.Invalid(p, v, "must be greater than or equal to `port`")),
				validation.Port(p, v),
			)
		}),
	)
}

// peer: pods by label, namespaces by label (both: those pods in those namespaces), or an IP
// block, which stands alone.
func (p policy) peer(path *field.Path, peer *networkingv1.NetworkPolicyPeer) field.ErrorList {
	var errs field.ErrorList
	if peer.PodSelector != nil {
		errs = append(errs, p.selector(path.Child("podSelector"), peer.PodSelector)...)
	}
	if peer.NamespaceSelector != nil {
		errs = append(errs, p.selector(path.Child("namespaceSelector"), peer.NamespaceSelector)...)
	}
	if peer.IPBlock != nil {
		errs = append(errs, p.ipBlock(path.Child("ipBlock"), peer.IPBlock)...)
	}
	switch {
	case peer.PodSelector == nil && peer.NamespaceSelector == nil && peer.IPBlock == nil:
		errs = append(errs, field.Required(path, "must specify a peer"))
	case peer.IPBlock != nil && (peer.PodSelector != nil || peer.NamespaceSelector != nil):
		errs = append(errs, field.Forbidden(path, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// ipBlock: a CIDR, less the CIDRs inside it that except lists.
func (p policy) ipBlock(path *field.Path, b *networkingv1.IPBlock) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(path.Child("cidr"), "").MarkCoveredByDeclarative()}
	}
	errs := utilvalidation.IsValidCIDRForLegacyField(path.Child("cidr"), b.CIDR, true, p.oldCIDRs)
	_, outer, err := netutils.ParseCIDRSloppy(b.CIDR)
	if err != nil {
		return errs
	}
	for i, except := range b.Except {
		errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(path.Child("except").Index(i), except, true, p.oldCIDRs)...)
		if _, inner, err := netutils.ParseCIDRSloppy(except); err == nil && !strictSubset(inner, outer) {
			errs = append(errs, field.Invalid(path.Child("except").Index(i), except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// strictSubset: inner lies in outer and is smaller.
func strictSubset(inner, outer *net.IPNet) bool {
	innerBits, _ := inner.Mask.Size()
	outerBits, _ := outer.Mask.Size()
	return outer.Contains(inner.IP) && outerBits < innerBits
}
