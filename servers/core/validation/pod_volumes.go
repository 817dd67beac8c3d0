package validation

// Pod volume, volumeMount and volumeDevice validation, ported from kubernetes
// v1.37.2 pkg/apis/core/validation/validation.go (ValidateVolumes,
// validateVolumeSource, ValidateVolumeMounts, ValidateVolumeDevices and path
// helpers). The per-source validators are in pod_volume_sources.go. Upstream's
// path quirks are kept on purpose (e.g. "downwarAPI", "persistentDisk",
// "cephfs").

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateVolumes(volumes []v1.Volume, podMeta *metav1.ObjectMeta, fldPath *field.Path, opts podValidationOptions) (map[string]v1.VolumeSource, field.ErrorList) {
	allErrs := field.ErrorList{}

	allNames := sets.Set[string]{}
	allCreatedPVCs := sets.Set[string]{}
	// Determine which PVCs will be created for this pod. We need
	// the exact name of the pod for this. Without it, this sanity
	// check has to be skipped.
	if podMeta != nil && podMeta.Name != "" {
		for _, vol := range volumes {
			if vol.VolumeSource.Ephemeral != nil {
				allCreatedPVCs.Insert(podMeta.Name + "-" + vol.Name)
			}
		}
	}
	vols := make(map[string]v1.VolumeSource)
	for i, vol := range volumes {
		idxPath := fldPath.Index(i)
		namePath := idxPath.Child("name")
		el := validateVolumeSource(&vol.VolumeSource, idxPath, vol.Name, podMeta, opts)
		if len(vol.Name) == 0 {
			el = append(el, field.Required(namePath, ""))
		} else {
			el = append(el, ValidateDNS1123Label(vol.Name, namePath)...)
		}
		if allNames.Has(vol.Name) {
			el = append(el, field.Duplicate(namePath, vol.Name))
		}
		if len(el) == 0 {
			allNames.Insert(vol.Name)
			vols[vol.Name] = vol.VolumeSource
		} else {
			allErrs = append(allErrs, el...)
		}
		// A PersistentVolumeClaimSource should not reference a created PVC. That doesn't
		// make sense.
		if vol.PersistentVolumeClaim != nil && allCreatedPVCs.Has(vol.PersistentVolumeClaim.ClaimName) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("persistentVolumeClaim").Child("claimName"), vol.PersistentVolumeClaim.ClaimName,
				"must not reference a PVC that gets created for an ephemeral volume"))
		}
	}

	return vols, allErrs
}

// volumeSourceCheck is one branch of upstream's validateVolumeSource: a source
// that is set, the path it is reported under when it is the second source,
// and its validator (called with the path upstream uses, which is not always
// the same).
type volumeSourceCheck struct {
	set      bool
	name     string
	validate func() field.ErrorList
}

func validateVolumeSource(source *v1.VolumeSource, fldPath *field.Path, volName string, podMeta *metav1.ObjectMeta, opts podValidationOptions) field.ErrorList {
	numVolumes := 0
	allErrs := field.ErrorList{}
	if source.EmptyDir != nil {
		numVolumes++
		if source.EmptyDir.SizeLimit != nil && source.EmptyDir.SizeLimit.Cmp(resource.Quantity{}) < 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("emptyDir").Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
		if source.EmptyDir.Mode != nil && (*source.EmptyDir.Mode > 01777 || *source.EmptyDir.Mode < 0) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("emptyDir").Child("mode"), *source.EmptyDir.Mode, emptyDirModeErrorMsg))
		}
	}
	checks := []volumeSourceCheck{
		{source.HostPath != nil, "hostPath", func() field.ErrorList {
			return validateHostPathVolumeSource(source.HostPath, fldPath.Child("hostPath"))
		}},
		{source.GitRepo != nil, "gitRepo", func() field.ErrorList { return validateGitRepoVolumeSource(source.GitRepo, fldPath.Child("gitRepo")) }},
		{source.GCEPersistentDisk != nil, "gcePersistentDisk", func() field.ErrorList {
			return validateGCEPersistentDiskVolumeSource(source.GCEPersistentDisk, fldPath.Child("persistentDisk"))
		}},
		{source.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() field.ErrorList {
			return validateAWSElasticBlockStoreVolumeSource(source.AWSElasticBlockStore, fldPath.Child("awsElasticBlockStore"))
		}},
		{source.Secret != nil, "secret", func() field.ErrorList { return validateSecretVolumeSource(source.Secret, fldPath.Child("secret")) }},
		{source.NFS != nil, "nfs", func() field.ErrorList { return validateNFSVolumeSource(source.NFS, fldPath.Child("nfs")) }},
		{source.ISCSI != nil, "iscsi", func() field.ErrorList { return validateISCSIVolumeSource(source.ISCSI, fldPath.Child("iscsi")) }},
		{source.Glusterfs != nil, "glusterfs", func() field.ErrorList {
			return validateGlusterfsVolumeSource(source.Glusterfs, fldPath.Child("glusterfs"))
		}},
		{source.Flocker != nil, "flocker", func() field.ErrorList { return validateFlockerVolumeSource(source.Flocker, fldPath.Child("flocker")) }},
		{source.PersistentVolumeClaim != nil, "persistentVolumeClaim", func() field.ErrorList {
			return validatePersistentClaimVolumeSource(source.PersistentVolumeClaim, fldPath.Child("persistentVolumeClaim"))
		}},
		{source.RBD != nil, "rbd", func() field.ErrorList { return validateRBDVolumeSource(source.RBD, fldPath.Child("rbd")) }},
		{source.Cinder != nil, "cinder", func() field.ErrorList { return validateCinderVolumeSource(source.Cinder, fldPath.Child("cinder")) }},
		{source.CephFS != nil, "cephFS", func() field.ErrorList { return validateCephFSVolumeSource(source.CephFS, fldPath.Child("cephfs")) }},
		{source.Quobyte != nil, "quobyte", func() field.ErrorList { return validateQuobyteVolumeSource(source.Quobyte, fldPath.Child("quobyte")) }},
		{source.DownwardAPI != nil, "downwarAPI", func() field.ErrorList {
			return validateDownwardAPIVolumeSource(source.DownwardAPI, fldPath.Child("downwardAPI"), opts)
		}},
		{source.FC != nil, "fc", func() field.ErrorList { return validateFCVolumeSource(source.FC, fldPath.Child("fc")) }},
		{source.FlexVolume != nil, "flexVolume", func() field.ErrorList {
			return validateFlexVolumeSource(source.FlexVolume, fldPath.Child("flexVolume"))
		}},
		{source.ConfigMap != nil, "configMap", func() field.ErrorList {
			return validateConfigMapVolumeSource(source.ConfigMap, fldPath.Child("configMap"))
		}},
		{source.AzureFile != nil, "azureFile", func() field.ErrorList { return validateAzureFile(source.AzureFile, fldPath.Child("azureFile")) }},
		{source.VsphereVolume != nil, "vsphereVolume", func() field.ErrorList {
			return validateVsphereVolumeSource(source.VsphereVolume, fldPath.Child("vsphereVolume"))
		}},
		{source.PhotonPersistentDisk != nil, "photonPersistentDisk", func() field.ErrorList {
			return validatePhotonPersistentDiskVolumeSource(source.PhotonPersistentDisk, fldPath.Child("photonPersistentDisk"))
		}},
		{source.PortworxVolume != nil, "portworxVolume", func() field.ErrorList {
			return validatePortworxVolumeSource(source.PortworxVolume, fldPath.Child("portworxVolume"))
		}},
		{source.AzureDisk != nil, "azureDisk", func() field.ErrorList { return validateAzureDisk(source.AzureDisk, fldPath.Child("azureDisk")) }},
		{source.StorageOS != nil, "storageos", func() field.ErrorList {
			return validateStorageOSVolumeSource(source.StorageOS, fldPath.Child("storageos"))
		}},
		{source.Projected != nil, "projected", func() field.ErrorList {
			return validateProjectedVolumeSource(source.Projected, fldPath.Child("projected"), opts)
		}},
		{source.ScaleIO != nil, "scaleIO", func() field.ErrorList { return validateScaleIOVolumeSource(source.ScaleIO, fldPath.Child("scaleIO")) }},
		{source.CSI != nil, "csi", func() field.ErrorList { return validateCSIVolumeSource(source.CSI, fldPath.Child("csi")) }},
		{source.Ephemeral != nil, "ephemeral", func() field.ErrorList {
			errs := validateEphemeralVolumeSource(source.Ephemeral, fldPath.Child("ephemeral"))
			// Check the expected name for the PVC. This gets skipped if information is missing,
			// because that already gets flagged as a problem elsewhere. For example,
			// ValidateObjectMeta as called by validatePodMetadataAndSpec checks that the name is set.
			if podMeta != nil && podMeta.Name != "" && volName != "" {
				pvcName := podMeta.Name + "-" + volName
				for _, msg := range ValidatePersistentVolumeName(pvcName, false) {
					errs = append(errs, field.Invalid(fldPath.Child("name"), volName, fmt.Sprintf("PVC name %q: %v", pvcName, msg)))
				}
			}
			return errs
		}},
		{source.Image != nil, "image", func() field.ErrorList { return validateImageVolumeSource(source.Image, fldPath.Child("image"), opts) }},
	}
	for _, c := range checks {
		if !c.set {
			continue
		}
		if numVolumes > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(c.name), "may not specify more than 1 volume type"))
		} else {
			numVolumes++
			allErrs = append(allErrs, c.validate()...)
		}
		if c.name == "iscsi" && source.ISCSI.InitiatorName != nil && len(volName+":"+source.ISCSI.TargetPortal) > 64 {
			tooLongErr := "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), volName, tooLongErr))
		}
	}

	if numVolumes == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}

	return allErrs
}

func getVolumeMountMap(mounts []v1.VolumeMount) map[string]string {
	volmounts := make(map[string]string)
	for _, mnt := range mounts {
		volmounts[mnt.Name] = mnt.MountPath
	}
	return volmounts
}

func getVolumeDeviceMap(devices []v1.VolumeDevice) map[string]string {
	volDevices := make(map[string]string)
	for _, dev := range devices {
		volDevices[dev.Name] = dev.DevicePath
	}
	return volDevices
}

func isMatchedVolume(name string, volumes map[string]v1.VolumeSource) bool {
	_, ok := volumes[name]
	return ok
}

// isMatchedDevice checks whether the volume with the given name is used by a
// container and if so, if it involves a PVC.
func isMatchedDevice(name string, volumes map[string]v1.VolumeSource) (isMatched bool, isPVC bool) {
	if source, ok := volumes[name]; ok {
		if source.PersistentVolumeClaim != nil ||
			source.Ephemeral != nil {
			return true, true
		}
		return true, false
	}
	return false, false
}

func pathAlreadyExists(p string, paths map[string]string) bool {
	for _, existing := range paths {
		if p == existing {
			return true
		}
	}
	return false
}

func validateVolumeMounts(mounts []v1.VolumeMount, voldevices map[string]string, volumes map[string]v1.VolumeSource, container *v1.Container, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	mountpoints := sets.New[string]()

	for i, mnt := range mounts {
		idxPath := fldPath.Index(i)
		if len(mnt.Name) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		}
		if !isMatchedVolume(mnt.Name, volumes) {
			allErrs = append(allErrs, field.NotFound(idxPath.Child("name"), mnt.Name))
		}
		if len(mnt.MountPath) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("mountPath"), ""))
		}
		if mountpoints.Has(mnt.MountPath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("mountPath"), mnt.MountPath, "must be unique"))
		}
		mountpoints.Insert(mnt.MountPath)

		// check for overlap with VolumeDevice
		if _, ok := voldevices[mnt.Name]; ok {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), mnt.Name, "must not already exist in volumeDevices"))
		}
		if pathAlreadyExists(mnt.MountPath, voldevices) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("mountPath"), mnt.MountPath, "must not already exist as a path in volumeDevices"))
		}

		if len(mnt.SubPath) > 0 {
			allErrs = append(allErrs, validateLocalDescendingPath(mnt.SubPath, fldPath.Child("subPath"))...)
		}

		if len(mnt.SubPathExpr) > 0 {
			if len(mnt.SubPath) > 0 {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("subPathExpr"), mnt.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}

			allErrs = append(allErrs, validateLocalDescendingPath(mnt.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}

		if mnt.MountPropagation != nil {
			allErrs = append(allErrs, validateMountPropagation(mnt.MountPropagation, container, fldPath.Child("mountPropagation"))...)
		}
		allErrs = append(allErrs, validateMountRecursiveReadOnly(mnt, fldPath.Child("recursiveReadOnly"))...)
		allErrs = append(allErrs, validateBindMountOptions(mnt.BindMountOptions, idxPath.Child("bindMountOptions"))...)
		if len(mnt.BindMountOptions) > 0 {
			if vs, ok := volumes[mnt.Name]; ok && vs.Image != nil {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("bindMountOptions"), mnt.BindMountOptions, "bindMountOptions may not be used with image volumes"))
			}
		}
	}
	return allErrs
}

var supportedBindMountOptions = sets.New(
	string(v1.BindMountOptionNoExec),
	string(v1.BindMountOptionNoDev),
	string(v1.BindMountOptionNoSUID),
)

func validateBindMountOptions(bindMountOptions []string, fldPath *field.Path) field.ErrorList {
	if len(bindMountOptions) == 0 {
		return nil
	}
	allErrs := field.ErrorList{}
	seen := sets.New[string]()
	for i, opt := range bindMountOptions {
		if !supportedBindMountOptions.Has(opt) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i), opt, sets.List(supportedBindMountOptions)))
		}
		if seen.Has(opt) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), opt))
		}
		seen.Insert(opt)
	}
	return allErrs
}

func validateVolumeDevices(devices []v1.VolumeDevice, volmounts map[string]string, volumes map[string]v1.VolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	devicepath := sets.New[string]()
	devicename := sets.New[string]()

	for i, dev := range devices {
		idxPath := fldPath.Index(i)
		devName := dev.Name
		devPath := dev.DevicePath
		didMatch, isPVC := isMatchedDevice(devName, volumes)
		if len(devName) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		}
		if devicename.Has(devName) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), devName, "must be unique"))
		}
		// Must be based on PersistentVolumeClaim (PVC reference or generic ephemeral inline volume)
		if didMatch && !isPVC {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), devName, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if !didMatch {
			allErrs = append(allErrs, field.NotFound(idxPath.Child("name"), devName))
		}
		if len(devPath) == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("devicePath"), ""))
		}
		if devicepath.Has(devPath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), devPath, "must be unique"))
		}
		if len(devPath) > 0 && len(validatePathNoBacksteps(devPath, fldPath.Child("devicePath"))) > 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), devPath, "can not contain backsteps ('..')"))
		} else {
			devicepath.Insert(devPath)
		}
		// check for overlap with VolumeMount
		if _, ok := volmounts[devName]; ok {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), devName, "must not already exist in volumeMounts"))
		}
		if pathAlreadyExists(devPath, volmounts) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), devPath, "must not already exist as a path in volumeMounts"))
		}
		if len(devName) > 0 {
			devicename.Insert(devName)
		}
	}
	return allErrs
}

// validateMountPropagation verifies that MountPropagation field is valid and
// allowed for given container.
func validateMountPropagation(mountPropagation *v1.MountPropagationMode, container *v1.Container, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}

	if mountPropagation == nil {
		return allErrs
	}

	supportedMountPropagations := sets.New(
		v1.MountPropagationBidirectional,
		v1.MountPropagationHostToContainer,
		v1.MountPropagationNone)

	if !supportedMountPropagations.Has(*mountPropagation) {
		allErrs = append(allErrs, field.NotSupported(fldPath, *mountPropagation, sets.List(supportedMountPropagations)))
	}

	if container == nil {
		// The container is not available yet.
		return allErrs
	}

	privileged := container.SecurityContext != nil && container.SecurityContext.Privileged != nil && *container.SecurityContext.Privileged
	if *mountPropagation == v1.MountPropagationBidirectional && !privileged {
		allErrs = append(allErrs, field.Forbidden(fldPath, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return allErrs
}

// validateMountRecursiveReadOnly validates RecursiveReadOnly mounts.
func validateMountRecursiveReadOnly(mount v1.VolumeMount, fldPath *field.Path) field.ErrorList {
	if mount.RecursiveReadOnly == nil {
		return nil
	}
	allErrs := field.ErrorList{}
	switch *mount.RecursiveReadOnly {
	case v1.RecursiveReadOnlyDisabled:
		// NOP
	case v1.RecursiveReadOnlyEnabled, v1.RecursiveReadOnlyIfPossible:
		if !mount.ReadOnly {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when readOnly is true"))
		}
		if mount.MountPropagation != nil && *mount.MountPropagation != v1.MountPropagationNone {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		supportedRRO := sets.New(
			v1.RecursiveReadOnlyDisabled,
			v1.RecursiveReadOnlyIfPossible,
			v1.RecursiveReadOnlyEnabled)
		allErrs = append(allErrs, field.NotSupported(fldPath, *mount.RecursiveReadOnly, sets.List(supportedRRO)))
	}
	return allErrs
}

// This validate will make sure targetPath:
// 1. is not abs path
// 2. does not have any element which is ".."
func validateLocalDescendingPath(targetPath string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if path.IsAbs(targetPath) {
		allErrs = append(allErrs, field.Invalid(fldPath, targetPath, "must be a relative path"))
	}

	allErrs = append(allErrs, validatePathNoBacksteps(targetPath, fldPath)...)

	return allErrs
}

// validatePathNoBacksteps makes sure the targetPath does not have any `..` path elements when split
func validatePathNoBacksteps(targetPath string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	parts := strings.Split(filepath.ToSlash(targetPath), "/")
	for _, item := range parts {
		if item == ".." {
			allErrs = append(allErrs, field.Invalid(fldPath, targetPath, "must not contain '..'"))
			break // even for `../../..`, one error is sufficient to make the point
		}
	}
	return allErrs
}

// ValidateLocalNonReservedPath makes sure targetPath:
// 1. is not abs path
// 2. does not contain any '..' elements
// 3. does not start with '..'
func ValidateLocalNonReservedPath(targetPath string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, validateLocalDescendingPath(targetPath, fldPath)...)
	// Don't report this error if the check for .. elements already caught it.
	if strings.HasPrefix(targetPath, "..") && !strings.HasPrefix(targetPath, "../") {
		allErrs = append(allErrs, field.Invalid(fldPath, targetPath, "must not start with '..'"))
	}
	return allErrs
}
