// Package networking is the networking.k8s.io API group of the Core server, following kubernetes
// pkg/registry/networking: Ingresses (with /status), IngressClasses and NetworkPolicies.
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

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{ingresses, ingressClasses, networkPolicies}

// Group is the networking.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: networkingv1.SchemeGroupVersion, AddTypes: networkingv1.AddToScheme, Definitions: definitions}
}
