// Package networking is the networking.k8s.io API group of the Core server, following kubernetes
// pkg/registry/networking.
package networking

import (
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the networking.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: networkingv1.SchemeGroupVersion, AddTypes: networkingv1.AddToScheme, Definitions: definitions}
}
