// Package flowcontrol is the flowcontrol.apiserver.k8s.io API group of the Core server,
// following kubernetes pkg/registry/flowcontrol: FlowSchemas and PriorityLevelConfigurations,
// each with /status, the configuration of API Priority and Fairness.
//
// This package serves the objects only. What kube-apiserver does with them besides (the APF
// filter at the head of the handler chain, the post-start hook that keeps the bootstrap
// FlowSchemas and PriorityLevelConfigurations, and the configuration controller that writes
// their status, a FlowSchema's Dangling condition) is not part of it: until the chain runs
// them, the group starts empty, nothing writes status, and requests are not classified by it.
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
