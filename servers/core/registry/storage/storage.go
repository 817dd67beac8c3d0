// Package storage is the storage.k8s.io API group of the Core server, following kubernetes
// pkg/registry/storage: StorageClasses.
package storage

import (
	storagev1 "k8s.io/api/storage/v1"
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

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{storageClasses}

// Group is the storage.k8s.io group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: storagev1.SchemeGroupVersion, AddTypes: storagev1.AddToScheme, Definitions: definitions}
}
