package groups_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// TestSystemPriorityClassesExistAtStart: kube-apiserver's post-start hook creates the two system
// priority classes, with their values, before /readyz is ok.
func TestSystemPriorityClassesExistAtStart(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	for name, value := range map[string]int32{"system-cluster-critical": 2000000000, "system-node-critical": 2000001000} {
		pc, err := cs.SchedulingV1().PriorityClasses().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil || pc.Value != value || pc.GlobalDefault || pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptLowerPriority {
			t.Errorf("%s: %v %+v", name, err, pc)
		}
	}
	_, body := testchain.Get(t, shared, "/readyz?verbose")
	if !strings.Contains(string(body), "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok") {
		t.Errorf("/readyz?verbose lacks the priority class hook:\n%s", body)
	}
	// The system- prefix is reserved, the value immutable.
	_, err := cs.SchedulingV1().PriorityClasses().Create(context.Background(), schedulingPC{Name: "system-mine", Value: 10}.object(), metav1.CreateOptions{})
	if want := `PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`; err == nil || err.Error() != want {
		t.Errorf("system- prefix: %v\n want %s", err, want)
	}
	_, err = cs.SchedulingV1().PriorityClasses().Patch(context.Background(), "system-cluster-critical", types.MergePatchType, []byte(`{"value":5}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "value: Forbidden: may not be changed in an update.") {
		t.Errorf("changing the value: %v", err)
	}
}

// TestStatusSubresourcesOfTheGroups: the main resource ignores status, /status ignores the spec,
// for ingresses, persistent volumes and claims, resource quotas and validating admission policies.
func TestStatusSubresourcesOfTheGroups(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)

	ing, err := cs.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "ing"},
		Spec:   networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1"}}}}}, metav1.CreateOptions{})
	if err != nil || len(ing.Status.LoadBalancer.Ingress) != 0 || ing.Generation != 1 {
		t.Fatalf("create keeps no status: %v %+v", err, ing.Status)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1"}}
	ing.Spec.DefaultBackend.Service.Name = "other"
	ing, err = cs.NetworkingV1().Ingresses(ns).UpdateStatus(ctx, ing, metav1.UpdateOptions{})
	if err != nil || len(ing.Status.LoadBalancer.Ingress) != 1 || ing.Spec.DefaultBackend.Service.Name != "svc" || ing.Generation != 1 {
		t.Errorf("update /status: %v %+v %+v", err, ing.Spec, ing.Status)
	}
	ing.Status.LoadBalancer.Ingress = nil
	ing.Spec.DefaultBackend.Service.Name = "other"
	ing, err = cs.NetworkingV1().Ingresses(ns).Update(ctx, ing, metav1.UpdateOptions{})
	if err != nil || len(ing.Status.LoadBalancer.Ingress) != 1 || ing.Spec.DefaultBackend.Service.Name != "other" || ing.Generation != 2 {
		t.Errorf("update: %v %+v %+v", err, ing.Spec, ing.Status)
	}

	pvc, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}, metav1.CreateOptions{})
	if err != nil || pvc.Status.Phase != corev1.ClaimPending || len(pvc.Finalizers) != 1 {
		t.Fatalf("claim: %v %+v %v", err, pvc.Status, pvc.Finalizers)
	}
	pvc.Status.Phase = corev1.ClaimBound
	pvc.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	pvc, err = cs.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(ctx, pvc, metav1.UpdateOptions{})
	if err != nil || pvc.Status.Phase != corev1.ClaimBound {
		t.Errorf("claim /status: %v %+v", err, pvc.Status)
	}
	// A bound claim may not grow without a class that allows it (PersistentVolumeClaimResize).
	pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	_, err = cs.CoreV1().PersistentVolumeClaims(ns).Update(ctx, pvc, metav1.UpdateOptions{})
	if want := `persistentvolumeclaims "claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`; err == nil || err.Error() != want {
		t.Errorf("grow: %v\n want %s", err, want)
	}

	pv, err := cs.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-pv"},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/x"}}}}, metav1.CreateOptions{})
	if err != nil || pv.Status.Phase != corev1.VolumePending || pv.Status.LastPhaseTransitionTime == nil {
		t.Fatalf("volume: %v %+v", err, pv.Status)
	}
	t.Cleanup(func() {
		_, _ = cs.CoreV1().PersistentVolumes().Patch(ctx, pv.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = cs.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{})
	})
	pending := pv.Status.LastPhaseTransitionTime
	pv.Status.Phase = corev1.VolumeAvailable
	pv.Status.LastPhaseTransitionTime = nil
	pv, err = cs.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{})
	if err != nil || pv.Status.Phase != corev1.VolumeAvailable || pv.Status.LastPhaseTransitionTime == nil || pv.Status.LastPhaseTransitionTime.Before(pending) {
		t.Errorf("volume /status: %v %+v", err, pv.Status)
	}

	rq, err := cs.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "rq"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rq.Status.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}
	rq.Status.Used = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	rq.Spec.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("20")}
	rq, err = cs.CoreV1().ResourceQuotas(ns).UpdateStatus(ctx, rq, metav1.UpdateOptions{})
	if q := rq.Spec.Hard[corev1.ResourcePods]; err != nil || q.Value() != 10 || rq.Status.Used.Pods().Value() != 1 {
		t.Errorf("quota /status: %v %+v %+v", err, rq.Spec, rq.Status)
	}

	vap, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-status"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, vap.Name, metav1.DeleteOptions{})
	})
	vap.Status.ObservedGeneration = 1
	vap.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "w"}}}
	vap, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().UpdateStatus(ctx, vap, metav1.UpdateOptions{})
	if err != nil || vap.Status.ObservedGeneration != 1 || vap.Status.TypeChecking == nil {
		t.Errorf("policy /status: %v %+v", err, vap.Status)
	}
	vap.Status.TypeChecking.ExpressionWarnings[0].FieldRef = ""
	_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().UpdateStatus(ctx, vap, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "status.typeChecking.expressionWarnings[0].fieldRef: Required value") {
		t.Errorf("invalid policy /status: %v", err)
	}
}

// TestCertificateSigningRequestApproval follows a request through its life: the requester's
// identity comes from the request; approval goes only through /approval; /status takes the
// certificate a signer issues; the signerName field selector finds it.
func TestCertificateSigningRequestApproval(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	request, _ := base64.StdEncoding.DecodeString(csrRequest(t, "approval"))
	name := "approval-" + testchain.Namespace(t, shared)
	csr, err := cs.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: request, SignerName: "example.com/approval", Username: "someone-else",
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CertificatesV1().CertificateSigningRequests().Delete(ctx, name, metav1.DeleteOptions{}) })
	if csr.Spec.Username == "someone-else" || csr.Spec.Username == "" || len(csr.Spec.Groups) == 0 {
		t.Errorf("requester: %q %v", csr.Spec.Username, csr.Spec.Groups)
	}
	list, err := cs.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{FieldSelector: "spec.signerName=example.com/approval"})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("field selector spec.signerName: %v %d", err, len(list.Items))
	}
	if _, err := cs.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{FieldSelector: "spec.username=x"}); !apierrors.IsBadRequest(err) ||
		!strings.Contains(err.Error(), `field label not supported: spec.username`) {
		t.Errorf("unsupported field selector: %v", err)
	}

	approve := csr.DeepCopy()
	approve.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"}}
	// The main resource ignores status; /status may not approve.
	if got, err := cs.CertificatesV1().CertificateSigningRequests().Update(ctx, approve, metav1.UpdateOptions{}); err != nil || len(got.Status.Conditions) != 0 {
		t.Errorf("approve through the main resource: %v %+v", err, got.Status)
	}
	_, err = cs.CertificatesV1().CertificateSigningRequests().UpdateStatus(ctx, approve, metav1.UpdateOptions{})
	if want := `CertificateSigningRequest.certificates.k8s.io "` + name + `" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"`; err == nil || err.Error() != want {
		t.Errorf("approve through /status: %v\n want %s", err, want)
	}
	approved, err := cs.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, name, approve, metav1.UpdateOptions{})
	if err != nil || len(approved.Status.Conditions) != 1 || approved.Status.Conditions[0].LastUpdateTime.IsZero() || approved.Status.Conditions[0].LastTransitionTime.IsZero() {
		t.Fatalf("approve through /approval: %v %+v", err, approved.Status)
	}
	deny := approved.DeepCopy()
	deny.Status.Conditions = append(deny.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue})
	if _, err := cs.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, name, deny, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), `status.conditions: Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": must specify at most one of`) {
		t.Errorf("approve and deny: %v", err)
	}
	issue := approved.DeepCopy()
	issue.Status.Certificate = []byte("not a certificate")
	if _, err := cs.CertificatesV1().CertificateSigningRequests().UpdateStatus(ctx, issue, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), `status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`) {
		t.Errorf("issue garbage: %v", err)
	}
	table := coretest.Table(t, shared, "/apis/certificates.k8s.io/v1/certificatesigningrequests/"+name)
	if got := strings.Join(coretest.ColumnNames(table), ","); got != "Name,Age,SignerName,Requestor,RequestedDuration,Condition" || table.Rows[0].Cells[5] != "Approved" {
		t.Errorf("table: %s %v", got, table.Rows[0].Cells)
	}

	// A client certificate for system:masters is refused (CertificateSubjectRestriction).
	masters, _ := base64.StdEncoding.DecodeString(csrRequest(t, "root", "system:masters"))
	_, err = cs.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name + "-masters"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: masters, SignerName: certificatesv1.KubeAPIServerClientSignerName, Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}},
		metav1.CreateOptions{})
	if want := `certificatesigningrequests.certificates.k8s.io "` + name + `-masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`; err == nil || err.Error() != want {
		t.Errorf("system:masters: %v\n want %s", err, want)
	}
}

// TestKubectlCertificateApprove: kubectl certificate approve and deny use /approval.
func TestKubectlCertificateApprove(t *testing.T) {
	name := "kubectl-" + testchain.Namespace(t, shared)
	manifest := `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"` + name +
		`"},"spec":{"request":"` + csrRequest(t, "kubectl") + `","signerName":"example.com/kubectl","usages":["client auth"]}}`
	if out, err := testchain.KubectlInput(t, shared, manifest, "create", "-f", "-"); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = testchain.KubectlInput(t, shared, "", "delete", "csr", name) })
	if out, err := testchain.KubectlInput(t, shared, "", "certificate", "approve", name); err != nil || !strings.Contains(out, "certificatesigningrequest.certificates.k8s.io/"+name+" approved") {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	out, err := testchain.KubectlInput(t, shared, "", "get", "csr", name, "-o", "json")
	var csr certificatesv1.CertificateSigningRequest
	if err != nil || json.Unmarshal([]byte(out), &csr) != nil || len(csr.Status.Conditions) != 1 ||
		csr.Status.Conditions[0].Type != certificatesv1.CertificateApproved || csr.Status.Conditions[0].Reason != "KubectlApprove" {
		t.Errorf("after approve: %v\n%s", err, out)
	}
	if out, _ := testchain.KubectlInput(t, shared, "", "get", "csr", name); !strings.Contains(out, "Approved") || !strings.Contains(out, "example.com/kubectl") {
		t.Errorf("kubectl get csr:\n%s", out)
	}
	// kubectl refuses to deny an approved request (the chain would too: at most one of them).
	if out, err := testchain.KubectlInput(t, shared, "", "certificate", "deny", name); err == nil || !strings.Contains(out, "is already Approved") {
		t.Errorf("deny after approve: %v\n%s", err, out)
	}
}

type schedulingPC struct {
	Name          string
	Value         int32
	GlobalDefault bool
}

func (p schedulingPC) object() *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: p.Name}, Value: p.Value, GlobalDefault: p.GlobalDefault}
}
