package printers

import (
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Dynamic resource allocation (resource.k8s.io) and storage version migrations.

var DeviceClass = define("deviceclasses.resource.k8s.io", func(c *resourcev1.DeviceClass) []any {
	return []any{c.Name, age(c.CreationTimestamp)}
})

var ResourceClaimTemplate = define("resourceclaimtemplates.resource.k8s.io", func(t *resourcev1.ResourceClaimTemplate) []any {
	return []any{t.Name, age(t.CreationTimestamp)}
})

var ResourceClaim = define("resourceclaims.resource.k8s.io", func(c *resourcev1.ResourceClaim) []any {
	return []any{c.Name, claimState(c), age(c.CreationTimestamp)}
})

// claimState lists what applies of deleted, pending (not allocated, not being
// deleted), allocated and reserved (allocated and in use): "allocated,reserved".
func claimState(c *resourcev1.ResourceClaim) string {
	deleted, allocated := c.DeletionTimestamp != nil, c.Status.Allocation != nil
	var states []string
	for _, s := range []struct {
		name    string
		applies bool
	}{
		{"deleted", deleted},
		{"pending", !allocated && !deleted},
		{"allocated", allocated},
		{"reserved", allocated && len(c.Status.ReservedFor) > 0},
	} {
		if s.applies {
			states = append(states, s.name)
		}
	}
	return strings.Join(states, ",")
}

// ResourceSlice shows the node only for a slice of one node's devices.
var ResourceSlice = define("resourceslices.resource.k8s.io", func(s *resourcev1.ResourceSlice) []any {
	return []any{s.Name, ptr.Deref(s.Spec.NodeName, ""), s.Spec.Driver, s.Spec.Pool.Name, age(s.CreationTimestamp)}
})

// DeviceTaintRule shows the taint rather than the selector, which may be long.
var DeviceTaintRule = define("devicetaintrules.resource.k8s.io", func(r *resourcev1.DeviceTaintRule) []any {
	taint := r.Spec.Taint
	added := ""
	if taint.TimeAdded != nil {
		added = age(*taint.TimeAdded)
	}
	return []any{r.Name, taint.Key, taint.Value, taint.Effect, added, age(r.CreationTimestamp)}
})

// StorageVersionMigration shows the resource ("secrets", "deployments.apps")
// and the migration's last true condition among Running, Succeeded and Failed.
var StorageVersionMigration = define("storageversionmigrations.storagemigration.k8s.io", func(m *storagemigrationv1.StorageVersionMigration) []any {
	status := "Unknown"
	for _, c := range m.Status.Conditions {
		switch storagemigrationv1.MigrationConditionType(c.Type) {
		case storagemigrationv1.MigrationRunning, storagemigrationv1.MigrationSucceeded, storagemigrationv1.MigrationFailed:
			if c.Status == metav1.ConditionTrue {
				status = c.Type
			}
		}
	}
	return []any{m.Name, m.Spec.Resource.String(), status}
})
