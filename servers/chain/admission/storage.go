package admission

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/client-go/informers"
	storagev1listers "k8s.io/client-go/listers/storage/v1"
)

// Names of the storage plugins, as kube-apiserver has them.
const (
	DefaultStorageClassPluginName          = "DefaultStorageClass"
	StorageObjectInUseProtectionPluginName = "StorageObjectInUseProtection"
	PersistentVolumeClaimResizePluginName  = "PersistentVolumeClaimResize"
)

// The storage annotations and finalizers (kubernetes pkg/volume/util).
const (
	isDefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	pvProtectionFinalizer               = "kubernetes.io/pv-protection"
	pvcProtectionFinalizer              = "kubernetes.io/pvc-protection"
)

var (
	pvResource  = corev1.Resource("persistentvolumes")
	pvcResource = corev1.Resource("persistentvolumeclaims")
)

// DefaultStorageClass gives a new claim without a class the default StorageClass (kubernetes
// plugin/pkg/admission/storage/storageclass/setdefault/admission.go).
type DefaultStorageClass struct {
	*admission.Handler
	lister storagev1listers.StorageClassLister
}

var (
	_ admission.MutationInterface                  = &DefaultStorageClass{}
	_ initializer.WantsExternalKubeInformerFactory = &DefaultStorageClass{}
)

// NewDefaultStorageClass creates the plugin.
func NewDefaultStorageClass() *DefaultStorageClass {
	return &DefaultStorageClass{Handler: admission.NewHandler(admission.Create)}
}

// SetExternalKubeInformerFactory implements initializer.WantsExternalKubeInformerFactory.
func (p *DefaultStorageClass) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	informer := f.Storage().V1().StorageClasses()
	p.lister = informer.Lister()
	p.SetReadyFunc(informer.Informer().HasSynced)
}

// ValidateInitialization implements admission.InitializationValidator.
func (p *DefaultStorageClass) ValidateInitialization() error {
	if p.lister == nil {
		return fmt.Errorf("missing lister")
	}
	return nil
}

// Admit sets the claim's storageClassName when the user asked for no class.
func (p *DefaultStorageClass) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != pvcResource || len(a.GetSubresource()) != 0 {
		return nil
	}
	pvc, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	if _, found := pvc.Annotations[corev1.BetaStorageClassAnnotation]; found || pvc.Spec.StorageClassName != nil {
		return nil // the user asked for a class
	}
	def, err := getDefaultStorageClass(p.lister)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if def != nil {
		pvc.Spec.StorageClassName = &def.Name
	}
	return nil
}

// getDefaultStorageClass is the newest class marked default, the first by name among equals
// (kubernetes pkg/volume/util/storageclass.go GetDefaultClass).
func getDefaultStorageClass(lister storagev1listers.StorageClassLister) (*storagev1.StorageClass, error) {
	list, err := lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var defaults []*storagev1.StorageClass
	for _, class := range list {
		if class.Annotations[isDefaultStorageClassAnnotation] == "true" || class.Annotations[betaIsDefaultStorageClassAnnotation] == "true" {
			defaults = append(defaults, class)
		}
	}
	return newest(defaults, func(c *storagev1.StorageClass) metav1.ObjectMeta { return c.ObjectMeta }), nil
}

// newest sorts by creation time, newest first, then by name, and returns the first.
func newest[T any](items []*T, meta func(*T) metav1.ObjectMeta) *T {
	if len(items) == 0 {
		return nil
	}
	sort.Slice(items, func(i, j int) bool {
		mi, mj := meta(items[i]), meta(items[j])
		if mi.CreationTimestamp.UnixNano() == mj.CreationTimestamp.UnixNano() {
			return mi.Name < mj.Name
		}
		return mi.CreationTimestamp.UnixNano() > mj.CreationTimestamp.UnixNano()
	})
	return items[0]
}

// StorageObjectInUseProtection adds the protection finalizer to every new volume and claim
// (kubernetes plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go). In a
// cluster, kube-controller-manager's pv- and pvc-protection controllers remove it once the
// object is no longer in use; without them (as with kube-apiserver alone) a deleted volume or
// claim stays Terminating until someone removes the finalizer. VolumeAttributesClasses are
// not served by the chain.
type StorageObjectInUseProtection struct {
	*admission.Handler
}

var _ admission.MutationInterface = &StorageObjectInUseProtection{}

// NewStorageObjectInUseProtection creates the plugin.
func NewStorageObjectInUseProtection() *StorageObjectInUseProtection {
	return &StorageObjectInUseProtection{Handler: admission.NewHandler(admission.Create)}
}

// Admit adds the finalizer.
func (p *StorageObjectInUseProtection) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if len(a.GetSubresource()) != 0 {
		return nil
	}
	var meta *metav1.ObjectMeta
	var finalizer string
	switch a.GetResource().GroupResource() {
	case pvResource:
		pv, ok := a.GetObject().(*corev1.PersistentVolume)
		if !ok {
			return nil
		}
		meta, finalizer = &pv.ObjectMeta, pvProtectionFinalizer
	case pvcResource:
		pvc, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
		if !ok {
			return nil
		}
		meta, finalizer = &pvc.ObjectMeta, pvcProtectionFinalizer
	default:
		return nil
	}
	for _, f := range meta.Finalizers {
		if f == finalizer {
			return nil // already present
		}
	}
	meta.Finalizers = append(meta.Finalizers, finalizer)
	return nil
}

// PersistentVolumeClaimResize lets a claim grow only when it is bound and its StorageClass
// allows volume expansion (kubernetes plugin/pkg/admission/storage/persistentvolume/resize/admission.go).
type PersistentVolumeClaimResize struct {
	*admission.Handler
	scLister storagev1listers.StorageClassLister
}

var (
	_ admission.ValidationInterface                = &PersistentVolumeClaimResize{}
	_ initializer.WantsExternalKubeInformerFactory = &PersistentVolumeClaimResize{}
)

// NewPersistentVolumeClaimResize creates the plugin.
func NewPersistentVolumeClaimResize() *PersistentVolumeClaimResize {
	return &PersistentVolumeClaimResize{Handler: admission.NewHandler(admission.Update)}
}

// SetExternalKubeInformerFactory implements initializer.WantsExternalKubeInformerFactory.
func (p *PersistentVolumeClaimResize) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	informer := f.Storage().V1().StorageClasses()
	p.scLister = informer.Lister()
	p.SetReadyFunc(informer.Informer().HasSynced)
}

// ValidateInitialization implements admission.InitializationValidator.
func (p *PersistentVolumeClaimResize) ValidateInitialization() error {
	if p.scLister == nil {
		return fmt.Errorf("missing storageclass lister")
	}
	return nil
}

// Validate rejects growing a claim that may not grow.
func (p *PersistentVolumeClaimResize) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != pvcResource || len(a.GetSubresource()) != 0 {
		return nil
	}
	pvc, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	oldPvc, ok := a.GetOldObject().(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	oldSize := oldPvc.Spec.Resources.Requests[corev1.ResourceStorage]
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return nil
	}
	if oldPvc.Status.Phase != corev1.ClaimBound {
		return admission.NewForbidden(a, fmt.Errorf("Only bound persistent volume claims can be expanded"))
	}
	if !p.allowResize(pvc, oldPvc) {
		return admission.NewForbidden(a, fmt.Errorf("only dynamically provisioned pvc can be resized and "+
			"the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

func (p *PersistentVolumeClaimResize) allowResize(pvc, oldPvc *corev1.PersistentVolumeClaim) bool {
	class, oldClass := claimClass(pvc), claimClass(oldPvc)
	if class == "" || oldClass == "" || class != oldClass {
		return false
	}
	sc, err := p.scLister.Get(class)
	if err != nil {
		return false
	}
	return sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
}

// claimClass follows kubernetes pkg/apis/core/helper GetPersistentVolumeClaimClass: the beta
// annotation first, then spec.storageClassName.
func claimClass(claim *corev1.PersistentVolumeClaim) string {
	if class, found := claim.Annotations[corev1.BetaStorageClassAnnotation]; found {
		return class
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}
