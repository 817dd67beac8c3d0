// Package autoscaling is the autoscaling API group of the Core server, following kubernetes
// pkg/registry/autoscaling: horizontalpodautoscalers (with status) in autoscaling/v2.
//
// kube-apiserver also serves autoscaling/v1 HorizontalPodAutoscalers, converted to and from its
// internal autoscaling types. The chain has no internal types (the v2 type is kept in memory),
// so it serves autoscaling/v2 only, the preferred version. autoscaling/v1 is nonetheless in the
// scheme for its Scale, the type of every scale subresource (deployments/scale, ...).
package autoscaling

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/autoscaling"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{horizontalPodAutoscalers}

// Group is the autoscaling group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: autoscalingv2.SchemeGroupVersion, AddTypes: addTypes, Definitions: definitions}
}

// addTypes registers autoscaling/v2 and the autoscaling/v1 Scale.
//
// Only the Scale of autoscaling/v1 is registered, and as its own internal version too (a scale
// subresource decodes requests into the internal version of the Scale's group): the v1
// HorizontalPodAutoscaler would collide with the v2 one as autoscaling's internal
// HorizontalPodAutoscaler. v2 stays the group's preferred (and storage) version: it is the
// version resource.AddToScheme gives priority to.
func addTypes(scheme *runtime.Scheme) error {
	if err := autoscalingv2.AddToScheme(scheme); err != nil {
		return err
	}
	v1 := autoscalingv1.SchemeGroupVersion
	scheme.AddKnownTypes(v1, &autoscalingv1.Scale{})
	metav1.AddToGroupVersion(scheme, v1)
	scheme.AddKnownTypeWithName(schema.GroupVersion{Group: v1.Group, Version: runtime.APIVersionInternal}.WithKind("Scale"), &autoscalingv1.Scale{})
	return nil
}

// horizontalPodAutoscalers follows pkg/registry/autoscaling/horizontalpodautoscaler. HPAGeneration
// is beta (on) in v1.37: metadata.generation counts spec changes.
var horizontalPodAutoscalers = &resource.Definition{
	Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Namespaced: true,
	New:        func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
	NewList:    func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
	ShortNames: []string{"hpa"},
	Categories: []string{"all"},
	Table:      printers.HorizontalPodAutoscaler,
	Status:     true,
	Generation: true,
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec = old.(*autoscalingv2.HorizontalPodAutoscaler).Spec
	},
	Validate:             resource.Check(validation.ValidateHorizontalPodAutoscaler),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateHorizontalPodAutoscalerUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateHorizontalPodAutoscalerStatusUpdate),
}
