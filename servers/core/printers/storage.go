// Follows kubernetes pkg/printers/internalversion/printers.go
// (printStorageClass, printStorageClassList, getEffectiveDefaultStorageClass
// and the column definitions) as of kube-apiserver v1.37, on the storage/v1
// types, with IsDefaultAnnotation of pkg/apis/storage/util. As upstream, a
// single StorageClass is printed without " (default)"; in a list the
// effective default is marked (see decorateListRows in table.go).

package printers

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// isDefaultStorageClassAnnotation represents a StorageClass annotation that
	// marks a class as the default StorageClass
	isDefaultStorageClassAnnotation = "storageclass.kubernetes.io/is-default-class"

	// betaIsDefaultStorageClassAnnotation is the beta version of isDefaultStorageClassAnnotation.
	betaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// StorageClass prints storage/v1 StorageClasses.
var StorageClass = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Provisioner", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["provisioner"]},
		{Name: "ReclaimPolicy", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["reclaimPolicy"]},
		{Name: "VolumeBindingMode", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["volumeBindingMode"]},
		{Name: "AllowVolumeExpansion", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["allowVolumeExpansion"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *storagev1.StorageClass) ([]interface{}, error) {
		name := obj.Name
		provtype := obj.Provisioner
		reclaimPolicy := string(corev1.PersistentVolumeReclaimDelete)
		if obj.ReclaimPolicy != nil {
			reclaimPolicy = string(*obj.ReclaimPolicy)
		}

		volumeBindingMode := string(storagev1.VolumeBindingImmediate)
		if obj.VolumeBindingMode != nil {
			volumeBindingMode = string(*obj.VolumeBindingMode)
		}

		allowVolumeExpansion := false
		if obj.AllowVolumeExpansion != nil {
			allowVolumeExpansion = *obj.AllowVolumeExpansion
		}

		return []interface{}{name, provtype, reclaimPolicy, volumeBindingMode, allowVolumeExpansion,
			translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// getEffectiveDefaultStorageClass returns the name of the effective default StorageClass.
// When multiple StorageClasses have the default annotation, the most recently created one
// is the effective default. If timestamps are equal, the one with alphabetically first name wins.
func getEffectiveDefaultStorageClass(items []storagev1.StorageClass) string {
	var effectiveDefault *storagev1.StorageClass
	for i := range items {
		if isDefaultAnnotation(items[i].ObjectMeta) {
			if effectiveDefault == nil {
				effectiveDefault = &items[i]
			} else if items[i].CreationTimestamp.After(effectiveDefault.CreationTimestamp.Time) {
				effectiveDefault = &items[i]
			} else if items[i].CreationTimestamp.Equal(&effectiveDefault.CreationTimestamp) && items[i].Name < effectiveDefault.Name {
				effectiveDefault = &items[i]
			}
		}
	}
	if effectiveDefault != nil {
		return effectiveDefault.Name
	}
	return ""
}

// isDefaultAnnotation returns a boolean if the default storage class
// annotation is set
func isDefaultAnnotation(obj metav1.ObjectMeta) bool {
	if obj.Annotations[isDefaultStorageClassAnnotation] == "true" {
		return true
	}
	if obj.Annotations[betaIsDefaultStorageClassAnnotation] == "true" {
		return true
	}

	return false
}
