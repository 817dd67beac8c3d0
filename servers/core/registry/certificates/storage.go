// Package certificates is the certificates.k8s.io API group of the Core server, following kubernetes
// pkg/registry/certificates.
package certificates

import (
	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the certificates.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: certificatesv1.SchemeGroupVersion, AddTypes: certificatesv1.AddToScheme, Definitions: definitions}
}
