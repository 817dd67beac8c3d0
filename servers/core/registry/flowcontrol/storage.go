// Package flowcontrol is the flowcontrol.apiserver.k8s.io API group of the Core server,
// following kubernetes pkg/registry/flowcontrol: FlowSchemas and PriorityLevelConfigurations,
// each with /status, the configuration of API Priority and Fairness, and the post-start hook
// priority-and-fairness-config-producer that keeps kube-apiserver's bootstrap configuration in
// storage (bootstrap.go).
//
// What reads these objects is not here but at the head of the chain (servers/chain,
// flowcontrol.go): k8s.io/apiserver's APF filter classifies every request by the FlowSchemas
// into a priority level, and its configuration controller writes each FlowSchema's status (the
// Dangling condition). Core serves the objects and keeps the bootstrap ones; the head uses them.
package flowcontrol

import (
	"context"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/flowcontrol"
)

// flowSchemas follows pkg/registry/flowcontrol/flowschema: a generation that counts spec
// changes, and a status that only /status writes.
var flowSchemas = &resource.Definition{
	Resource: "flowschemas", Singular: "flowschema",
	New:                    func() runtime.Object { return &flowcontrolv1.FlowSchema{} },
	NewList:                func() runtime.Object { return &flowcontrolv1.FlowSchemaList{} },
	Table:                  printers.FlowSchema,
	Status:                 true,
	Generation:             true,
	PrepareForStatusUpdate: statusOnly,
	Validate:               resource.Check(validation.ValidateFlowSchema),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateFlowSchemaUpdate),
	ValidateStatusUpdate:   resource.CheckUpdate(validation.ValidateFlowSchemaStatusUpdate),
}

// priorityLevels follows pkg/registry/flowcontrol/prioritylevelconfiguration, as flowSchemas.
var priorityLevels = &resource.Definition{
	Resource: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration",
	New:                    func() runtime.Object { return &flowcontrolv1.PriorityLevelConfiguration{} },
	NewList:                func() runtime.Object { return &flowcontrolv1.PriorityLevelConfigurationList{} },
	Table:                  printers.PriorityLevelConfiguration,
	Status:                 true,
	Generation:             true,
	PrepareForStatusUpdate: statusOnly,
	Validate:               resource.Check(validation.ValidatePriorityLevelConfiguration),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidatePriorityLevelConfigurationUpdate),
	ValidateStatusUpdate:   resource.CheckUpdate(validation.ValidatePriorityLevelConfigurationStatusUpdate),
}

// statusOnly is the flowcontrol status strategies' update: the whole of the stored object but
// its status, metadata included, except the managedFields that record the status writer.
func statusOnly(_ context.Context, obj, old runtime.Object) {
	switch o := obj.(type) {
	case *flowcontrolv1.FlowSchema:
		kept := old.(*flowcontrolv1.FlowSchema).DeepCopy()
		kept.Status, kept.ManagedFields = o.Status, o.ManagedFields
		*o = *kept
	case *flowcontrolv1.PriorityLevelConfiguration:
		kept := old.(*flowcontrolv1.PriorityLevelConfiguration).DeepCopy()
		kept.Status, kept.ManagedFields = o.Status, o.ManagedFields
		*o = *kept
	}
}

// Group is the flowcontrol.apiserver.k8s.io group: its types and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: flowcontrolv1.SchemeGroupVersion, AddTypes: flowcontrolv1.AddToScheme,
		Definitions: []*resource.Definition{flowSchemas, priorityLevels}}
}
