// Package coordination is the coordination.k8s.io API group of the Core server: Leases, used for
// node heartbeats and leader election, following kubernetes pkg/registry/coordination.
package coordination

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	leasevalidation "github.com/apichain/apichain/servers/core/validation/coordination"
)

var leases = &resource.Definition{
	Resource: "leases", Singular: "lease", Namespaced: true,
	New:                 func() runtime.Object { return &coordinationv1.Lease{} },
	NewList:             func() runtime.Object { return &coordinationv1.LeaseList{} },
	Table:               printers.Lease,
	AllowCreateOnUpdate: true,
	Validate:            resource.Check(leasevalidation.ValidateLease),
	ValidateUpdate:      resource.CheckUpdate(leasevalidation.ValidateLeaseUpdate),
}

// Group is the coordination.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: coordinationv1.SchemeGroupVersion, AddTypes: coordinationv1.AddToScheme, Definitions: []*resource.Definition{leases}}
}
