// Package admissionregistration is the admissionregistration.k8s.io API group of the Core server, following kubernetes
// pkg/registry/admissionregistration.
package admissionregistration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the admissionregistration.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: admissionregistrationv1.SchemeGroupVersion, AddTypes: admissionregistrationv1.AddToScheme, Definitions: definitions}
}
