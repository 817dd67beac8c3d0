package admission

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	storagev1listers "k8s.io/client-go/listers/storage/v1"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// storageClass is a class created at t0+age; annotation, if set, marks it default.
func storageClass(name string, age time.Duration, annotation string, expandable bool) *storagev1.StorageClass {
	c := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(age))},
		Provisioner: "csi.example.com", AllowVolumeExpansion: ptr.To(expandable)}
	if annotation != "" {
		c.Annotations = map[string]string{annotation: "true"}
	}
	return c
}

func storageClasses(classes ...*storagev1.StorageClass) storagev1listers.StorageClassLister {
	return storagev1listers.NewStorageClassLister(indexer(classes...))
}

const (
	defaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// TestDefaultStorageClass: which class a new claim gets.
func TestDefaultStorageClass(t *testing.T) {
	fast := storageClass("fast", 0, defaultAnnotation, false)
	for _, tc := range []struct {
		name    string
		classes []*storagev1.StorageClass
		claim   corev1.PersistentVolumeClaim
		want    *string
	}{
		{name: "no default", classes: []*storagev1.StorageClass{storageClass("slow", 0, "", false)}},
		{name: "the default", classes: []*storagev1.StorageClass{fast}, want: ptr.To("fast")},
		{name: "the default by the beta annotation", classes: []*storagev1.StorageClass{storageClass("old", 0, betaDefaultAnnotation, false)}, want: ptr.To("old")},
		{name: "two defaults: the newer", classes: []*storagev1.StorageClass{fast, storageClass("faster", time.Minute, defaultAnnotation, false)}, want: ptr.To("faster")},
		{name: "two defaults of one age: the first name", classes: []*storagev1.StorageClass{fast, storageClass("east", 0, defaultAnnotation, false)}, want: ptr.To("east")},
		{name: "a class named", classes: []*storagev1.StorageClass{fast},
			claim: corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("slow")}}, want: ptr.To("slow")},
		{name: "no class asked for, by the empty name", classes: []*storagev1.StorageClass{fast},
			claim: corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("")}}, want: ptr.To("")},
		{name: "a class named by the beta annotation", classes: []*storagev1.StorageClass{fast},
			claim: corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.BetaStorageClassAnnotation: "slow"}}}},
	} {
		claim := tc.claim.DeepCopy()
		if err := admit(t, NewDefaultStorageClass(storageClasses(tc.classes...)), attrs(claim, nil, pvcResource, "PersistentVolumeClaim", "ns", "data", "", admission.Create, nil)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := claim.Spec.StorageClassName; ptr.Deref(got, "<none>") != ptr.Deref(tc.want, "<none>") {
			t.Errorf("%s: class %s, want %s", tc.name, ptr.Deref(got, "<none>"), ptr.Deref(tc.want, "<none>"))
		}
	}
}

// TestStorageObjectInUseProtection: one finalizer on each new volume, claim and volume
// attributes class.
func TestStorageObjectInUseProtection(t *testing.T) {
	claim := &corev1.PersistentVolumeClaim{}
	volume := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{"kubernetes.io/pv-protection"}}}
	class := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{"example.com/mine"}}}
	p := NewStorageObjectInUseProtection()
	for _, a := range []admission.Attributes{
		attrs(claim, nil, pvcResource, "PersistentVolumeClaim", "ns", "data", "", admission.Create, nil),
		attrs(volume, nil, pvResource, "PersistentVolume", "", "pv-1", "", admission.Create, nil),
		attrs(class, nil, vacResource, "VolumeAttributesClass", "", "gold", "", admission.Create, nil),
	} {
		if err := admit(t, p, a); err != nil {
			t.Fatal(err)
		}
	}
	if len(claim.Finalizers) != 1 || claim.Finalizers[0] != "kubernetes.io/pvc-protection" {
		t.Errorf("claim finalizers %v", claim.Finalizers)
	}
	if len(volume.Finalizers) != 1 {
		t.Errorf("volume finalizers %v, want the one it had", volume.Finalizers)
	}
	if len(class.Finalizers) != 2 || class.Finalizers[1] != "kubernetes.io/vac-protection" {
		t.Errorf("volume attributes class finalizers %v", class.Finalizers)
	}
}

// TestPersistentVolumeClaimResize: which claims may grow.
func TestPersistentVolumeClaimResize(t *testing.T) {
	classes := storageClasses(storageClass("elastic", 0, "", true), storageClass("rigid", 0, "", false))
	claim := func(class, size string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(class), VolumeName: "pv-1",
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: phase},
		}
	}
	const notExpandable = `persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
	for _, tc := range []struct {
		name     string
		old, new *corev1.PersistentVolumeClaim
		want     string
	}{
		{"bound, expandable class", claim("elastic", "10Gi", corev1.ClaimBound), claim("elastic", "20Gi", corev1.ClaimBound), ""},
		{"the same size", claim("rigid", "10Gi", corev1.ClaimBound), claim("rigid", "10Gi", corev1.ClaimBound), ""},
		{"smaller: validation's to refuse", claim("rigid", "10Gi", corev1.ClaimBound), claim("rigid", "5Gi", corev1.ClaimBound), ""},
		{"pending", claim("elastic", "10Gi", corev1.ClaimPending), claim("elastic", "20Gi", corev1.ClaimPending),
			`persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded`},
		{"class without expansion", claim("rigid", "10Gi", corev1.ClaimBound), claim("rigid", "20Gi", corev1.ClaimBound), notExpandable},
		{"class that does not exist", claim("gone", "10Gi", corev1.ClaimBound), claim("gone", "20Gi", corev1.ClaimBound), notExpandable},
		{"class changed", claim("rigid", "10Gi", corev1.ClaimBound), claim("elastic", "20Gi", corev1.ClaimBound), notExpandable},
	} {
		err := validate(t, NewPersistentVolumeClaimResize(classes), attrs(tc.new, tc.old, pvcResource, "PersistentVolumeClaim", "ns", "data", "", admission.Update, nil))
		if errString(err) != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, errString(err), tc.want)
		}
	}
}
