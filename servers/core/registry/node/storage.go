// Package node is the node.k8s.io API group of the Core server, following kubernetes
// pkg/registry/node: RuntimeClasses, the container runtime configurations pods can ask for.
//
// The chain's simulated kubelets run every pod the same way, whatever its runtimeClassName;
// the objects are there for the tests of controllers and admission that read them.
package node

import (
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/node"
)

// runtimeClasses follows pkg/registry/node/runtimeclass: a PUT may create one, and an update
// must name the resourceVersion it replaces.
var runtimeClasses = &resource.Definition{
	Resource: "runtimeclasses", Singular: "runtimeclass",
	New:                    func() runtime.Object { return &nodev1.RuntimeClass{} },
	NewList:                func() runtime.Object { return &nodev1.RuntimeClassList{} },
	Table:                  printers.RuntimeClass,
	AllowCreateOnUpdate:    true,
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidateRuntimeClass),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateRuntimeClassUpdate),
}

// Group is the node.k8s.io group: its types and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: nodev1.SchemeGroupVersion, AddTypes: nodev1.AddToScheme, Definitions: []*resource.Definition{runtimeClasses}}
}
