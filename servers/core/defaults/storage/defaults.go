package storage

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_StorageClass: a volume provisioned for a claim is deleted with it, and is
// provisioned as soon as the claim exists.
func SetDefaults_StorageClass(sc *storagev1.StorageClass) {
	fill.Nil(&sc.ReclaimPolicy, corev1.PersistentVolumeReclaimDelete)
	fill.Nil(&sc.VolumeBindingMode, storagev1.VolumeBindingImmediate)
}
