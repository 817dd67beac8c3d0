package validation

// PersistentVolume validation, ported from kubernetes v1.37.2
// pkg/apis/core/validation/validation.go (ValidatePersistentVolume*,
// ValidatePersistentVolumeSpec and the persistent volume sources it checks)
// and pkg/volume/validation/pv_validation.go (the mount-options check the
// persistentvolume strategy adds). Feature gates at their v1.37 defaults:
// VolumeAttributesClass GA, MutablePVNodeAffinity alpha (off). The
// declarative rules for PersistentVolume cover only ObjectMeta (alpha).

import (
	"fmt"
	"path"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// mountOptionAnnotation is the deprecated annotation for PersistentVolume mount options.
const mountOptionAnnotation = "volume.beta.kubernetes.io/mount-options"

var supportedPVReclaimPolicy = sets.New(
	v1.PersistentVolumeReclaimDelete,
	v1.PersistentVolumeReclaimRecycle,
	v1.PersistentVolumeReclaimRetain)

type persistentVolumeSpecValidationOptions struct {
	EnableVolumeAttributesClass                  bool
	AllowInvalidLabelValueInRequiredNodeAffinity bool
}

func validationOptionsForPersistentVolume(oldPv *v1.PersistentVolume) persistentVolumeSpecValidationOptions {
	opts := persistentVolumeSpecValidationOptions{EnableVolumeAttributesClass: true}
	if oldPv != nil && oldPv.Spec.NodeAffinity != nil && oldPv.Spec.NodeAffinity.Required != nil {
		opts.AllowInvalidLabelValueInRequiredNodeAffinity = hasInvalidLabelValueInNodeSelectorTerms(oldPv.Spec.NodeAffinity.Required.NodeSelectorTerms)
	}
	return opts
}

func hasInvalidLabelValueInNodeSelectorTerms(terms []v1.NodeSelectorTerm) bool {
	for _, term := range terms {
		for _, expression := range term.MatchExpressions {
			for _, value := range expression.Values {
				if len(validation.IsValidLabelValue(value)) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// ValidatePersistentVolume validates a PersistentVolume on create, as the persistentvolume
// strategy does (object validation, then the volume plugin's mount-options check).
func ValidatePersistentVolume(pv *v1.PersistentVolume) field.ErrorList {
	allErrs := validatePersistentVolume(pv, validationOptionsForPersistentVolume(nil))
	return append(allErrs, checkMountOption(pv)...)
}

// ValidatePersistentVolumeUpdate validates an update of a PersistentVolume: the volume source
// and volume mode are immutable.
func ValidatePersistentVolumeUpdate(newPv, oldPv *v1.PersistentVolume) field.ErrorList {
	opts := validationOptionsForPersistentVolume(oldPv)
	allErrs := validatePersistentVolume(newPv, opts)
	allErrs = append(allErrs, checkMountOption(newPv)...)
	return append(allErrs, validatePersistentVolumeUpdate(newPv, oldPv, opts)...)
}

// ValidatePersistentVolumeStatusUpdate validates an update of /status.
func ValidatePersistentVolumeStatusUpdate(newPv, oldPv *v1.PersistentVolume) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newPv.ObjectMeta, &oldPv.ObjectMeta, field.NewPath("metadata"))
	if len(newPv.ResourceVersion) == 0 {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	return allErrs
}

func validatePersistentVolume(pv *v1.PersistentVolume, opts persistentVolumeSpecValidationOptions) field.ErrorList {
	allErrs := ValidateObjectMeta(&pv.ObjectMeta, false, ValidatePersistentVolumeName, field.NewPath("metadata"))
	return append(allErrs, validatePersistentVolumeSpec(&pv.Spec, pv.Name, field.NewPath("spec"), opts)...)
}

// validatePersistentVolumeUpdate is upstream's ValidatePersistentVolumeUpdate, which validates
// the new object once more (the strategy already did): its errors appear twice, as upstream.
func validatePersistentVolumeUpdate(newPv, oldPv *v1.PersistentVolume, opts persistentVolumeSpecValidationOptions) field.ErrorList {
	allErrs := validatePersistentVolume(newPv, opts)
	// if oldPV does not have ControllerExpandSecretRef then allow it to be set
	if (oldPv.Spec.CSI != nil && oldPv.Spec.CSI.ControllerExpandSecretRef == nil) &&
		(newPv.Spec.CSI != nil && newPv.Spec.CSI.ControllerExpandSecretRef != nil) {
		newPv = newPv.DeepCopy()
		newPv.Spec.CSI.ControllerExpandSecretRef = nil
	}
	// PersistentVolumeSource should be immutable after creation.
	if !apiequality.Semantic.DeepEqual(newPv.Spec.PersistentVolumeSource, oldPv.Spec.PersistentVolumeSource) {
		pvcSourceDiff := diff.Diff(oldPv.Spec.PersistentVolumeSource, newPv.Spec.PersistentVolumeSource)
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"), fmt.Sprintf("spec.persistentvolumesource is immutable after creation\n%v", pvcSourceDiff)))
	}
	allErrs = append(allErrs, ValidateImmutableField(newPv.Spec.VolumeMode, oldPv.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	// MutablePVNodeAffinity is off in v1.37: node affinity, once set, only moves from beta to GA labels.
	if oldPv.Spec.NodeAffinity != nil {
		allErrs = append(allErrs, validatePvNodeAffinity(newPv.Spec.NodeAffinity, oldPv.Spec.NodeAffinity, field.NewPath("nodeAffinity"))...)
	}
	if !apiequality.Semantic.DeepEqual(oldPv.Spec.VolumeAttributesClassName, newPv.Spec.VolumeAttributesClassName) && opts.EnableVolumeAttributesClass {
		if oldPv.Spec.VolumeAttributesClassName != nil && newPv.Spec.VolumeAttributesClassName == nil {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
		}
	}
	return allErrs
}

var betaToGALabel = map[string]string{
	v1.LabelFailureDomainBetaZone:   v1.LabelTopologyZone,
	v1.LabelFailureDomainBetaRegion: v1.LabelTopologyRegion,
	"beta.kubernetes.io/os":         v1.LabelOSStable,
	"beta.kubernetes.io/arch":       v1.LabelArchStable,
	v1.LabelInstanceType:            v1.LabelInstanceTypeStable,
}

var maskNodeSelectorLabelChangeEqualities = sync.OnceValue(func() conversion.Equalities {
	eqs := apiequality.Semantic.Copy()
	if err := eqs.AddFunc(func(newReq, oldReq v1.NodeSelectorRequirement) bool {
		// allow newReq to change to a GA key
		if oldReq.Key != newReq.Key && betaToGALabel[oldReq.Key] == newReq.Key {
			oldReq.Key = newReq.Key
		}
		return apiequality.Semantic.DeepEqual(newReq, oldReq)
	}); err != nil {
		panic(fmt.Errorf("failed to instantiate semantic equalities: %w", err))
	}
	return eqs
})

func validatePvNodeAffinity(newPvNodeAffinity, oldPvNodeAffinity *v1.VolumeNodeAffinity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !maskNodeSelectorLabelChangeEqualities().DeepEqual(newPvNodeAffinity, oldPvNodeAffinity) {
		allErrs = append(allErrs, field.Invalid(fldPath, newPvNodeAffinity, fieldImmutableErrorMsg+", except for updating from beta label to GA"))
	}
	return allErrs
}

// checkMountOption follows pkg/volume/validation: only some volume types take mount options.
func checkMountOption(pv *v1.PersistentVolume) field.ErrorList {
	allErrs := field.ErrorList{}
	s := pv.Spec
	if s.GCEPersistentDisk != nil || s.AWSElasticBlockStore != nil || s.Glusterfs != nil || s.NFS != nil ||
		s.RBD != nil || s.Quobyte != nil || s.ISCSI != nil || s.Cinder != nil || s.CephFS != nil ||
		s.AzureFile != nil || s.VsphereVolume != nil || s.AzureDisk != nil || s.PhotonPersistentDisk != nil {
		return allErrs
	}
	if _, ok := pv.Annotations[mountOptionAnnotation]; ok {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("metadata").Child("annotations", mountOptionAnnotation), "may not specify mount options for this volume type"))
	}
	return allErrs
}

func validateBasicResource(quantity resource.Quantity, fldPath *field.Path) field.ErrorList {
	if quantity.Value() < 0 {
		return field.ErrorList{field.Invalid(fldPath, quantity.Value(), "must be a valid resource quantity")}
	}
	return field.ErrorList{}
}

// validatePersistentVolumeSpec is ValidatePersistentVolumeSpec for a PersistentVolume object
// (validateInlinePersistentVolumeSpec false).
func validatePersistentVolumeSpec(pvSpec *v1.PersistentVolumeSpec, pvName string, fldPath *field.Path, opts persistentVolumeSpecValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(pvSpec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("accessModes"), ""))
	}
	foundReadWriteOncePod, foundNonReadWriteOncePod := false, false
	for _, mode := range pvSpec.AccessModes {
		if !supportedAccessModes.Has(mode) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("accessModes"), mode, sets.List(supportedAccessModes)))
		}
		if mode == v1.ReadWriteOncePod {
			foundReadWriteOncePod = true
		} else if supportedAccessModes.Has(mode) {
			foundNonReadWriteOncePod = true
		}
	}
	if foundReadWriteOncePod && foundNonReadWriteOncePod {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}

	if len(pvSpec.Capacity) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("capacity"), ""))
	}
	if _, ok := pvSpec.Capacity[v1.ResourceStorage]; !ok || len(pvSpec.Capacity) > 1 {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("capacity"), pvSpec.Capacity, []v1.ResourceName{v1.ResourceStorage}))
	}
	capPath := fldPath.Child("capacity")
	for r, qty := range pvSpec.Capacity {
		allErrs = append(allErrs, validateBasicResource(qty, capPath.Key(string(r)))...)
		allErrs = append(allErrs, ValidatePositiveQuantityValue(qty, capPath.Key(string(r)))...)
	}

	if len(pvSpec.PersistentVolumeReclaimPolicy) > 0 && !supportedPVReclaimPolicy.Has(pvSpec.PersistentVolumeReclaimPolicy) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("persistentVolumeReclaimPolicy"), pvSpec.PersistentVolumeReclaimPolicy, sets.List(supportedPVReclaimPolicy)))
	}

	var nodeAffinitySpecified bool
	if pvSpec.NodeAffinity != nil {
		var errs field.ErrorList
		nodeAffinitySpecified, errs = validateVolumeNodeAffinity(pvSpec.NodeAffinity, opts, fldPath.Child("nodeAffinity"))
		allErrs = append(allErrs, errs...)
	}

	numVolumes := 0
	// source adds the errors of one volume source, or the "more than 1" error.
	source := func(set bool, name string, validate func() field.ErrorList) {
		if !set {
			return
		}
		if numVolumes > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 volume type"))
			return
		}
		numVolumes++
		allErrs = append(allErrs, validate()...)
	}
	s := &pvSpec.PersistentVolumeSource
	source(s.HostPath != nil, "hostPath", func() field.ErrorList {
		return validateHostPathVolumeSource(s.HostPath, fldPath.Child("hostPath"))
	})
	source(s.GCEPersistentDisk != nil, "gcePersistentDisk", func() field.ErrorList {
		return validateGCEPersistentDiskVolumeSource(s.GCEPersistentDisk, fldPath.Child("persistentDisk"))
	})
	source(s.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() field.ErrorList {
		return validateAWSElasticBlockStoreVolumeSource(s.AWSElasticBlockStore, fldPath.Child("awsElasticBlockStore"))
	})
	source(s.Glusterfs != nil, "glusterfs", func() field.ErrorList {
		return validateGlusterfsPersistentVolumeSource(s.Glusterfs, fldPath.Child("glusterfs"))
	})
	source(s.Flocker != nil, "flocker", func() field.ErrorList {
		return validateFlockerVolumeSource(s.Flocker, fldPath.Child("flocker"))
	})
	source(s.NFS != nil, "nfs", func() field.ErrorList { return validateNFSVolumeSource(s.NFS, fldPath.Child("nfs")) })
	source(s.RBD != nil, "rbd", func() field.ErrorList { return validateRBDPersistentVolumeSource(s.RBD, fldPath.Child("rbd")) })
	source(s.Quobyte != nil, "quobyte", func() field.ErrorList {
		return validateQuobyteVolumeSource(s.Quobyte, fldPath.Child("quobyte"))
	})
	source(s.CephFS != nil, "cephFS", func() field.ErrorList {
		return validateCephFSPersistentVolumeSource(s.CephFS, fldPath.Child("cephfs"))
	})
	source(s.ISCSI != nil, "iscsi", func() field.ErrorList {
		return validateISCSIPersistentVolumeSource(s.ISCSI, pvName, fldPath.Child("iscsi"))
	})
	source(s.Cinder != nil, "cinder", func() field.ErrorList {
		return validateCinderPersistentVolumeSource(s.Cinder, fldPath.Child("cinder"))
	})
	source(s.FC != nil, "fc", func() field.ErrorList { return validateFCVolumeSource(s.FC, fldPath.Child("fc")) })
	if s.FlexVolume != nil { // upstream counts flexVolume without the "more than 1" check
		numVolumes++
		allErrs = append(allErrs, validateFlexPersistentVolumeSource(s.FlexVolume, fldPath.Child("flexVolume"))...)
	}
	source(s.AzureFile != nil, "azureFile", func() field.ErrorList { return validateAzureFilePV(s.AzureFile, fldPath.Child("azureFile")) })
	source(s.VsphereVolume != nil, "vsphereVolume", func() field.ErrorList {
		return validateVsphereVolumeSource(s.VsphereVolume, fldPath.Child("vsphereVolume"))
	})
	source(s.PhotonPersistentDisk != nil, "photonPersistentDisk", func() field.ErrorList {
		return validatePhotonPersistentDiskVolumeSource(s.PhotonPersistentDisk, fldPath.Child("photonPersistentDisk"))
	})
	source(s.PortworxVolume != nil, "portworxVolume", func() field.ErrorList {
		return validatePortworxVolumeSource(s.PortworxVolume, fldPath.Child("portworxVolume"))
	})
	source(s.AzureDisk != nil, "azureDisk", func() field.ErrorList { return validateAzureDisk(s.AzureDisk, fldPath.Child("azureDisk")) })
	source(s.ScaleIO != nil, "scaleIO", func() field.ErrorList {
		return validateScaleIOPersistentVolumeSource(s.ScaleIO, fldPath.Child("scaleIO"))
	})
	source(s.Local != nil, "local", func() field.ErrorList {
		errs := validateLocalVolumeSource(s.Local, fldPath.Child("local"))
		if !nodeAffinitySpecified { // NodeAffinity is required
			errs = append(errs, field.Required(fldPath.Child("nodeAffinity"), "Local volume requires node affinity"))
		}
		return errs
	})
	source(s.StorageOS != nil, "storageos", func() field.ErrorList {
		return validateStorageOSPersistentVolumeSource(s.StorageOS, fldPath.Child("storageos"))
	})
	source(s.CSI != nil, "csi", func() field.ErrorList { return validateCSIPersistentVolumeSource(s.CSI, fldPath.Child("csi")) })
	if numVolumes == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a volume type"))
	}

	// do not allow hostPath mounts of '/' to have a 'recycle' reclaim policy
	if s.HostPath != nil && path.Clean(s.HostPath.Path) == "/" && pvSpec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimRecycle {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if len(pvSpec.StorageClassName) > 0 {
		for _, msg := range ValidateClassName(pvSpec.StorageClassName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("storageClassName"), pvSpec.StorageClassName, msg))
		}
	}
	if pvSpec.VolumeMode != nil && !supportedVolumeModes.Has(*pvSpec.VolumeMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *pvSpec.VolumeMode, sets.List(supportedVolumeModes)))
	}
	if pvSpec.VolumeAttributesClassName != nil && opts.EnableVolumeAttributesClass {
		if len(*pvSpec.VolumeAttributesClassName) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("volumeAttributesClassName"), "an empty string is disallowed"))
		} else {
			for _, msg := range ValidateClassName(*pvSpec.VolumeAttributesClassName, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("volumeAttributesClassName"), *pvSpec.VolumeAttributesClassName, msg))
			}
		}
		if s.CSI == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	return allErrs
}

func validateVolumeNodeAffinity(nodeAffinity *v1.VolumeNodeAffinity, opts persistentVolumeSpecValidationOptions, fldPath *field.Path) (bool, field.ErrorList) {
	allErrs := field.ErrorList{}
	if nodeAffinity == nil {
		return false, allErrs
	}
	if nodeAffinity.Required != nil {
		allErrs = append(allErrs, ValidateNodeSelector(nodeAffinity.Required, opts.AllowInvalidLabelValueInRequiredNodeAffinity, fldPath.Child("required"))...)
	} else {
		allErrs = append(allErrs, field.Required(fldPath.Child("required"), "must specify required node constraints"))
	}
	return true, allErrs
}

func validateISCSIPersistentVolumeSource(iscsi *v1.ISCSIPersistentVolumeSource, pvName string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(iscsi.TargetPortal) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("targetPortal"), ""))
	}
	if iscsi.InitiatorName != nil && len(pvName+":"+iscsi.TargetPortal) > 64 {
		tooLongErr := "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."
		allErrs = append(allErrs, field.Invalid(fldPath.Child("targetportal"), iscsi.TargetPortal, tooLongErr))
	}
	if len(iscsi.IQN) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("iqn"), ""))
	} else if !validISCSIName(iscsi.IQN) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("iqn"), iscsi.IQN, "must be valid format"))
	}
	if iscsi.Lun < 0 || iscsi.Lun > 255 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lun"), iscsi.Lun, validation.InclusiveRangeError(0, 255)))
	}
	if (iscsi.DiscoveryCHAPAuth || iscsi.SessionCHAPAuth) && iscsi.SecretRef == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretRef"), ""))
	}
	if iscsi.SecretRef != nil && len(iscsi.SecretRef.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretRef", "name"), ""))
	}
	if iscsi.InitiatorName != nil {
		initiator := *iscsi.InitiatorName
		if !strings.HasPrefix(initiator, "iqn") && !strings.HasPrefix(initiator, "eui") && !strings.HasPrefix(initiator, "naa") {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format"))
		}
		if strings.HasPrefix(initiator, "iqn") && !iscsiInitiatorIqnRegex.MatchString(initiator) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format"))
		} else if strings.HasPrefix(initiator, "eui") && !iscsiInitiatorEuiRegex.MatchString(initiator) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format"))
		} else if strings.HasPrefix(initiator, "naa") && !iscsiInitiatorNaaRegex.MatchString(initiator) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("initiatorname"), initiator, "must be valid format"))
		}
	}
	return allErrs
}

// validISCSIName is the IQN format check of validateISCSIPersistentVolumeSource.
func validISCSIName(iqn string) bool {
	switch {
	case strings.HasPrefix(iqn, "iqn"):
		return iscsiInitiatorIqnRegex.MatchString(iqn)
	case strings.HasPrefix(iqn, "eui"):
		return iscsiInitiatorEuiRegex.MatchString(iqn)
	case strings.HasPrefix(iqn, "naa"):
		return iscsiInitiatorNaaRegex.MatchString(iqn)
	}
	return false
}

func validateGlusterfsPersistentVolumeSource(glusterfs *v1.GlusterfsPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(glusterfs.EndpointsName) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("endpoints"), ""))
	}
	if len(glusterfs.Path) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	if glusterfs.EndpointsNamespace != nil {
		endpointNs := glusterfs.EndpointsNamespace
		if *endpointNs == "" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("endpointsNamespace"), *endpointNs, "if the endpointnamespace is set, it must be a valid namespace name"))
		} else {
			for _, msg := range ValidateNamespaceName(*endpointNs, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("endpointsNamespace"), *endpointNs, msg))
			}
		}
	}
	return allErrs
}

func validateRBDPersistentVolumeSource(rbd *v1.RBDPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(rbd.CephMonitors) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("monitors"), ""))
	}
	if len(rbd.RBDImage) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("image"), ""))
	}
	return allErrs
}

func validateCinderPersistentVolumeSource(cd *v1.CinderPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(cd.VolumeID) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeID"), ""))
	}
	if cd.SecretRef != nil {
		if len(cd.SecretRef.Name) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("secretRef", "name"), ""))
		}
		if len(cd.SecretRef.Namespace) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("secretRef", "namespace"), ""))
		}
	}
	return allErrs
}

func validateCephFSPersistentVolumeSource(cephfs *v1.CephFSPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(cephfs.Monitors) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("monitors"), ""))
	}
	return allErrs
}

func validateFlexPersistentVolumeSource(fv *v1.FlexPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(fv.Driver) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("driver"), ""))
	}
	// Make sure user-specified options don't use kubernetes namespaces
	for k := range fv.Options {
		namespace := k
		if parts := strings.SplitN(k, "/", 2); len(parts) == 2 {
			namespace = parts[0]
		}
		normalized := "." + strings.ToLower(namespace)
		if strings.HasSuffix(normalized, ".kubernetes.io") || strings.HasSuffix(normalized, ".k8s.io") {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
		}
	}
	return allErrs
}

func validateAzureFilePV(azure *v1.AzureFilePersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if azure.SecretName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretName"), ""))
	}
	if azure.ShareName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("shareName"), ""))
	}
	if azure.SecretNamespace != nil && len(*azure.SecretNamespace) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("secretNamespace"), ""))
	}
	return allErrs
}

func validateScaleIOPersistentVolumeSource(sio *v1.ScaleIOPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if sio.Gateway == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("gateway"), ""))
	}
	if sio.System == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("system"), ""))
	}
	if sio.VolumeName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeName"), ""))
	}
	return allErrs
}

func validateLocalVolumeSource(ls *v1.LocalVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if ls.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
		return allErrs
	}
	return append(allErrs, validatePathNoBacksteps(ls.Path, fldPath.Child("path"))...)
}

func validateStorageOSPersistentVolumeSource(storageos *v1.StorageOSPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(storageos.VolumeName) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeName"), ""))
	} else {
		allErrs = append(allErrs, ValidateDNS1123Label(storageos.VolumeName, fldPath.Child("volumeName"))...)
	}
	if len(storageos.VolumeNamespace) > 0 {
		allErrs = append(allErrs, ValidateDNS1123Label(storageos.VolumeNamespace, fldPath.Child("volumeNamespace"))...)
	}
	if storageos.SecretRef != nil {
		if len(storageos.SecretRef.Name) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("secretRef", "name"), ""))
		}
		if len(storageos.SecretRef.Namespace) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("secretRef", "namespace"), ""))
		}
	}
	return allErrs
}

func validatePVSecretReference(secretRef *v1.SecretReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(secretRef.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else {
		allErrs = append(allErrs, ValidateDNS1123Subdomain(secretRef.Name, fldPath.Child("name"))...)
	}
	if len(secretRef.Namespace) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
	} else {
		allErrs = append(allErrs, ValidateDNS1123Label(secretRef.Namespace, fldPath.Child("namespace"))...)
	}
	return allErrs
}

func validateCSIPersistentVolumeSource(csi *v1.CSIPersistentVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateCSIDriverName(csi.Driver, fldPath.Child("driver"))...)
	if len(csi.VolumeHandle) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeHandle"), ""))
	}
	for _, ref := range []struct {
		name string
		ref  *v1.SecretReference
	}{
		{"controllerPublishSecretRef", csi.ControllerPublishSecretRef},
		{"controllerExpandSecretRef", csi.ControllerExpandSecretRef},
		{"nodePublishSecretRef", csi.NodePublishSecretRef},
		{"nodeExpandSecretRef", csi.NodeExpandSecretRef},
	} {
		if ref.ref != nil {
			allErrs = append(allErrs, validatePVSecretReference(ref.ref, fldPath.Child(ref.name))...)
		}
	}
	return allErrs
}
