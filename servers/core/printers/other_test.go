package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestHPACells follows cases of upstream's TestPrintHPA.
func TestHPACells(t *testing.T) {
	minReplicas := int32(2)
	target := int32(80)
	current := int32(50)
	ref := autoscalingv2.CrossVersionObjectReference{Name: "some-rc", Kind: "ReplicationController"}
	cpuUtil := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}
	pods := func(name string, milli int64) autoscalingv2.MetricSpec {
		return autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: name},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: resource.NewMilliQuantity(milli, resource.DecimalSI)}}}
	}
	tests := []struct {
		name string
		hpa  autoscalingv2.HorizontalPodAutoscaler
		want []interface{}
	}{
		{"minReplicas unset", autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "some-hpa"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MaxReplicas: 10}, Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 5}},
			[]interface{}{"some-hpa", "ReplicationController/some-rc", "<none>", "<unset>", int64(10), int64(4), "<unknown>"}},
		{"resource utilization, no current", autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "some-hpa"},
			Spec:   autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: &minReplicas, MaxReplicas: 10, Metrics: []autoscalingv2.MetricSpec{cpuUtil}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 5}},
			[]interface{}{"some-hpa", "ReplicationController/some-rc", "cpu: <unknown>/80%", "2", int64(10), int64(4), "<unknown>"}},
		{"multiple specs", autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "some-hpa"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: &minReplicas, MaxReplicas: 10,
				Metrics: []autoscalingv2.MetricSpec{pods("some-pods-metric", 100), cpuUtil, pods("other-pods-metric", 400)}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 5, CurrentMetrics: []autoscalingv2.MetricStatus{
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: "some-pods-metric"},
					Current: autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(50, resource.DecimalSI)}}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: &current, AverageValue: resource.NewMilliQuantity(40, resource.DecimalSI)}}},
			}}},
			[]interface{}{"some-hpa", "ReplicationController/some-rc", "50m/100m, cpu: 50%/80% + 1 more...", "2", int64(10), int64(4), "<unknown>"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, HorizontalPodAutoscaler, &tc.hpa, true, tc.want)
	}
}

// TestStorageClassEffectiveDefault follows upstream's
// TestPrintStorageClassListEffectiveDefault: in a list the newest default
// (then the alphabetically first) is marked; a single object is not.
func TestStorageClassEffectiveDefault(t *testing.T) {
	now := time.Now()
	earlier := now.Add(-1 * time.Hour)
	sc := func(name string, created time.Time, isDefault bool) storagev1.StorageClass {
		s := storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.Time{Time: created}}, Provisioner: "kubernetes.io/gce-pd"}
		if isDefault {
			s.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		return s
	}
	row := func(name, age string) []interface{} {
		return []interface{}{name, "kubernetes.io/gce-pd", "Delete", "Immediate", false, age}
	}
	tests := []struct {
		name  string
		items []storagev1.StorageClass
		want  [][]interface{}
	}{
		{"single default", []storagev1.StorageClass{sc("standard", now, true), sc("fast", earlier, false)},
			[][]interface{}{row("standard (default)", "0s"), row("fast", "60m")}},
		{"multiple defaults - newest wins", []storagev1.StorageClass{sc("standard", earlier, true), sc("fast", now, true)},
			[][]interface{}{row("standard", "60m"), row("fast (default)", "0s")}},
		{"same timestamp - alphabetically first wins", []storagev1.StorageClass{sc("zeta", now, true), sc("alpha", now, true)},
			[][]interface{}{row("zeta", "0s"), row("alpha (default)", "0s")}},
		{"no defaults", []storagev1.StorageClass{sc("standard", now, false)}, [][]interface{}{row("standard", "0s")}},
	}
	for _, tc := range tests {
		table, err := StorageClass.ConvertToTable(context.Background(), &storagev1.StorageClassList{Items: tc.items}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got [][]interface{}
		for _, r := range table.Rows {
			got = append(got, r.Cells)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.name, got, tc.want)
		}
	}
	single := sc("standard", now, true)
	checkRow(t, "single object", StorageClass, &single, true, row("standard", "0s"))
}

// TestNetworkingCells follows upstream's TestPrintIngressClass and
// TestPrintIngress.
func TestNetworkingCells(t *testing.T) {
	tenYears := metav1.Time{Time: time.Now().Add(-10 * 365 * 24 * time.Hour)}
	group := "example.com"
	tests := []struct {
		name string
		ic   networkingv1.IngressClass
		want []interface{}
	}{
		{"params", networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "test1", CreationTimestamp: tenYears},
			Spec: networkingv1.IngressClassSpec{Controller: "example.com/controller", Parameters: &networkingv1.IngressClassParametersReference{Kind: "customgroup", Name: "example"}}},
			[]interface{}{"test1", "example.com/controller", "customgroup/example", "10y"}},
		{"params with API group", networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "test1", CreationTimestamp: tenYears},
			Spec: networkingv1.IngressClassSpec{Controller: "example.com/controller", Parameters: &networkingv1.IngressClassParametersReference{APIGroup: &group, Kind: "customgroup", Name: "example"}}},
			[]interface{}{"test1", "example.com/controller", "customgroup.example.com/example", "10y"}},
		{"default annotation", networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "test-default", CreationTimestamp: tenYears,
			Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/controller"}},
			[]interface{}{"test-default (default)", "example.com/controller", "<none>", "10y"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, IngressClass, &tc.ic, true, tc.want)
	}

	ing := networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "test1", CreationTimestamp: tenYears},
		Spec: networkingv1.IngressSpec{
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}},
		},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "2.3.4.5"}}}},
	}
	checkRow(t, "ingress", Ingress, &ing, true, []interface{}{"test1", "<none>", "*", "2.3.4.5", "80", "10y"})
	ing.Spec.Rules = []networkingv1.IngressRule{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}}
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"a"}}}
	checkRow(t, "ingress hosts and TLS", Ingress, &ing, true, []interface{}{"test1", "<none>", "a,b,c + 1 more...", "2.3.4.5", "80, 443", "10y"})
}

// TestRBACAndAdmissionCells follows upstream's TestPrintRoleBinding,
// TestPrintCertificateSigningRequest and
// TestPrintValidatingAdmissionPolicyBinding, and checks the default
// convertor used for Roles.
func TestRBACAndAdmissionCells(t *testing.T) {
	future := metav1.Time{Time: time.Now().Add(1.9e9)}
	rb := rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "binding2", CreationTimestamp: future},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "user-name"}, {Kind: "Group", Name: "group-name"},
			{Kind: "ServiceAccount", Name: "service-account-name", Namespace: "service-account-namespace"}},
		RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "role-name"},
	}
	checkRow(t, "rolebinding", RoleBinding, &rb, true, []interface{}{"binding2", "Role/role-name", "0s", "user-name", "group-name", "service-account-namespace/service-account-name"})
	crb := rbacv1.ClusterRoleBinding{ObjectMeta: rb.ObjectMeta, Subjects: rb.Subjects[:1], RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "role-name"}}
	checkRow(t, "clusterrolebinding", ClusterRoleBinding, &crb, true, []interface{}{"binding2", "ClusterRole/role-name", "0s", "user-name", "", ""})

	created := metav1.NewTime(time.Date(2026, 12, 2, 15, 48, 56, 0, time.UTC))
	role := rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: created}}
	checkRow(t, "role (default convertor)", Role, &role, true, []interface{}{"r", "2026-12-02T15:48:56Z"})

	week := int32((7*24*time.Hour + time.Hour) / time.Second)
	approved := []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved}}
	csrs := []struct {
		name string
		csr  certificatesv1.CertificateSigningRequest
		want []interface{}
	}{
		{"pending", certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr1", CreationTimestamp: future}},
			[]interface{}{"csr1", "0s", "<none>", "", "<none>", "Pending"}},
		{"approved with signer and duration", certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr2", CreationTimestamp: future},
			Spec:   certificatesv1.CertificateSigningRequestSpec{Username: "CSR Requestor", SignerName: "example.com/test-signer", ExpirationSeconds: &week},
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: approved}},
			[]interface{}{"csr2", "0s", "example.com/test-signer", "CSR Requestor", "7d1h", "Approved"}},
		{"issued", certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr2", CreationTimestamp: future},
			Spec:   certificatesv1.CertificateSigningRequestSpec{Username: "CSR Requestor"},
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: approved, Certificate: []byte("cert data")}},
			[]interface{}{"csr2", "0s", "<none>", "CSR Requestor", "<none>", "Approved,Issued"}},
		{"denied", certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr3", CreationTimestamp: future},
			Spec:   certificatesv1.CertificateSigningRequestSpec{Username: "CSR Requestor"},
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied}}}},
			[]interface{}{"csr3", "0s", "<none>", "CSR Requestor", "<none>", "Denied"}},
	}
	for _, tc := range csrs {
		checkRow(t, tc.name, CertificateSigningRequest, &tc.csr, true, tc.want)
	}

	deny := admissionregistrationv1.DenyAction
	vapb := admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "config", CreationTimestamp: metav1.Time{Time: time.Now().Add(-3e11)}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "test-scale.example.com",
			ParamRef: &admissionregistrationv1.ParamRef{Name: "test-scale-setting.example.com", ParameterNotFoundAction: &deny}},
	}
	checkRow(t, "validating admission policy binding", ValidatingAdmissionPolicyBinding, &vapb, true, []interface{}{"config", "test-scale.example.com", "*/test-scale-setting.example.com", "5m"})
	vap := admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: future},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			Validations: []admissionregistrationv1.Validation{{Expression: "true"}}}}
	checkRow(t, "validating admission policy", ValidatingAdmissionPolicy, &vap, true, []interface{}{"p", int64(1), "v1/ConfigMap", "0s"})
}
