package core

import (
	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_Volume: a volume that names no source is an emptyDir; an image volume is pulled
// like a container's image (ImageVolume, GA in v1.37).
func SetDefaults_Volume(v *corev1.Volume) {
	if ptr.AllPtrFieldsNil(&v.VolumeSource) {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if v.Image != nil {
		fill.Zero(&v.Image.PullPolicy, pullPolicyFor(v.Image.Reference))
	}
}

// pullPolicyFor is Always for an image tagged latest and IfNotPresent for any other, including
// one that does not parse (validation rejects it later).
func pullPolicyFor(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// imageTag is the tag of an image reference as a container runtime reads it: latest when the
// reference has neither tag nor digest, none when it has only a digest, and none when it does
// not parse.
func imageTag(image string) string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return ""
	}
	if tagged, ok := named.(reference.Tagged); ok {
		return tagged.Tag()
	}
	if _, ok := named.(reference.Digested); ok {
		return ""
	}
	return "latest"
}

// The files of secret, configMap, downwardAPI and projected volumes are readable by all and
// writable by the owner (0644) unless the volume says otherwise.

func SetDefaults_SecretVolumeSource(s *corev1.SecretVolumeSource) {
	fill.Nil(&s.DefaultMode, corev1.SecretVolumeSourceDefaultMode)
}

func SetDefaults_ConfigMapVolumeSource(s *corev1.ConfigMapVolumeSource) {
	fill.Nil(&s.DefaultMode, corev1.ConfigMapVolumeSourceDefaultMode)
}

func SetDefaults_DownwardAPIVolumeSource(s *corev1.DownwardAPIVolumeSource) {
	fill.Nil(&s.DefaultMode, corev1.DownwardAPIVolumeSourceDefaultMode)
}

func SetDefaults_ProjectedVolumeSource(s *corev1.ProjectedVolumeSource) {
	fill.Nil(&s.DefaultMode, corev1.ProjectedVolumeSourceDefaultMode)
}

// SetDefaults_ServiceAccountTokenProjection: a projected token lives for an hour.
func SetDefaults_ServiceAccountTokenProjection(t *corev1.ServiceAccountTokenProjection) {
	fill.Nil(&t.ExpirationSeconds, int64(3600))
}

// SetDefaults_HostPathVolumeSource: a hostPath of no type is checked for nothing before mounting.
func SetDefaults_HostPathVolumeSource(h *corev1.HostPathVolumeSource) {
	fill.Nil(&h.Type, corev1.HostPathUnset)
}

// SetDefaults_ObjectFieldSelector: a fieldRef reads a field of the v1 Pod.
func SetDefaults_ObjectFieldSelector(s *corev1.ObjectFieldSelector) {
	fill.Zero(&s.APIVersion, "v1")
}

// SetDefaults_PersistentVolumeClaimSpec: a claim (or a claim template) asks for a filesystem.
func SetDefaults_PersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	fill.Nil(&spec.VolumeMode, corev1.PersistentVolumeFilesystem)
}

// SetDefaults_PersistentVolumeClaim: a new claim is Pending until it is bound.
func SetDefaults_PersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	fill.Zero(&pvc.Status.Phase, corev1.ClaimPending)
}

// SetDefaults_PersistentVolume: a new volume is Pending, is kept when its claim goes (Retain),
// and holds a filesystem.
func SetDefaults_PersistentVolume(pv *corev1.PersistentVolume) {
	fill.Zero(&pv.Status.Phase, corev1.VolumePending)
	fill.Zero(&pv.Spec.PersistentVolumeReclaimPolicy, corev1.PersistentVolumeReclaimRetain)
	fill.Nil(&pv.Spec.VolumeMode, corev1.PersistentVolumeFilesystem)
}
