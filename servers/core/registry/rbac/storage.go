// Package rbac is the rbac.authorization.k8s.io API group of the Core server, following kubernetes
// pkg/registry/rbac.
package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{}

// Group is the rbac.authorization.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: rbacv1.SchemeGroupVersion, AddTypes: rbacv1.AddToScheme, Definitions: definitions}
}
