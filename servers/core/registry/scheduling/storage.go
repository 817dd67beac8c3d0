// Package scheduling is the scheduling.k8s.io API group of the Core server, following kubernetes
// pkg/registry/scheduling: PriorityClasses, and the post-start hook that creates the system
// priority classes (pkg/registry/scheduling/rest/storage_scheduling.go).
package scheduling

import (
	"context"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/scheduling"
)

// priorityClasses follows pkg/registry/scheduling/priorityclass: generation is 1 from the start
// and never moves (the strategy has no spec to count). The globalDefault uniqueness check is
// the Priority admission plugin's (servers/chain/admission).
var priorityClasses = &resource.Definition{
	Resource: "priorityclasses", Singular: "priorityclass",
	New:        func() runtime.Object { return &schedulingv1.PriorityClass{} },
	NewList:    func() runtime.Object { return &schedulingv1.PriorityClassList{} },
	ShortNames: []string{"pc"},
	Table:      printers.PriorityClass,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		obj.(*schedulingv1.PriorityClass).Generation = 1
	},
	Validate:       resource.Check(validation.ValidatePriorityClass),
	ValidateUpdate: resource.CheckUpdate(validation.ValidatePriorityClassUpdate),
}

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{priorityClasses}

// Group is the scheduling.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: schedulingv1.SchemeGroupVersion, AddTypes: schedulingv1.AddToScheme, Definitions: definitions}
}
