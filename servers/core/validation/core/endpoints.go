package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// protocols are the transport protocols a Service or endpoint port may name.
var protocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

// ValidateEndpoints is the rule list of an Endpoints object being created (the legacy form of
// EndpointSlices, still written by the endpoints controller).
func ValidateEndpoints(ep *corev1.Endpoints) field.ErrorList {
	return validation.Join(
		validation.Meta(&ep.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.Each(field.NewPath("subsets"), ep.Subsets, subset),
	)
}

// ValidateEndpointsUpdate: valid Endpoints; subsets that do not change are not checked again,
// since older releases may have accepted what this one does not.
func ValidateEndpointsUpdate(ep, old *corev1.Endpoints) field.ErrorList {
	errs := validation.Join(
		validation.MetaUpdate(&ep.ObjectMeta, &old.ObjectMeta, metadata),
		validation.Meta(&ep.ObjectMeta, true, validation.SubdomainName, metadata),
	)
	if equality.Semantic.DeepEqual(ep.Subsets, old.Subsets) {
		return errs
	}
	return append(errs, validation.Each(field.NewPath("subsets"), ep.Subsets, subset)...)
}

// subset: some addresses, each a usable IP, and ports, named when there are several.
func subset(path *field.Path, s *corev1.EndpointSubset) field.ErrorList {
	named := len(s.Ports) > 1
	return validation.Join(
		validation.When(len(s.Addresses) == 0 && len(s.NotReadyAddresses) == 0,
			field.Required(path, "must specify `addresses` or `notReadyAddresses`")),
		validation.Each(path.Child("addresses"), s.Addresses, endpointAddress),
		validation.Each(path.Child("notReadyAddresses"), s.NotReadyAddresses, endpointAddress),
		validation.Each(path.Child("ports"), s.Ports, func(p *field.Path, port *corev1.EndpointPort) field.ErrorList {
			return validation.Join(
				portName(p.Child("name"), port.Name, named),
				validation.Port(p.Child("port"), port.Port),
				validation.OneOf(p.Child("protocol"), port.Protocol, protocols...),
				appProtocol(p.Child("appProtocol"), port.AppProtocol),
			)
		}),
	)
}

func endpointAddress(path *field.Path, a *corev1.EndpointAddress) field.ErrorList {
	var node field.ErrorList
	if a.NodeName != nil {
		node = messages(path.Child("nodeName"), *a.NodeName, validation.SubdomainName(*a.NodeName, false))
	}
	var host field.ErrorList
	if a.Hostname != "" {
		host = validation.DNSLabel(path.Child("hostname"), a.Hostname)
	}
	return validation.Join(
		utilvalidation.IsValidIPForLegacyField(path.Child("ip"), a.IP, true, nil),
		host,
		node,
		validation.EndpointIP(path.Child("ip"), a.IP),
	)
}

// portName: a DNS label, required where a port is one of several (clients pick it by name).
func portName(path *field.Path, name string, required bool) field.ErrorList {
	if name == "" {
		return validation.When(required, field.Required(path, ""))
	}
	return validation.DNSLabel(path, name)
}

// appProtocol: the application protocol, such as http or example.com/custom.
func appProtocol(path *field.Path, value *string) field.ErrorList {
	if value == nil {
		return nil
	}
	return validation.QualifiedName(path, *value)
}

// messages turns the messages of a k8s.io/apimachinery check into Invalid errors at path.
func messages(path *field.Path, value string, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(path, value, m))
	}
	return errs
}
