// Package apps is the apps API group of the Core server, following kubernetes
// pkg/registry/apps.
package apps

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the apps group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: appsv1.SchemeGroupVersion, AddTypes: appsv1.AddToScheme, Definitions: definitions}
}
