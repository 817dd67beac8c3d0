// Port of kubernetes pkg/util/hash/hash.go (v1.37.2).

package controller

import (
	"fmt"
	"hash"

	"k8s.io/utils/dump"
)

// podDeletionCost is kube's feature gate PodDeletionCost (beta, on by default): the
// controller.kubernetes.io/pod-deletion-cost annotation orders pods for scale-down.
const podDeletionCost = true

// DeepHashObject writes specified object to hash using the spew library
// which follows pointers and prints actual values of the nested objects
// ensuring the hash does not change when a pointer changes.
func DeepHashObject(hasher hash.Hash, objectToWrite interface{}) {
	hasher.Reset()
	fmt.Fprintf(hasher, "%v", dump.ForHash(objectToWrite))
}
