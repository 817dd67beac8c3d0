// Package controller keeps the two helpers the garbage collector and the clusterrole
// aggregation controller still call while they are being rewritten (issue 17, the other half).
// Delete this package once nothing imports it.
package controller

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// KeyFunc is the queue key of an object, tombstones included.
var KeyFunc = cache.DeletionHandlingMetaNamespaceKeyFunc

// GenerateDeleteOwnerRefStrategicMergeBytes is a strategic merge patch that drops the owner
// references with ownerUIDs (and the finalizers named) from the object with uid dependentUID;
// the uid makes the patch fail on another object of the same name.
func GenerateDeleteOwnerRefStrategicMergeBytes(dependentUID types.UID, ownerUIDs []types.UID, finalizers ...string) ([]byte, error) {
	refs := make([]map[string]any, 0, len(ownerUIDs))
	for _, uid := range ownerUIDs {
		refs = append(refs, map[string]any{"$patch": "delete", "uid": uid})
	}
	meta := map[string]any{"uid": dependentUID, "ownerReferences": refs}
	if len(finalizers) > 0 {
		meta["$deleteFromPrimitiveList/finalizers"] = finalizers
	}
	return json.Marshal(map[string]any{"metadata": meta})
}
