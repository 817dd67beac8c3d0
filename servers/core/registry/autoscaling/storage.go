// Package autoscaling is the autoscaling API group of the Core server, following kubernetes
// pkg/registry/autoscaling.
package autoscaling

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the autoscaling group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: autoscalingv2.SchemeGroupVersion, AddTypes: autoscalingv2.AddToScheme, Definitions: definitions}
}
