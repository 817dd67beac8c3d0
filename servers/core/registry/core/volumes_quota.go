package core

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
	podvalidation "github.com/apichain/apichain/servers/core/validation/pods"
)

// persistentVolumes follows kubernetes pkg/registry/core/persistentvolume (strategy.go): a new
// volume is Pending since now; /status takes only the spec from the stored object and moves
// the phase transition time when the phase changes. The pv-protection finalizer comes from the
// StorageObjectInUseProtection admission plugin.
var persistentVolumes = &resource.Definition{
	Resource: "persistentvolumes", Singular: "persistentvolume",
	New:        func() runtime.Object { return &corev1.PersistentVolume{} },
	NewList:    func() runtime.Object { return &corev1.PersistentVolumeList{} },
	ShortNames: []string{"pv"},
	Table:      printers.PersistentVolume,
	Status:     true,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		pv := obj.(*corev1.PersistentVolume)
		now := metav1.Now()
		pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		pv, oldPv := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
		pv.Spec = oldPv.Spec
		switch {
		case oldPv.Status.Phase == pv.Status.Phase && pv.Status.LastPhaseTransitionTime == nil:
			pv.Status.LastPhaseTransitionTime = oldPv.Status.LastPhaseTransitionTime
		case oldPv.Status.Phase != pv.Status.Phase && (pv.Status.LastPhaseTransitionTime == nil || pv.Status.LastPhaseTransitionTime.Equal(oldPv.Status.LastPhaseTransitionTime)):
			now := metav1.Now()
			pv.Status.LastPhaseTransitionTime = &now
		}
	},
	Validate:             resource.Check(podvalidation.ValidatePersistentVolume),
	ValidateUpdate:       resource.CheckUpdate(podvalidation.ValidatePersistentVolumeUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(podvalidation.ValidatePersistentVolumeStatusUpdate),
}

// persistentVolumeClaims follows kubernetes pkg/registry/core/persistentvolumeclaim
// (strategy.go, with pkg/api/persistentvolumeclaim/util.go): data sources are normalized so
// that dataSource and dataSourceRef agree; /status takes only the spec from the stored object.
// Feature gates at their v1.37 defaults (CrossNamespaceVolumeDataSource and CSIVolumeHealth off).
var persistentVolumeClaims = &resource.Definition{
	Resource: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Namespaced: true,
	New:        func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
	NewList:    func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
	ShortNames: []string{"pvc"},
	Table:      printers.PersistentVolumeClaim,
	Status:     true,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		pvc := obj.(*corev1.PersistentVolumeClaim)
		dropDisabledPVCFields(&pvc.Spec, nil)
		enforceDataSourceBackwardsCompatibility(&pvc.Spec, nil)
		normalizeDataSources(&pvc.Spec)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		pvc, oldPvc := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
		dropDisabledPVCFields(&pvc.Spec, &oldPvc.Spec)
		enforceDataSourceBackwardsCompatibility(&pvc.Spec, &oldPvc.Spec)
		normalizeDataSources(&pvc.Spec)
		normalizeDataSources(&oldPvc.Spec)
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		pvc, oldPvc := obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim)
		pvc.Spec = oldPvc.Spec
		if oldPvc.Status.HealthStatus == nil { // CSIVolumeHealth is off
			pvc.Status.HealthStatus = nil
		}
	},
	Validate:             resource.Check(podvalidation.ValidatePersistentVolumeClaim),
	ValidateUpdate:       resource.CheckUpdate(podvalidation.ValidatePersistentVolumeClaimUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(podvalidation.ValidatePersistentVolumeClaimStatusUpdate),
}

// dropDisabledPVCFields drops a cross-namespace dataSourceRef (CrossNamespaceVolumeDataSource is
// alpha, off) unless the stored claim already has a dataSourceRef.
func dropDisabledPVCFields(spec, oldSpec *corev1.PersistentVolumeClaimSpec) {
	if spec.DataSourceRef != nil && spec.DataSourceRef.Namespace != nil && len(*spec.DataSourceRef.Namespace) != 0 {
		if oldSpec == nil || oldSpec.DataSourceRef == nil {
			spec.DataSourceRef = nil
		}
	}
}

// enforceDataSourceBackwardsCompatibility drops a dataSource that is neither a claim nor a
// snapshot when no dataSourceRef is given, as old API servers did.
func enforceDataSourceBackwardsCompatibility(spec, oldSpec *corev1.PersistentVolumeClaimSpec) {
	if oldSpec != nil && (oldSpec.DataSource != nil || oldSpec.DataSourceRef != nil) {
		return
	}
	if spec.DataSourceRef != nil {
		return
	}
	if ds := spec.DataSource; ds != nil {
		apiGroup := ""
		if ds.APIGroup != nil {
			apiGroup = *ds.APIGroup
		}
		if (ds.Kind == "PersistentVolumeClaim" && apiGroup == "") || (ds.Kind == "VolumeSnapshot" && apiGroup == "snapshot.storage.k8s.io") {
			return
		}
	}
	spec.DataSource = nil
}

// normalizeDataSources fills whichever of dataSource and dataSourceRef is missing from the other.
func normalizeDataSources(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.DataSource != nil && spec.DataSourceRef == nil {
		spec.DataSourceRef = &corev1.TypedObjectReference{Kind: spec.DataSource.Kind, Name: spec.DataSource.Name}
		if spec.DataSource.APIGroup != nil {
			apiGroup := *spec.DataSource.APIGroup
			spec.DataSourceRef.APIGroup = &apiGroup
		}
	} else if spec.DataSourceRef != nil && spec.DataSource == nil {
		if spec.DataSourceRef.Namespace == nil || len(*spec.DataSourceRef.Namespace) == 0 {
			spec.DataSource = &corev1.TypedLocalObjectReference{Kind: spec.DataSourceRef.Kind, Name: spec.DataSourceRef.Name}
			if spec.DataSourceRef.APIGroup != nil {
				apiGroup := *spec.DataSourceRef.APIGroup
				spec.DataSource.APIGroup = &apiGroup
			}
		}
	}
}

// limitRanges follows kubernetes pkg/registry/core/limitrange: a LimitRange without a name is
// given a UUID.
var limitRanges = &resource.Definition{
	Resource: "limitranges", Singular: "limitrange", Namespaced: true,
	New:        func() runtime.Object { return &corev1.LimitRange{} },
	NewList:    func() runtime.Object { return &corev1.LimitRangeList{} },
	ShortNames: []string{"limits"},
	Table:      printers.LimitRange,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		if lr := obj.(*corev1.LimitRange); len(lr.Name) == 0 {
			lr.Name = string(uuid.NewUUID())
		}
	},
	Validate:       resource.Check(corevalidation.ValidateLimitRange),
	ValidateUpdate: resource.CheckUpdate(corevalidation.ValidateLimitRangeUpdate),
}

// resourceQuotas follows kubernetes pkg/registry/core/resourcequota: /status takes only the
// spec from the stored object. Nothing enforces quota (the ResourceQuota admission plugin and
// controller are not part of the chain), so status is whatever its writers put there.
var resourceQuotas = &resource.Definition{
	Resource: "resourcequotas", Singular: "resourcequota", Namespaced: true,
	New:        func() runtime.Object { return &corev1.ResourceQuota{} },
	NewList:    func() runtime.Object { return &corev1.ResourceQuotaList{} },
	ShortNames: []string{"quota"},
	Table:      printers.ResourceQuota,
	Status:     true,
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*corev1.ResourceQuota).Spec = old.(*corev1.ResourceQuota).Spec
	},
	Validate:             resource.Check(corevalidation.ValidateResourceQuota),
	ValidateUpdate:       resource.CheckUpdate(corevalidation.ValidateResourceQuotaUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(corevalidation.ValidateResourceQuotaStatusUpdate),
}
