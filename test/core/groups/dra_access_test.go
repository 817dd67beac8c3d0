package groups_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// uniqueUser is a user name no other test uses.
func uniqueUser(prefix string) string { return prefix + "-" + utilrand.String(5) }

// grant gives user the rules cluster-wide and waits until the authorizer has seen them.
func grant(t *testing.T, user string, check authorizationv1.ResourceAttributes, rules ...rbacv1.PolicyRule) {
	t.Helper()
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	role, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: user + "-"}, Rules: rules}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, role.Name, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
	coretest.WaitAllowed(t, testchain.UserConfig(t, shared, user), check)
}

// causeOf is the field and type of an Invalid answer's only cause, or the error itself.
func causeOf(err error) string {
	var s apierrors.APIStatus
	if !errorsAs(err, &s) || len(s.Status().Details.Causes) != 1 {
		return "not one cause: " + errString(err)
	}
	c := s.Status().Details.Causes[0]
	return c.Field + " " + string(c.Type)
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestDRAAdminAccessNeedsALabelledNamespace: a claim or template may ask for admin access to
// devices only in a namespace labelled resource.kubernetes.io/admin-access: "true" (read as
// the write happens).
func TestDRAAdminAccessNeedsALabelledNamespace(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	spec := resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
		{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "dc", AdminAccess: ptr.To(true)}}}}}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "admin"}, Spec: spec}
	template := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "admin"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}}

	_, err := cs.ResourceV1().ResourceClaims(ns).Create(ctx, claim, metav1.CreateOptions{})
	if got := causeOf(err); got != "spec.devices.requests[0].adminAccess FieldValueForbidden" || !strings.Contains(err.Error(), "resource.kubernetes.io/admin-access: true") {
		t.Errorf("claim in an unlabelled namespace: %v", err)
	}
	// kube-apiserver reports a template's request at the claim's path too.
	_, err = cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, template, metav1.CreateOptions{})
	if got := causeOf(err); got != "spec.devices.requests[0].adminAccess FieldValueForbidden" {
		t.Errorf("template in an unlabelled namespace: %v", err)
	}

	labelled, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labelled.Labels[resourcev1.DRAAdminNamespaceLabelKey] = "true"
	if _, err := cs.CoreV1().Namespaces().Update(ctx, labelled, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ResourceV1().ResourceClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Errorf("claim in a labelled namespace: %v", err)
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, template, metav1.CreateOptions{}); err != nil {
		t.Errorf("template in a labelled namespace: %v", err)
	}
}

// TestResourceClaimStatusIsTheSchedulersAndTheDrivers: writing a claim's /status is not
// enough; allocating it needs resourceclaims/binding, and reporting a device's state needs
// resourceclaims/driver for the device's driver (arbitrary-node:update for a writer that is not
// on the claim's node).
func TestResourceClaimStatusIsTheSchedulersAndTheDrivers(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	claim, err := cs.ResourceV1().ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
			{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "dc"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	user := uniqueUser("dra-scheduler")
	statusWriter := authorizationv1.ResourceAttributes{Verb: "update", Group: "resource.k8s.io", Resource: "resourceclaims", Subresource: "status", Namespace: ns}
	grant(t, user, statusWriter, rbacv1.PolicyRule{Verbs: []string{"get", "update"}, APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims", "resourceclaims/status"}})
	as := kubernetes.NewForConfigOrDie(testchain.UserConfig(t, shared, user)).ResourceV1().ResourceClaims(ns)

	allocated := claim.DeepCopy()
	allocated.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "p", Device: "d0"}}}}
	_, err = as.UpdateStatus(ctx, allocated, metav1.UpdateOptions{})
	if got := causeOf(err); got != "status.allocation FieldValueForbidden" || !strings.Contains(err.Error(), `requires resource="resourceclaims/binding"`) {
		t.Errorf("allocating without binding permission: %v", err)
	}
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "update", Group: "resource.k8s.io", Resource: "resourceclaims", Subresource: "binding"},
		rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims/binding"}})
	if allocated, err = as.UpdateStatus(ctx, allocated, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("allocating with binding permission: %v", err)
	}

	reported := allocated.DeepCopy()
	reported.Status.Devices = []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "p", Device: "d0",
		NetworkData: &resourcev1.NetworkDeviceData{InterfaceName: "eth1", IPs: []string{"10.9.8.7/24"}}}}
	_, err = as.UpdateStatus(ctx, reported, metav1.UpdateOptions{})
	if got := causeOf(err); got != "status.devices FieldValueForbidden" || !strings.Contains(err.Error(), `requires resource="resourceclaims/driver"`) {
		t.Errorf("reporting a device without the driver's permission: %v", err)
	}
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "arbitrary-node:update", Group: "resource.k8s.io", Resource: "resourceclaims", Subresource: "driver", Name: "gpu.example.com", Namespace: ns},
		rbacv1.PolicyRule{Verbs: []string{"arbitrary-node:update"}, APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims/driver"}, ResourceNames: []string{"gpu.example.com"}})
	if _, err := as.UpdateStatus(ctx, reported, metav1.UpdateOptions{}); err != nil {
		t.Errorf("reporting a device with the driver's permission: %v", err)
	}
}

// TestDeviceTaintRuleNewEffectIsDated: a taint rule's timeAdded says when its effect began; a
// new effect moves it (and the generation), a new value does not.
func TestDeviceTaintRuleNewEffectIsDated(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	rules := cs.ResourceV1().DeviceTaintRules()
	long := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	rule, err := rules.Create(ctx, &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{GenerateName: "dated-"},
		Spec: resourcev1.DeviceTaintRuleSpec{Taint: resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoSchedule, TimeAdded: &long}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Delete(ctx, rule.Name, metav1.DeleteOptions{})
	if !rule.Spec.Taint.TimeAdded.Equal(&long) || rule.Generation != 1 {
		t.Errorf("created: timeAdded %v (sent %v), generation %d", rule.Spec.Taint.TimeAdded, long, rule.Generation)
	}
	rule.Spec.Taint.Value = "v2"
	if rule, err = rules.Update(ctx, rule, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !rule.Spec.Taint.TimeAdded.Equal(&long) || rule.Generation != 2 {
		t.Errorf("a new value: timeAdded %v, generation %d", rule.Spec.Taint.TimeAdded, rule.Generation)
	}
	rule.Spec.Taint.Effect = resourcev1.DeviceTaintEffectNoExecute
	if rule, err = rules.Update(ctx, rule, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if rule.Spec.Taint.TimeAdded.Time.Before(time.Now().Add(-time.Minute)) || rule.Generation != 3 {
		t.Errorf("a new effect: timeAdded %v, generation %d, want now and 3", rule.Spec.Taint.TimeAdded, rule.Generation)
	}
}

// TestResourceSliceOfAnUppercaseDriverIsWarnedAbout: driver names are DNS subdomains, case
// aside; an uppercase one is accepted with a warning.
func TestResourceSliceOfAnUppercaseDriverIsWarnedAbout(t *testing.T) {
	cfg := rest.CopyConfig(shared.Admin)
	w := &coretest.Warnings{}
	cfg.WarningHandler = w
	slices := kubernetes.NewForConfigOrDie(cfg).ResourceV1().ResourceSlices()
	ctx := context.Background()
	slice, err := slices.Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{GenerateName: "upper-"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "GPU.example.com", AllNodes: ptr.To(true), Pool: resourcev1.ResourcePool{Name: "p", ResourceSliceCount: 1}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer slices.Delete(ctx, slice.Name, metav1.DeleteOptions{})
	if want := `spec.driver: driver names should be lowercase; "GPU.example.com" contains uppercase characters`; len(w.Got) != 1 || w.Got[0] != want {
		t.Errorf("warnings %q, want %q", w.Got, want)
	}
}

// TestPodCertificatesAreAnsweredBySigners: only a writer allowed to "sign" for a request's
// signer may answer it through /status.
func TestPodCertificatesAreAnsweredBySigners(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stub, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	req, err := cs.CertificatesV1().PodCertificateRequests(ns).Create(ctx, &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Spec: certificatesv1.PodCertificateRequestSpec{SignerName: "example.com/signer", PodName: "p", PodUID: "u1", ServiceAccountName: "default",
			ServiceAccountUID: "u2", NodeName: "n1", NodeUID: "u3", StubPKCS10Request: stub}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	user := uniqueUser("signer")
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "update", Group: "certificates.k8s.io", Resource: "podcertificaterequests", Subresource: "status", Namespace: ns},
		rbacv1.PolicyRule{Verbs: []string{"get", "update"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"podcertificaterequests/status"}})
	as := kubernetes.NewForConfigOrDie(testchain.UserConfig(t, shared, user)).CertificatesV1().PodCertificateRequests(ns)
	denied := req.DeepCopy()
	denied.Status.Conditions = []metav1.Condition{{Type: certificatesv1.PodCertificateRequestConditionTypeDenied, Status: metav1.ConditionTrue,
		Reason: "NoThanks", LastTransitionTime: metav1.Now()}}
	_, err = as.UpdateStatus(ctx, denied, metav1.UpdateOptions{})
	if got := causeOf(err); got != "spec.signerName FieldValueForbidden" || !strings.Contains(err.Error(), `is not permitted to "sign" for signer "example.com/signer"`) {
		t.Errorf("answering without sign permission: %v", err)
	}
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "sign", Group: "certificates.k8s.io", Resource: "signers", Name: "example.com/*"},
		rbacv1.PolicyRule{Verbs: []string{"sign"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"example.com/*"}})
	if _, err := as.UpdateStatus(ctx, denied, metav1.UpdateOptions{}); err != nil {
		t.Errorf("answering with sign permission for the signer's domain: %v", err)
	}
}

// TestClusterTrustBundlesOfASignerAreAttested: publishing a trust bundle for a signer needs the
// "attest" permission for it (admission, ClusterTrustBundleAttest); a bundle of no signer does not.
func TestClusterTrustBundlesOfASignerAreAttested(t *testing.T) {
	ctx := context.Background()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	bundle := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	user := uniqueUser("publisher")
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "create", Group: "certificates.k8s.io", Resource: "clustertrustbundles"},
		rbacv1.PolicyRule{Verbs: []string{"create", "delete"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"clustertrustbundles"}})
	bundles := kubernetes.NewForConfigOrDie(testchain.UserConfig(t, shared, user)).CertificatesV1().ClusterTrustBundles()

	signed := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:" + user + ":1"},
		Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/" + user, TrustBundle: bundle}}
	_, err = bundles.Create(ctx, signed, metav1.CreateOptions{})
	if want := `user not permitted to attest for signerName "example.com/` + user + `"`; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("a signer's bundle without attest permission: %v", err)
	}
	plain := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: user}, Spec: certificatesv1.ClusterTrustBundleSpec{TrustBundle: bundle}}
	if _, err := bundles.Create(ctx, plain, metav1.CreateOptions{}); err != nil {
		t.Errorf("a bundle of no signer: %v", err)
	}
	defer bundles.Delete(ctx, plain.Name, metav1.DeleteOptions{})
	grant(t, user, authorizationv1.ResourceAttributes{Verb: "attest", Group: "certificates.k8s.io", Resource: "signers", Name: "example.com/" + user},
		rbacv1.PolicyRule{Verbs: []string{"attest"}, APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"example.com/" + user}})
	if _, err := bundles.Create(ctx, signed, metav1.CreateOptions{}); err != nil {
		t.Errorf("a signer's bundle with attest permission: %v", err)
	}
	defer bundles.Delete(ctx, signed.Name, metav1.DeleteOptions{})
}
