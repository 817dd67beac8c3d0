package core

// The workload resources of the core group: podtemplates and replicationcontrollers (with
// status and scale), following kubernetes pkg/registry/core/podtemplate and
// pkg/registry/core/replicationcontroller (strategy.go, storage/storage.go).

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
	podvalidation "github.com/apichain/apichain/servers/core/validation/pods"
)

// podTemplates: the generation counts changes of the template.
var podTemplates = &resource.Definition{
	Resource: "podtemplates", Singular: "podtemplate", Namespaced: true,
	New:            func() runtime.Object { return &corev1.PodTemplate{} },
	NewList:        func() runtime.Object { return &corev1.PodTemplateList{} },
	Table:          printers.PodTemplate,
	Generation:     true,
	Validate:       resource.Check(podvalidation.ValidatePodTemplate),
	ValidateUpdate: resource.CheckUpdate(podvalidation.ValidatePodTemplateUpdate),
}

var replicationControllers = &resource.Definition{
	Resource: "replicationcontrollers", Singular: "replicationcontroller", Namespaced: true,
	New:            func() runtime.Object { return &corev1.ReplicationController{} },
	NewList:        func() runtime.Object { return &corev1.ReplicationControllerList{} },
	ShortNames:     []string{"rc"},
	Categories:     []string{"all"},
	Table:          printers.ReplicationController,
	Status:         true,
	Generation:     true,
	FieldSelectors: []string{"status.replicas"},
	Fields: resource.FieldsOf(func(rc *corev1.ReplicationController) fields.Set {
		return fields.Set{"status.replicas": strconv.Itoa(int(rc.Status.Replicas))}
	}),
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*corev1.ReplicationController).Spec = old.(*corev1.ReplicationController).Spec
	},
	Scale: &resource.Scale{
		Replicas: func(obj runtime.Object) (int32, int32, string, error) {
			rc := obj.(*corev1.ReplicationController)
			return ptr.Deref(rc.Spec.Replicas, 0), rc.Status.Replicas, labels.SelectorFromSet(rc.Spec.Selector).String(), nil
		},
		SetReplicas: func(obj runtime.Object, n int32) { obj.(*corev1.ReplicationController).Spec.Replicas = &n },
	},
	// v1 keeps orphaning the pods of a deleted controller, for backwards compatibility.
	GarbageCollectionPolicy: rest.OrphanDependents,
	Validate:                resource.Check(corevalidation.ValidateReplicationController),
	ValidateUpdate:          resource.CheckUpdate(corevalidation.ValidateReplicationControllerUpdate),
	ValidateStatusUpdate:    resource.CheckUpdate(corevalidation.ValidateReplicationControllerStatusUpdate),
}
