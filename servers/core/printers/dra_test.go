package printers

import (
	"reflect"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// TestNewGroupCells prints the kinds of resource.k8s.io, storagemigration.k8s.io and the
// newer certificates.k8s.io kinds in the states their computed cells tell apart.
func TestNewGroupCells(t *testing.T) {
	deleted := metav1.Now()
	allocated := &resourcev1.AllocationResult{}
	claim := func(deletion *metav1.Time, allocation *resourcev1.AllocationResult, reservedFor ...resourcev1.ResourceClaimConsumerReference) *resourcev1.ResourceClaim {
		return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", DeletionTimestamp: deletion},
			Status: resourcev1.ResourceClaimStatus{Allocation: allocation, ReservedFor: reservedFor}}
	}
	pod := resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: "p", UID: "u"}
	condition := func(t string, s metav1.ConditionStatus) metav1.Condition { return metav1.Condition{Type: t, Status: s} }
	long := metav1.NewTime(time.Now().Add(-3 * time.Hour))

	for _, tc := range []struct {
		name    string
		printer Printer
		obj     runtime.Object
		want    []any
	}{
		{"pending claim", ResourceClaim, claim(nil, nil), []any{"c", "pending", "<unknown>"}},
		{"allocated claim", ResourceClaim, claim(nil, allocated), []any{"c", "allocated", "<unknown>"}},
		{"claim in use", ResourceClaim, claim(nil, allocated, pod), []any{"c", "allocated,reserved", "<unknown>"}},
		{"claim being deleted", ResourceClaim, claim(&deleted, nil), []any{"c", "deleted", "<unknown>"}},
		{"claim deleted while in use", ResourceClaim, claim(&deleted, allocated, pod), []any{"c", "deleted,allocated,reserved", "<unknown>"}},
		{"slice of all nodes", ResourceSlice, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "p"}, AllNodes: ptr.To(true)}},
			[]any{"s", "", "gpu.example.com", "p", "<unknown>"}},
		{"slice of one node", ResourceSlice, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "p"}, NodeName: ptr.To("n1")}},
			[]any{"s", "n1", "gpu.example.com", "p", "<unknown>"}},
		{"taint rule", DeviceTaintRule, &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"},
			Spec: resourcev1.DeviceTaintRuleSpec{Taint: resourcev1.DeviceTaint{Key: "example.com/broken", Value: "yes", Effect: resourcev1.DeviceTaintEffectNoExecute, TimeAdded: &long}}},
			[]any{"r", "example.com/broken", "yes", "NoExecute", "3h", "<unknown>"}},
		{"migration not started", StorageVersionMigration, &storagemigrationv1.StorageVersionMigration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Spec: storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}}},
			[]any{"m", "deployments.apps", "Unknown"}},
		{"migration succeeded", StorageVersionMigration, &storagemigrationv1.StorageVersionMigration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Spec: storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Resource: "secrets"}},
			Status: storagemigrationv1.StorageVersionMigrationStatus{Conditions: []metav1.Condition{
				condition("Running", metav1.ConditionFalse), condition("Succeeded", metav1.ConditionTrue)}}},
			[]any{"m", "secrets", "Succeeded"}},
		{"trust bundle without signer", ClusterTrustBundle, &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "b"}},
			[]any{"b", "<none>"}},
		{"pending pod certificate", PodCertificateRequest, &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Name: "r"},
			Spec: certificatesv1.PodCertificateRequestSpec{PodName: "p", ServiceAccountName: "sa", NodeName: "n1", SignerName: "example.com/s",
				UnverifiedUserAnnotations: map[string]string{"example.com/b": "2", "example.com/a": "1"}}},
			[]any{"r", "p", "sa", "n1", "example.com/s", "Pending", "example.com/a=1,example.com/b=2"}},
		{"issued pod certificate", PodCertificateRequest, &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Name: "r"},
			Status: certificatesv1.PodCertificateRequestStatus{Conditions: []metav1.Condition{condition("Issued", metav1.ConditionTrue)}}},
			[]any{"r", "", "", "", "", "Issued", "<none>"}},
	} {
		got, err := tc.printer.Row(tc.obj)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got  %#v\n want %#v", tc.name, got, tc.want)
		}
	}
}
