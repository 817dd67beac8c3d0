// Package storagemigration is the storagemigration.k8s.io API group of the Core server,
// following kubernetes pkg/registry/storagemigration: StorageVersionMigrations, with /status.
//
// kube-apiserver serves the API; the migrating is kube-controller-manager's
// storage-version-migrator-controller, which the chain does not run: a migration stays as it was
// created until something writes its status.
package storagemigration

import (
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/storagemigration"
)

// storageVersionMigrations follow pkg/registry/storagemigration/storagemigration: a status that
// starts empty, a spec that never changes, updates that name the resourceVersion they replace.
var storageVersionMigrations = &resource.Definition{
	Resource: "storageversionmigrations", Singular: "storageversionmigration",
	New:                    func() runtime.Object { return &storagemigrationv1.StorageVersionMigration{} },
	NewList:                func() runtime.Object { return &storagemigrationv1.StorageVersionMigrationList{} },
	Table:                  printers.StorageVersionMigration,
	Status:                 true,
	ConditionalUpdatesOnly: true,
	Validate:               resource.Check(validation.ValidateStorageVersionMigration),
	ValidateUpdate:         resource.CheckUpdate(validation.ValidateStorageVersionMigrationUpdate),
	ValidateStatusUpdate:   resource.CheckUpdate(validation.ValidateStorageVersionMigrationStatusUpdate),
}

// Group is the storagemigration.k8s.io group: its types and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: storagemigrationv1.SchemeGroupVersion, AddTypes: storagemigrationv1.AddToScheme,
		Definitions: []*resource.Definition{storageVersionMigrations}}
}
