// Package scheduling is the scheduling.k8s.io API group of the Core server, following kubernetes
// pkg/registry/scheduling.
package scheduling

import (
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the scheduling.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: schedulingv1.SchemeGroupVersion, AddTypes: schedulingv1.AddToScheme, Definitions: definitions}
}
