// Package policy is the policy API group of the Core server, following kubernetes
// pkg/registry/policy.
package policy

import (
	policyv1 "k8s.io/api/policy/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the policy group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: policyv1.SchemeGroupVersion, AddTypes: policyv1.AddToScheme, Definitions: definitions}
}
