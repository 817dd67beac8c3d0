package printers

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// Volumes, claims, storage and volume attributes classes, and what CSI drivers register.

var PersistentVolume = define("persistentvolumes", func(pv *corev1.PersistentVolume) []any {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	capacity := pv.Spec.Capacity[corev1.ResourceStorage]
	return []any{pv.Name, capacity.String(), accessModes(pv.Spec.AccessModes), pv.Spec.PersistentVolumeReclaimPolicy,
		orTerminating(pv, pv.Status.Phase), claim, storageClass(pv.Annotations, pv.Spec.StorageClassName),
		ptr.Deref(pv.Spec.VolumeAttributesClassName, "<unset>"), pv.Status.Reason, age(pv.CreationTimestamp),
		ptr.Deref(pv.Spec.VolumeMode, "<unset>")}
})

// PersistentVolumeClaim shows capacity and access modes once the claim is bound.
var PersistentVolumeClaim = define("persistentvolumeclaims", func(c *corev1.PersistentVolumeClaim) []any {
	capacity, modes := "", ""
	if c.Spec.VolumeName != "" {
		storage := c.Status.Capacity[corev1.ResourceStorage]
		capacity, modes = storage.String(), accessModes(c.Status.AccessModes)
	}
	return []any{c.Name, orTerminating(c, c.Status.Phase), c.Spec.VolumeName, capacity, modes,
		storageClass(c.Annotations, ptr.Deref(c.Spec.StorageClassName, "")),
		ptr.Deref(c.Spec.VolumeAttributesClassName, "<unset>"), age(c.CreationTimestamp),
		ptr.Deref(c.Spec.VolumeMode, "<unset>")}
})

// accessModes abbreviates access modes, always in this order: RWO,ROX,RWX,RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var short []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		if slices.Contains(modes, m.mode) {
			short = append(short, m.short)
		}
	}
	return strings.Join(short, ",")
}

// storageClass is the class of a volume or claim: the old beta annotation
// wins over the field when present.
func storageClass(annotations map[string]string, field string) string {
	if class, ok := annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	return field
}

// StorageClass marks the default class, in a list only, with " (default)".
var StorageClass = define("storageclasses.storage.k8s.io", func(sc *storagev1.StorageClass) []any {
	return []any{sc.Name, sc.Provisioner, ptr.Deref(sc.ReclaimPolicy, corev1.PersistentVolumeReclaimDelete),
		ptr.Deref(sc.VolumeBindingMode, storagev1.VolumeBindingImmediate), ptr.Deref(sc.AllowVolumeExpansion, false),
		age(sc.CreationTimestamp)}
}).withListMarks(markDefaultStorageClass)

// markDefaultStorageClass marks the class new volumes get when several claim
// to be the default: the newest, then the first by name.
func markDefaultStorageClass(list runtime.Object, rows []metav1.TableRow) {
	classes, ok := list.(*storagev1.StorageClassList)
	if !ok || len(classes.Items) != len(rows) {
		return
	}
	chosen := -1
	for i, sc := range classes.Items {
		if !isDefaultClass(sc.Annotations) {
			continue
		}
		if chosen < 0 {
			chosen = i
			continue
		}
		current := classes.Items[chosen]
		newer := sc.CreationTimestamp.After(current.CreationTimestamp.Time)
		if newer || (sc.CreationTimestamp.Equal(&current.CreationTimestamp) && sc.Name < current.Name) {
			chosen = i
		}
	}
	if chosen >= 0 {
		rows[chosen].Cells[0] = classes.Items[chosen].Name + " (default)"
	}
}

func isDefaultClass(annotations map[string]string) bool {
	return annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// VolumeAttributesClass marks a class annotated as the default with " (default)" (an alpha
// annotation kube-apiserver's printer still reads).
var VolumeAttributesClass = define("volumeattributesclasses.storage.k8s.io", func(c *storagev1.VolumeAttributesClass) []any {
	name := c.Name
	if c.Annotations["volumeattributesclass.alpha.kubernetes.io/is-default-class"] == "true" {
		name += " (default)"
	}
	return []any{name, c.DriverName, age(c.CreationTimestamp)}
})

// CSIDriver shows the audiences of the tokens a driver asks for, or <unset>.
var CSIDriver = define("csidrivers.storage.k8s.io", func(d *storagev1.CSIDriver) []any {
	s := d.Spec
	tokenRequests := "<unset>"
	if s.TokenRequests != nil {
		tokenRequests = joined(s.TokenRequests, ",", func(r storagev1.TokenRequest) string { return r.Audience })
	}
	modes := cmp.Or(joined(s.VolumeLifecycleModes, ",", func(m storagev1.VolumeLifecycleMode) string { return string(m) }), "<none>")
	return []any{d.Name, ptr.Deref(s.AttachRequired, true), ptr.Deref(s.PodInfoOnMount, false), ptr.Deref(s.StorageCapacity, false),
		tokenRequests, ptr.Deref(s.RequiresRepublish, false), modes, age(d.CreationTimestamp)}
})

// CSINode counts the drivers registered on the node.
var CSINode = define("csinodes.storage.k8s.io", func(n *storagev1.CSINode) []any {
	return []any{n.Name, len(n.Spec.Drivers), age(n.CreationTimestamp)}
})

// CSIStorageCapacity has no Age column in kube-apiserver's printer.
var CSIStorageCapacity = define("csistoragecapacities.storage.k8s.io", func(c *storagev1.CSIStorageCapacity) []any {
	capacity := "<unset>"
	if c.Capacity != nil {
		capacity = c.Capacity.String()
	}
	return []any{c.Name, c.StorageClassName, capacity}
})

var VolumeAttachment = define("volumeattachments.storage.k8s.io", func(va *storagev1.VolumeAttachment) []any {
	return []any{va.Name, va.Spec.Attacher, ptr.Deref(va.Spec.Source.PersistentVolumeName, ""), va.Spec.NodeName,
		va.Status.Attached, age(va.CreationTimestamp)}
})
