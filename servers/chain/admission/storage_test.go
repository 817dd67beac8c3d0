package admission

// Ported from kubernetes v1.37.2 plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go,
// storage/storageobjectinuseprotection/admission_test.go and
// storage/persistentvolume/resize/admission_test.go, on the v1 types.

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

func storageClassNamed(name string, created time.Time, annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, CreationTimestamp: metav1.NewTime(created)}, Provisioner: "example.com/p"}
}

func TestDefaultStorageClass(t *testing.T) {
	now := time.Now()
	isDefault := map[string]string{isDefaultStorageClassAnnotation: "true"}
	betaDefault := map[string]string{betaIsDefaultStorageClassAnnotation: "true"}
	cases := []struct {
		name      string
		classes   []*storagev1.StorageClass
		claim     *corev1.PersistentVolumeClaim
		wantClass *string
	}{
		{"no default, no modification of PVCs", []*storagev1.StorageClass{storageClassNamed("a", now, nil)}, &corev1.PersistentVolumeClaim{}, nil},
		{"one default, modify PVC with class unset", []*storagev1.StorageClass{storageClassNamed("default1", now, isDefault)}, &corev1.PersistentVolumeClaim{}, ptr.To("default1")},
		{"one beta default", []*storagev1.StorageClass{storageClassNamed("beta", now, betaDefault)}, &corev1.PersistentVolumeClaim{}, ptr.To("beta")},
		{"one default, no modification of PVC with class set", []*storagev1.StorageClass{storageClassNamed("default1", now, isDefault)},
			&corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("foo")}}, ptr.To("foo")},
		{"one default, no modification of PVC with class set to empty", []*storagev1.StorageClass{storageClassNamed("default1", now, isDefault)},
			&corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("")}}, ptr.To("")},
		{"one default, no modification of PVC with the beta annotation", []*storagev1.StorageClass{storageClassNamed("default1", now, isDefault)},
			&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.BetaStorageClassAnnotation: "x"}}}, nil},
		{"two defaults, the newest wins", []*storagev1.StorageClass{storageClassNamed("old", now.Add(-time.Hour), isDefault), storageClassNamed("new", now, isDefault)},
			&corev1.PersistentVolumeClaim{}, ptr.To("new")},
		{"two defaults of the same age, the first name wins", []*storagev1.StorageClass{storageClassNamed("b", now, isDefault), storageClassNamed("a", now, isDefault)},
			&corev1.PersistentVolumeClaim{}, ptr.To("a")},
	}
	for _, tc := range cases {
		p := NewDefaultStorageClass()
		f := newInformers()
		p.SetExternalKubeInformerFactory(f)
		for _, c := range tc.classes {
			_ = f.Storage().V1().StorageClasses().Informer().GetStore().Add(c)
		}
		if err := admit(t, p, attrs(tc.claim, nil, pvcResource, "PersistentVolumeClaim", "ns", "claim", "", admission.Create, nil)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := tc.claim.Spec.StorageClassName
		if (got == nil) != (tc.wantClass == nil) || (got != nil && *got != *tc.wantClass) {
			t.Errorf("%s: class %v, want %v", tc.name, ptr.Deref(got, "<nil>"), ptr.Deref(tc.wantClass, "<nil>"))
		}
	}
}

func TestStorageObjectInUseProtection(t *testing.T) {
	p := NewStorageObjectInUseProtection()
	claim := &corev1.PersistentVolumeClaim{}
	volume := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{pvProtectionFinalizer}}}
	for _, a := range []admission.Attributes{
		attrs(claim, nil, pvcResource, "PersistentVolumeClaim", "ns", "claim", "", admission.Create, nil),
		attrs(volume, nil, pvResource, "PersistentVolume", "", "pv", "", admission.Create, nil),
	} {
		if err := admit(t, p, a); err != nil {
			t.Fatal(err)
		}
	}
	if len(claim.Finalizers) != 1 || claim.Finalizers[0] != pvcProtectionFinalizer {
		t.Errorf("claim finalizers %v", claim.Finalizers)
	}
	if len(volume.Finalizers) != 1 {
		t.Errorf("volume finalizers %v: the finalizer is added once", volume.Finalizers)
	}
}

func TestPersistentVolumeClaimResize(t *testing.T) {
	claim := func(class, size string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(class), VolumeName: "volume",
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: phase},
		}
	}
	expandable := storageClassNamed("gold", time.Now(), nil)
	expandable.AllowVolumeExpansion = ptr.To(true)
	fixed := storageClassNamed("silver", time.Now(), nil)
	cases := []struct {
		name     string
		old, new *corev1.PersistentVolumeClaim
		want     string
	}{
		{"pvc-resize, update, no error", claim("gold", "1Gi", corev1.ClaimBound), claim("gold", "2Gi", corev1.ClaimBound), ""},
		{"shrinking is not this plugin's business", claim("silver", "2Gi", corev1.ClaimBound), claim("silver", "1Gi", corev1.ClaimBound), ""},
		{"pvc-resize, update, error on unbound claim", claim("gold", "1Gi", corev1.ClaimPending), claim("gold", "2Gi", corev1.ClaimPending),
			`persistentvolumeclaims "claim" is forbidden: Only bound persistent volume claims can be expanded`},
		{"pvc-resize, update, error on class without expansion", claim("silver", "1Gi", corev1.ClaimBound), claim("silver", "2Gi", corev1.ClaimBound),
			`persistentvolumeclaims "claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`},
	}
	for _, tc := range cases {
		p := NewPersistentVolumeClaimResize()
		f := newInformers()
		p.SetExternalKubeInformerFactory(f)
		_ = f.Storage().V1().StorageClasses().Informer().GetStore().Add(expandable)
		_ = f.Storage().V1().StorageClasses().Informer().GetStore().Add(fixed)
		err := validate(t, p, attrs(tc.new, tc.old, pvcResource, "PersistentVolumeClaim", "ns", "claim", "", admission.Update, nil))
		if got := errString(err); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}
