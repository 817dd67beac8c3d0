// Package batch is the batch API group of the Core server, following kubernetes
// pkg/registry/batch.
package batch

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the batch group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: batchv1.SchemeGroupVersion, AddTypes: batchv1.AddToScheme, Definitions: definitions}
}
