package admission

import (
	"context"
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	storagev1listers "k8s.io/client-go/listers/storage/v1"
)

// kube-apiserver's names for the storage plugins.
const (
	DefaultStorageClassPluginName          = "DefaultStorageClass"
	StorageObjectInUseProtectionPluginName = "StorageObjectInUseProtection"
	PersistentVolumeClaimResizePluginName  = "PersistentVolumeClaimResize"
)

var (
	pvResource  = corev1.Resource("persistentvolumes")
	pvcResource = corev1.Resource("persistentvolumeclaims")
	vacResource = storagev1.Resource("volumeattributesclasses")
)

// DefaultStorageClass gives a new claim that names no class the cluster's default
// StorageClass, if there is one.
type DefaultStorageClass struct {
	*admission.Handler
	classes storagev1listers.StorageClassLister
}

var _ admission.MutationInterface = &DefaultStorageClass{}

// NewDefaultStorageClass returns the plugin, reading StorageClasses from classes.
func NewDefaultStorageClass(classes storagev1listers.StorageClassLister) *DefaultStorageClass {
	return &DefaultStorageClass{Handler: admission.NewHandler(admission.Create), classes: classes}
}

// Admit sets storageClassName when neither it nor the beta annotation names a class.
func (p *DefaultStorageClass) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	claim, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
	if !isResource(a, pvcResource) || !ok || claim.Spec.StorageClassName != nil {
		return nil
	}
	if _, annotated := claim.Annotations[corev1.BetaStorageClassAnnotation]; annotated {
		return nil
	}
	classes, err := p.classes.List(labels.Everything())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	// A class is the default by the annotation, or by its beta form.
	classes = slices.DeleteFunc(classes, func(c *storagev1.StorageClass) bool {
		return c.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" &&
			c.Annotations["storageclass.beta.kubernetes.io/is-default-class"] != "true"
	})
	if def := newest(classes); def != nil {
		claim.Spec.StorageClassName = &def.Name
	}
	return nil
}

// newest is the most recently created of objects, the first by name of those created at the
// same time; nil for none. (Of several classes marked default, it is the default.)
func newest[T metav1.Object](objects []T) T {
	var best T
	for i, o := range objects {
		if i == 0 {
			best = o
			continue
		}
		c, bc := o.GetCreationTimestamp(), best.GetCreationTimestamp()
		if bc.Before(&c) || (c.Equal(&bc) && o.GetName() < best.GetName()) {
			best = o
		}
	}
	return best
}

// StorageObjectInUseProtection puts the protection finalizer on every new volume, claim and
// volume attributes class. kube-controller-manager's pv-, pvc- and vac-protection controllers
// take it off once nothing uses them; the chain has none of them, so (as with kube-apiserver
// alone) a deleted volume, claim or class stays Terminating until someone removes the finalizer.
type StorageObjectInUseProtection struct {
	*admission.Handler
}

var _ admission.MutationInterface = &StorageObjectInUseProtection{}

// NewStorageObjectInUseProtection returns the plugin.
func NewStorageObjectInUseProtection() *StorageObjectInUseProtection {
	return &StorageObjectInUseProtection{Handler: admission.NewHandler(admission.Create)}
}

// Admit adds kubernetes.io/pv-protection, kubernetes.io/pvc-protection or
// kubernetes.io/vac-protection.
func (p *StorageObjectInUseProtection) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	var obj metav1.Object
	var finalizer string
	switch o := a.GetObject().(type) {
	case *corev1.PersistentVolume:
		obj, finalizer = o, "kubernetes.io/pv-protection"
	case *corev1.PersistentVolumeClaim:
		obj, finalizer = o, "kubernetes.io/pvc-protection"
	case *storagev1.VolumeAttributesClass:
		obj, finalizer = o, "kubernetes.io/vac-protection"
	}
	if obj == nil || !(isResource(a, pvResource) || isResource(a, pvcResource) || isResource(a, vacResource)) || slices.Contains(obj.GetFinalizers(), finalizer) {
		return nil
	}
	obj.SetFinalizers(append(obj.GetFinalizers(), finalizer))
	return nil
}

// PersistentVolumeClaimResize lets a claim ask for more storage only once it is bound, and only
// if its StorageClass allows volume expansion.
type PersistentVolumeClaimResize struct {
	*admission.Handler
	classes storagev1listers.StorageClassLister
}

var _ admission.ValidationInterface = &PersistentVolumeClaimResize{}

// NewPersistentVolumeClaimResize returns the plugin, reading StorageClasses from classes.
func NewPersistentVolumeClaimResize(classes storagev1listers.StorageClassLister) *PersistentVolumeClaimResize {
	return &PersistentVolumeClaimResize{Handler: admission.NewHandler(admission.Update), classes: classes}
}

// Validate refuses a claim that grows and may not.
func (p *PersistentVolumeClaimResize) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	claim, ok := a.GetObject().(*corev1.PersistentVolumeClaim)
	old, oldOK := a.GetOldObject().(*corev1.PersistentVolumeClaim)
	if !isResource(a, pvcResource) || !ok || !oldOK {
		return nil
	}
	was, is := old.Spec.Resources.Requests[corev1.ResourceStorage], claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if is.Cmp(was) <= 0 {
		return nil // shrinking is validation's to refuse
	}
	if old.Status.Phase != corev1.ClaimBound {
		return admission.NewForbidden(a, errors.New("Only bound persistent volume claims can be expanded"))
	}
	if !p.mayExpand(claim, old) {
		return admission.NewForbidden(a, errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

// mayExpand: the claim keeps naming one class, which allows volume expansion.
func (p *PersistentVolumeClaimResize) mayExpand(claim, old *corev1.PersistentVolumeClaim) bool {
	class := storageClassOf(claim)
	if class == "" || class != storageClassOf(old) {
		return false
	}
	sc, err := p.classes.Get(class)
	return err == nil && sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
}

// storageClassOf is the class a claim names: by the beta annotation, which wins, or by
// spec.storageClassName.
func storageClassOf(claim *corev1.PersistentVolumeClaim) string {
	if class, annotated := claim.Annotations[corev1.BetaStorageClassAnnotation]; annotated {
		return class
	}
	if claim.Spec.StorageClassName == nil {
		return ""
	}
	return *claim.Spec.StorageClassName
}
