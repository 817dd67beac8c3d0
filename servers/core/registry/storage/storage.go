// Package storage is the storage.k8s.io API group of the Core server, following kubernetes
// pkg/registry/storage: StorageClasses, VolumeAttributesClasses, CSIDrivers, CSINodes (with
// /status), CSIStorageCapacities and VolumeAttachments (with /status).
//
// Nothing in the chain acts on the CSI kinds: they are there for CSI drivers, their sidecars
// and the tests of controllers that read them, as kube-apiserver stores them. A new
// VolumeAttributesClass gets the kubernetes.io/vac-protection finalizer from the
// StorageObjectInUseProtection admission plugin (servers/chain/admission); the chain has no
// controller that takes it off again, so a deleted class stays until someone does.
package storage

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/storage"
)

// storageClasses follows pkg/registry/storage/storageclass (strategy.go): no generation, no
// status; the update checks include the create checks.
var storageClasses = &resource.Definition{
	Resource: "storageclasses", Singular: "storageclass",
	New:            func() runtime.Object { return &storagev1.StorageClass{} },
	NewList:        func() runtime.Object { return &storagev1.StorageClassList{} },
	ShortNames:     []string{"sc"},
	Table:          printers.StorageClass,
	Validate:       resource.Check(validation.ValidateStorageClass),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateStorageClassUpdate),
}

// volumeAttributesClasses follows pkg/registry/storage/volumeattributesclass.
var volumeAttributesClasses = &resource.Definition{
	Resource: "volumeattributesclasses", Singular: "volumeattributesclass",
	New:            func() runtime.Object { return &storagev1.VolumeAttributesClass{} },
	NewList:        func() runtime.Object { return &storagev1.VolumeAttributesClassList{} },
	ShortNames:     []string{"vac"},
	Table:          printers.VolumeAttributesClass,
	Validate:       resource.Check(validation.ValidateVolumeAttributesClass),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateVolumeAttributesClassUpdate),
}

// csiDrivers follows pkg/registry/storage/csidriver: a generation that counts spec changes, and
// updates must name the resourceVersion they replace.
var csiDrivers = &resource.Definition{
	Resource: "csidrivers", Singular: "csidriver",
	New:                    func() runtime.Object { return &storagev1.CSIDriver{} },
	NewList:                func() runtime.Object { return &storagev1.CSIDriverList{} },
	Table:                  printers.CSIDriver,
	Generation:             true,
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidateCSIDriver),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateCSIDriverUpdate),
}

// csiNodes follows pkg/registry/storage/csinode. Its status (storage health) belongs to the
// CSIVolumeHealth feature, off in v1.37: /status is served, but what it would write is dropped,
// unless the stored node has some already.
var csiNodes = &resource.Definition{
	Resource: "csinodes", Singular: "csinode",
	New:                    func() runtime.Object { return &storagev1.CSINode{} },
	NewList:                func() runtime.Object { return &storagev1.CSINodeList{} },
	Table:                  printers.CSINode,
	Status:                 true,
	ConditionalUpdatesOnly: true,
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		n, was := obj.(*storagev1.CSINode), old.(*storagev1.CSINode)
		n.Spec = was.Spec
		metav1.ResetObjectMetaForStatus(n, was)
		if len(was.Status.StorageHealth) == 0 {
			n.Status.StorageHealth = nil
		}
	},
	Validate:             resource.Check(validation.ValidateCSINode),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateCSINodeUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateCSINodeStatusUpdate),
}

// csiStorageCapacities follows pkg/registry/storage/csistoragecapacity.
var csiStorageCapacities = &resource.Definition{
	Resource: "csistoragecapacities", Singular: "csistoragecapacity", Namespaced: true,
	New:                    func() runtime.Object { return &storagev1.CSIStorageCapacity{} },
	NewList:                func() runtime.Object { return &storagev1.CSIStorageCapacityList{} },
	Table:                  printers.CSIStorageCapacity,
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidateCSIStorageCapacity),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateCSIStorageCapacityUpdate),
}

// volumeAttachments follows pkg/registry/storage/volumeattachment: the attacher reports through
// /status; the spec never changes, so there is no generation to count.
var volumeAttachments = &resource.Definition{
	Resource: "volumeattachments", Singular: "volumeattachment",
	New:                    func() runtime.Object { return &storagev1.VolumeAttachment{} },
	NewList:                func() runtime.Object { return &storagev1.VolumeAttachmentList{} },
	Table:                  printers.VolumeAttachment,
	Status:                 true,
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidateVolumeAttachment),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateVolumeAttachmentUpdate),
	ValidateStatusUpdate:   resource.CheckUpdate(validation.ValidateVolumeAttachmentUpdate),
}

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{storageClasses, volumeAttributesClasses, csiDrivers, csiNodes, csiStorageCapacities, volumeAttachments}

// Group is the storage.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: storagev1.SchemeGroupVersion, AddTypes: storagev1.AddToScheme, Definitions: definitions}
}
