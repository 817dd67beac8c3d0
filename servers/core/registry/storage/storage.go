// Package storage is the storage.k8s.io API group of the Core server, following kubernetes
// pkg/registry/storage.
package storage

import (
	storagev1 "k8s.io/api/storage/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the storage.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: storagev1.SchemeGroupVersion, AddTypes: storagev1.AddToScheme, Definitions: definitions}
}
