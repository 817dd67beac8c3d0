package pods

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var accessModes = []corev1.PersistentVolumeAccessMode{
	corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}

// ValidatePersistentVolume is the rule list of a PersistentVolume being created.
func ValidatePersistentVolume(pv *corev1.PersistentVolume) field.ErrorList {
	return validation.Join(
		validation.Meta(&pv.ObjectMeta, false, validation.SubdomainName, metadata),
		persistentVolumeSpec(pv),
	)
}

// persistentVolumeSpec checks a volume's spec, in the order of its fields.
func persistentVolumeSpec(pv *corev1.PersistentVolume) field.ErrorList {
	spec := &pv.Spec
	sources := setMembers(&spec.PersistentVolumeSource)
	return validation.Join(
		capacity(specPath.Child("capacity"), spec.Capacity),
		persistentVolumeSource(specPath, spec),
		accessModeList(specPath.Child("accessModes"), spec.AccessModes, ""),
		optionalOneOf(specPath.Child("persistentVolumeReclaimPolicy"), spec.PersistentVolumeReclaimPolicy,
			corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle, corev1.PersistentVolumeReclaimRetain),
		// The recycler would wipe the node's root.
		validation.When(spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle && spec.HostPath != nil && path.Clean(spec.HostPath.Path) == "/",
			field.Forbidden(specPath.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'")),
		ifSet(specPath.Child("storageClassName"), spec.StorageClassName, validation.DNSSubdomain),
		mountOptions(pv),
		validation.IfSet(specPath.Child("volumeMode"), spec.VolumeMode, volumeMode),
		validation.IfSet(specPath.Child("nodeAffinity"), spec.NodeAffinity, func(p *field.Path, a corev1.VolumeNodeAffinity) field.ErrorList {
			if a.Required == nil {
				return field.ErrorList{field.Required(p.Child("required"), "must specify required node constraints")}
			}
			return nodeSelector(p.Child("required"), *a.Required)
		}),
		// A local volume is on one node's disk: only pods on that node can use it.
		validation.When(spec.Local != nil && spec.NodeAffinity == nil, field.Required(specPath.Child("nodeAffinity"), "Local volume requires node affinity")),
		validation.IfSet(specPath.Child("volumeAttributesClassName"), spec.VolumeAttributesClassName, func(p *field.Path, name string) field.ErrorList {
			if name == "" {
				return field.ErrorList{field.Required(p, "an empty string is disallowed")}
			}
			return validation.Join(validation.DNSSubdomain(p, name),
				validation.When(len(sources) > 0 && spec.CSI == nil, field.Required(specPath.Child("csi"), "has to be specified when using volumeAttributesClassName")))
		}),
	)
}

// InlinePersistentVolumeSpec checks the volume spec a VolumeAttachment carries for a volume a
// pod defines inline (an in-tree volume migrated to CSI): a PersistentVolume's spec without the
// capacity and claim that only a real volume has, and whose source is CSI.
func InlinePersistentVolumeSpec(p *field.Path, spec *corev1.PersistentVolumeSpec) field.ErrorList {
	const notInline = "may not be specified in the context of inline volumes"
	return validation.Join(
		validation.When(spec.ClaimRef != nil, field.Forbidden(p.Child("claimRef"), notInline)),
		validation.When(len(spec.Capacity) != 0, field.Forbidden(p.Child("capacity"), notInline)),
		validation.When(spec.CSI == nil, field.Required(p.Child("csi"), "has to be specified in the context of inline volumes")),
		accessModeList(p.Child("accessModes"), spec.AccessModes, ""),
		persistentVolumeSource(p, spec),
		optionalOneOf(p.Child("persistentVolumeReclaimPolicy"), spec.PersistentVolumeReclaimPolicy,
			corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle, corev1.PersistentVolumeReclaimRetain),
		validation.IfSet(p.Child("volumeMode"), spec.VolumeMode, volumeMode),
	)
}

// capacity: how big the volume is, its storage and nothing else.
func capacity(p *field.Path, c corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	if len(c) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	if _, ok := c[corev1.ResourceStorage]; !ok || len(c) > 1 {
		errs = append(errs, field.NotSupported(p, c, []corev1.ResourceName{corev1.ResourceStorage}))
	}
	for _, name := range sortedNames(c) {
		q := c[name]
		errs = append(errs, validation.When(q.Value() < 0, field.Invalid(p.Key(string(name)), q.Value(), "must be a valid resource quantity"))...)
		errs = append(errs, validation.When(q.Sign() <= 0, field.Invalid(p.Key(string(name)), q.String(), "must be greater than zero"))...)
	}
	return errs
}

// persistentVolumeSource: exactly one source; the common ones checked as in a pod.
func persistentVolumeSource(p *field.Path, spec *corev1.PersistentVolumeSpec) field.ErrorList {
	errs := exactlyOne(p, setMembers(&spec.PersistentVolumeSource), "must specify a volume type", "may not specify more than 1 volume type")
	return validation.Join(errs,
		validation.IfSet(p.Child("hostPath"), spec.HostPath, hostPathSource),
		validation.IfSet(p.Child("nfs"), spec.NFS, nfsSource),
		validation.IfSet(p.Child("local"), spec.Local, func(p *field.Path, l corev1.LocalVolumeSource) field.ErrorList {
			return validation.Join(validation.Required(p.Child("path"), l.Path), noBacksteps(p.Child("path"), l.Path))
		}),
		validation.IfSet(p.Child("csi"), spec.CSI, func(p *field.Path, c corev1.CSIPersistentVolumeSource) field.ErrorList {
			errs := validation.Join(csiDriver(p.Child("driver"), c.Driver), validation.Required(p.Child("volumeHandle"), c.VolumeHandle))
			for _, ref := range []struct {
				name string
				ref  *corev1.SecretReference
			}{{"controllerPublishSecretRef", c.ControllerPublishSecretRef}, {"nodeStageSecretRef", c.NodeStageSecretRef},
				{"nodePublishSecretRef", c.NodePublishSecretRef}, {"controllerExpandSecretRef", c.ControllerExpandSecretRef},
				{"nodeExpandSecretRef", c.NodeExpandSecretRef}} {
				if ref.ref != nil {
					errs = append(errs, validation.Required(p.Child(ref.name, "name"), ref.ref.Name)...)
					errs = append(errs, validation.Required(p.Child(ref.name, "namespace"), ref.ref.Namespace)...)
				}
			}
			return errs
		}),
	)
}

// mountOptionAnnotation is the beta annotation that spec.mountOptions replaced.
const mountOptionAnnotation = "volume.beta.kubernetes.io/mount-options"

// mountOptions: only network and cloud disks are mounted with options; a hostPath or local
// volume is bind-mounted.
func mountOptions(pv *corev1.PersistentVolume) field.ErrorList {
	s := pv.Spec
	mounted := s.GCEPersistentDisk != nil || s.AWSElasticBlockStore != nil || s.Glusterfs != nil || s.NFS != nil ||
		s.RBD != nil || s.Quobyte != nil || s.ISCSI != nil || s.Cinder != nil || s.CephFS != nil ||
		s.AzureFile != nil || s.VsphereVolume != nil || s.AzureDisk != nil || s.PhotonPersistentDisk != nil
	_, annotated := pv.Annotations[mountOptionAnnotation]
	return validation.When(annotated && !mounted,
		field.Forbidden(metadata.Child("annotations", mountOptionAnnotation), "may not specify mount options for this volume type"))
}

func volumeMode(p *field.Path, m corev1.PersistentVolumeMode) field.ErrorList {
	return validation.OneOf(p, m, corev1.PersistentVolumeBlock, corev1.PersistentVolumeFilesystem)
}

// accessModeList: at least one known mode; ReadWriteOncePod goes alone.
func accessModeList(p *field.Path, modes []corev1.PersistentVolumeAccessMode, missing string) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(p, missing)}
	}
	var errs field.ErrorList
	for _, m := range modes {
		errs = append(errs, validation.When(!contains(accessModes, m), field.NotSupported(p, m, accessModes))...)
	}
	return append(errs, validation.When(contains(modes, corev1.ReadWriteOncePod) && len(modes) > 1,
		field.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))...)
}

// ValidatePersistentVolumeUpdate: a valid volume whose source and mode stay; its node affinity
// too, once set.
func ValidatePersistentVolumeUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	errs := validation.Join(
		validation.MetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, metadata),
		persistentVolumeSpec(pv),
	)
	if !equality.Semantic.DeepEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(specPath.Child("persistentvolumesource"), fmt.Sprintf(
			"spec.persistentvolumesource is immutable after creation\n%v", diff.Diff(validation.Internal(old.Spec.PersistentVolumeSource), validation.Internal(pv.Spec.PersistentVolumeSource)))))
	}
	errs = append(errs, validation.Immutable(field.NewPath("volumeMode"), pv.Spec.VolumeMode, old.Spec.VolumeMode)...)
	if old.Spec.NodeAffinity != nil && !equality.Semantic.DeepEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		errs = append(errs, field.Invalid(specPath.Child("nodeAffinity"), pv.Spec.NodeAffinity, "field is immutable, except for updating from beta label to GA"))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		errs = append(errs, field.Forbidden(specPath.Child("volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return errs
}

// ValidatePersistentVolumeStatusUpdate: /status changes the phase and message, which anybody
// writing status may set as it likes.
func ValidatePersistentVolumeStatusUpdate(pv, old *corev1.PersistentVolume) field.ErrorList {
	return validation.MetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, metadata)
}

// ValidatePersistentVolumeClaim is the rule list of a PersistentVolumeClaim being created.
func ValidatePersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) field.ErrorList {
	return validation.Join(
		validation.Meta(&pvc.ObjectMeta, true, validation.SubdomainName, metadata),
		ValidatePersistentVolumeClaimSpec(&pvc.Spec, specPath),
	)
}

// ValidatePersistentVolumeClaimSpec checks a claim's spec at path: in a PersistentVolumeClaim,
// an ephemeral volume, and a StatefulSet's volumeClaimTemplates.
func ValidatePersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec, path *field.Path) field.ErrorList {
	storage, hasStorage := spec.Resources.Requests[corev1.ResourceStorage]
	storagePath := path.Child("resources").Key(string(corev1.ResourceStorage))
	return validation.Join(
		accessModeList(path.Child("accessModes"), spec.AccessModes, "at least 1 access mode is required"),
		validation.Selector(path.Child("selector"), spec.Selector),
		validation.When(!hasStorage, field.Required(storagePath, "")),
		validation.When(hasStorage && storage.Sign() <= 0, field.Invalid(storagePath, storage.String(), "must be greater than zero")),
		validation.IfSet(path.Child("storageClassName"), spec.StorageClassName, func(p *field.Path, name string) field.ErrorList {
			return ifSet(p, name, validation.DNSSubdomain)
		}),
		validation.IfSet(path.Child("volumeMode"), spec.VolumeMode, volumeMode),
		dataSource(path, spec),
		validation.IfSet(path.Child("volumeAttributesClassName"), spec.VolumeAttributesClassName, func(p *field.Path, name string) field.ErrorList {
			return ifSet(p, name, validation.DNSSubdomain)
		}),
	)
}

// dataSource: what a new claim is populated from (a claim to clone, a snapshot, or a
// populator's object); dataSource and dataSourceRef say the same when both are given.
func dataSource(path *field.Path, spec *corev1.PersistentVolumeClaimSpec) field.ErrorList {
	ref := func(p *field.Path, apiGroup *string, kind, name string) field.ErrorList {
		return validation.Join(
			validation.Required(p.Child("name"), name),
			validation.Required(p.Child("kind"), kind),
			validation.When((apiGroup == nil || *apiGroup == "") && kind != "" && kind != "PersistentVolumeClaim",
				field.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup")),
			validation.IfSet(p.Child("apiGroup"), apiGroup, func(p *field.Path, g string) field.ErrorList {
				return ifSet(p, g, validation.DNSSubdomain)
			}),
		)
	}
	var errs field.ErrorList
	if ds := spec.DataSource; ds != nil {
		errs = append(errs, ref(path.Child("dataSource"), ds.APIGroup, ds.Kind, ds.Name)...)
	}
	if dr := spec.DataSourceRef; dr != nil {
		errs = append(errs, ref(path.Child("dataSourceRef"), dr.APIGroup, dr.Kind, dr.Name)...)
	}
	if ds, dr := spec.DataSource, spec.DataSourceRef; ds != nil && dr != nil {
		same := ds.Kind == dr.Kind && ds.Name == dr.Name && equality.Semantic.DeepEqual(ds.APIGroup, dr.APIGroup)
		// kube-apiserver's bad value here is a field path, which prints as {}.
		errs = append(errs, validation.When(!same, field.Invalid(path, path.Child("dataSource"), "must match dataSourceRef"))...)
	}
	return errs
}

// ValidatePersistentVolumeClaimUpdate: a valid claim whose spec stays, but for binding it to a
// volume once, setting a missing class, and, once bound, resizing and changing its volume
// attributes class. It may shrink back only while above what was actually allocated.
func ValidatePersistentVolumeClaimUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validation.Join(
		validation.MetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, metadata),
		ValidatePersistentVolumeClaimSpec(&pvc.Spec, specPath),
	)
	// What may change, taken from the new spec into a copy of the old one.
	allowed := old.Spec.DeepCopy()
	if allowed.VolumeName == "" {
		allowed.VolumeName = pvc.Spec.VolumeName
	}
	if allowed.StorageClassName == nil {
		allowed.StorageClassName = pvc.Spec.StorageClassName
	}
	if pvc.Status.Phase == corev1.ClaimBound {
		if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok && allowed.Resources.Requests != nil {
			allowed.Resources.Requests[corev1.ResourceStorage] = q
		}
		allowed.VolumeAttributesClassName = pvc.Spec.VolumeAttributesClassName
	}
	if !equality.Semantic.DeepEqual(&pvc.Spec, allowed) {
		errs = append(errs, field.Forbidden(specPath, "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+
			diff.Diff(validation.Internal(old.Spec), validation.Internal(pvc.Spec))))
	}
	size, oldSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage], old.Spec.Resources.Requests[corev1.ResourceStorage]
	if allocated := old.Status.Capacity[corev1.ResourceStorage]; size.Cmp(oldSize) < 0 && size.Cmp(allocated) <= 0 {
		errs = append(errs, field.Forbidden(specPath.Child("resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	return append(errs, validation.Immutable(field.NewPath("volumeMode"), pvc.Spec.VolumeMode, old.Spec.VolumeMode)...)
}

// resizeStatuses are the states of a volume expansion that status may report.
var resizeStatuses = []corev1.ClaimResourceStatus{
	corev1.PersistentVolumeClaimControllerResizeInProgress, corev1.PersistentVolumeClaimControllerResizeInfeasible,
	corev1.PersistentVolumeClaimNodeResizeInProgress, corev1.PersistentVolumeClaimNodeResizeInfeasible,
	corev1.PersistentVolumeClaimNodeResizePending}

// ValidatePersistentVolumeClaimStatusUpdate: capacities are quantities; the expansion of
// storage is in a known state.
func ValidatePersistentVolumeClaimStatusUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	status := field.NewPath("status")
	errs := validation.MetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, metadata)
	for _, name := range sortedNames(pvc.Status.Capacity) {
		q := pvc.Status.Capacity[name]
		errs = append(errs, validation.When(q.Value() < 0, field.Invalid(status.Child("capacity").Key(string(name)), q.Value(), "must be a valid resource quantity"))...)
	}
	for name, st := range pvc.Status.AllocatedResourceStatuses {
		// kube-apiserver reports an unknown state with the resource's name as the value.
		errs = append(errs, validation.When(!contains(resizeStatuses, st), field.NotSupported(status.Child("allocatedResourceStatuses"), name, resizeStatuses))...)
	}
	for _, name := range sortedNames(pvc.Status.AllocatedResources) {
		errs = append(errs, validation.NonNegativeQuantity(status.Child("allocatedResources").Key(string(name)), pvc.Status.AllocatedResources[name])...)
	}
	return errs
}
