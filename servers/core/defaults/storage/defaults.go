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

// SetDefaults_CSIDriver: a driver is attached before it mounts, is told nothing about the pod,
// reports no capacity, is not asked to republish, and lets the kubelet change a volume's group
// ownership only for a read-write-once volume with a file system type; its volumes are
// persistent ones. seLinuxMount and preventPodSchedulingIfMissing are defaulted because their
// gates (SELinuxMountReadWriteOncePod, VolumeLimitScaling) are on in v1.37.
func SetDefaults_CSIDriver(d *storagev1.CSIDriver) {
	spec := &d.Spec
	fill.Nil(&spec.AttachRequired, true)
	fill.Nil(&spec.PodInfoOnMount, false)
	fill.Nil(&spec.StorageCapacity, false)
	fill.Nil(&spec.FSGroupPolicy, storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	if len(spec.VolumeLifecycleModes) == 0 {
		spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	fill.Nil(&spec.RequiresRepublish, false)
	fill.Nil(&spec.SELinuxMount, false)
	fill.Nil(&spec.PreventPodSchedulingIfMissing, false)
}
