// Package events is the events.k8s.io API group of the Core server, following kubernetes
// pkg/registry/events.
package events

import (
	eventsv1 "k8s.io/api/events/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the events.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: eventsv1.SchemeGroupVersion, AddTypes: eventsv1.AddToScheme, Definitions: definitions}
}
