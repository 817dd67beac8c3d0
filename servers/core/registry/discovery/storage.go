// Package discovery is the discovery.k8s.io API group of the Core server: EndpointSlices,
// following kubernetes pkg/registry/discovery.
package discovery

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	slicevalidation "github.com/apichain/apichain/servers/core/validation/discovery"
)

var endpointSlices = &resource.Definition{
	Resource: "endpointslices", Singular: "endpointslice", Namespaced: true,
	New:            func() runtime.Object { return &discoveryv1.EndpointSlice{} },
	NewList:        func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
	Table:          printers.EndpointSlice,
	Generation:     true,
	Validate:       resource.Check(slicevalidation.ValidateEndpointSlice),
	ValidateUpdate: resource.CheckUpdate(slicevalidation.ValidateEndpointSliceUpdate),
}

// Group is the discovery.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: discoveryv1.SchemeGroupVersion, AddTypes: discoveryv1.AddToScheme, Definitions: []*resource.Definition{endpointSlices}}
}
