// Package networking is the networking.k8s.io API group of the Core server, following kubernetes
// pkg/registry/networking: Ingresses (with /status), IngressClasses, NetworkPolicies,
// ServiceCIDRs (with /status) and IPAddresses.
//
// ServiceCIDRs and IPAddresses are how kube-apiserver v1.37 keeps its ClusterIP ranges and the
// addresses it hands out. Core keeps the default range, `kubernetes`, made from
// --service-cluster-ip-range (servers/core/servicecidr.go); servers/core/allocator says what
// the chain's ClusterIP allocation does with these objects.
package networking

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/networking"
)

// ingresses follows pkg/registry/networking/ingress (strategy.go; kube-apiserver keeps them
// under the historical etcd key "ingress", see servers/core/config.go).
var ingresses = &resource.Definition{
	Resource: "ingresses", Singular: "ingress", Namespaced: true,
	New:            func() runtime.Object { return &networkingv1.Ingress{} },
	NewList:        func() runtime.Object { return &networkingv1.IngressList{} },
	ShortNames:     []string{"ing"},
	Table:          printers.Ingress,
	Status:         true,
	Generation:     true,
	Validate:       resource.Check(validation.ValidateIngressCreate),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateIngressUpdate),
	// The ingress status strategy takes only the spec from the stored object.
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*networkingv1.Ingress).Spec = old.(*networkingv1.Ingress).Spec
	},
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateIngressStatusUpdate),
}

// ingressClasses follows pkg/registry/networking/ingressclass.
var ingressClasses = &resource.Definition{
	Resource: "ingressclasses", Singular: "ingressclass",
	New:            func() runtime.Object { return &networkingv1.IngressClass{} },
	NewList:        func() runtime.Object { return &networkingv1.IngressClassList{} },
	Table:          printers.IngressClass,
	Generation:     true,
	Validate:       resource.Check(validation.ValidateIngressClass),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateIngressClassUpdate),
}

// networkPolicies follows pkg/registry/networking/networkpolicy.
var networkPolicies = &resource.Definition{
	Resource: "networkpolicies", Singular: "networkpolicy", Namespaced: true,
	New:            func() runtime.Object { return &networkingv1.NetworkPolicy{} },
	NewList:        func() runtime.Object { return &networkingv1.NetworkPolicyList{} },
	ShortNames:     []string{"netpol"},
	Table:          printers.NetworkPolicy,
	Generation:     true,
	Validate:       resource.Check(validation.ValidateNetworkPolicy),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateNetworkPolicyUpdate),
}

// serviceCIDRs follows pkg/registry/networking/servicecidr, whose strategy resets status
// neither on create nor on update: the main resource writes it as /status does.
var serviceCIDRs = &resource.Definition{
	Resource: "servicecidrs", Singular: "servicecidr",
	New:                  func() runtime.Object { return &networkingv1.ServiceCIDR{} },
	NewList:              func() runtime.Object { return &networkingv1.ServiceCIDRList{} },
	Table:                printers.ServiceCIDR,
	Status:               true,
	MainWritesStatus:     true,
	Validate:             resource.Check(validation.ValidateServiceCIDR),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateServiceCIDRUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateServiceCIDRStatusUpdate),
}

// ipAddresses follows pkg/registry/networking/ipaddress. An address is its own name: a
// generateName is taken as the name, without a random suffix.
var ipAddresses = &resource.Definition{
	Resource: "ipaddresses", Singular: "ipaddress",
	New:            func() runtime.Object { return &networkingv1.IPAddress{} },
	NewList:        func() runtime.Object { return &networkingv1.IPAddressList{} },
	ShortNames:     []string{"ip"},
	Table:          printers.IPAddress,
	NameGenerator:  asIs{},
	Validate:       resource.Check(validation.ValidateIPAddress),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateIPAddressUpdate),
}

// asIs makes the name a generateName asks for be that generateName.
type asIs struct{}

func (asIs) GenerateName(base string) string { return base }

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{ingresses, ingressClasses, networkPolicies, serviceCIDRs, ipAddresses}

// Group is the networking.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: networkingv1.SchemeGroupVersion, AddTypes: networkingv1.AddToScheme, Definitions: definitions}
}
