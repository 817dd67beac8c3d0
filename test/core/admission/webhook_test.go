package admission_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/testchain"
)

// webhookServer is an HTTPS admission webhook with its own CA: /mutate adds the label
// webhook-mutated=yes, /deny refuses everything.
type webhookServer struct {
	*httptest.Server
	caPEM []byte
	port  int32
}

// newWebhookServer serves on 127.0.0.1 with a certificate for 127.0.0.1 and for dnsNames.
func newWebhookServer(t *testing.T, dnsNames ...string) *webhookServer {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: dnsNames, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	s := &webhookServer{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	s.StartTLS()
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	s.port = int32(p)
	return s
}

func (s *webhookServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	response := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	switch r.URL.Path {
	case "/mutate":
		var obj metav1.PartialObjectMetadata
		_ = json.Unmarshal(review.Request.Object.Raw, &obj)
		patch := `[{"op":"add","path":"/metadata/labels","value":{"webhook-mutated":"yes"}}]`
		if obj.Labels != nil {
			patch = `[{"op":"add","path":"/metadata/labels/webhook-mutated","value":"yes"}]`
		}
		response.Patch = []byte(patch)
		response.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	case "/deny":
		response.Allowed = false
		response.Result = &metav1.Status{Message: "denied by the test webhook", Code: http.StatusForbidden}
	}
	review.Response = response
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// registerService publishes the server as Service ns/webhook, whose EndpointSlice holds an FQDN
// under .localhost, as servers/metrics registers the metrics server.
func (s *webhookServer) registerService(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "webhook"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(s.port)}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "webhook-fqdn", Labels: map[string]string{discoveryv1.LabelServiceName: svc.Name}},
		AddressType: discoveryv1.AddressTypeFQDN,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"webhook-" + ns + ".localhost"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(s.port)}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// closedPort is a port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func configMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}
}

// TestAdmissionWebhooks calls a real HTTPS webhook server from the chain: a mutating webhook
// reached through a Service and an EndpointSlice with a *.localhost address, a validating one
// reached through its URL, both trusting the server's own CA through caBundle; namespace and
// object selectors, match conditions and both failure policies.
func TestAdmissionWebhooks(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	server := newWebhookServer(t, "webhook."+ns+".svc")
	server.registerService(t, cs, ns)
	inNamespace := &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}
	sideEffects := ptr.To(admissionregistrationv1.SideEffectClassNone)
	down := fmt.Sprintf("https://127.0.0.1:%d/down", closedPort(t))

	mutating, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-mutating"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mutate.apichain.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: server.caPEM,
				Service: &admissionregistrationv1.ServiceReference{Namespace: ns, Name: "webhook", Path: ptr.To("/mutate")}},
			Rules: configMapRules(), SideEffects: sideEffects, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: inNamespace,
			ObjectSelector:    &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "unmutated", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			MatchConditions:   []admissionregistrationv1.MatchCondition{{Name: "not-skipped", Expression: `object.metadata.name != "skip-me"`}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, mutating.Name, metav1.DeleteOptions{})
	})
	validating, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-validating"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "deny.apichain.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: server.caPEM, URL: ptr.To(server.URL + "/deny")},
			Rules:        configMapRules(), SideEffects: sideEffects, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: inNamespace,
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"deny": "yes"}},
		}, {
			Name:         "down-ignore.apichain.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: server.caPEM, URL: ptr.To(down)},
			Rules:        configMapRules(), SideEffects: sideEffects, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: inNamespace,
			FailurePolicy:  ptr.To(admissionregistrationv1.Ignore),
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"down": "ignore"}},
		}, {
			Name:         "down-fail.apichain.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: server.caPEM, URL: ptr.To(down)},
			Rules:        configMapRules(), SideEffects: sideEffects, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: inNamespace,
			FailurePolicy:  ptr.To(admissionregistrationv1.Fail),
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"down": "fail"}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, validating.Name, metav1.DeleteOptions{})
	})

	create := func(name string, labels map[string]string) (*corev1.ConfigMap, error) {
		return cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	// The webhook configurations, the Service and its slice reach the chain's informers in time.
	testchain.WaitFor(t, func() bool {
		cm, err := create("mutated", nil)
		return err == nil && cm.Labels["webhook-mutated"] == "yes"
	})
	if cm, err := create("mutated", map[string]string{"a": "b"}); err != nil || cm.Labels["webhook-mutated"] != "yes" || cm.Labels["a"] != "b" {
		t.Errorf("mutating webhook with labels: %v %v", err, cm.Labels)
	}
	if cm, err := create("skip-me", nil); err != nil || cm.Labels["webhook-mutated"] != "" {
		t.Errorf("match condition: %v %v", err, cm.Labels)
	}
	if cm, err := create("selected-out", map[string]string{"unmutated": "yes"}); err != nil || cm.Labels["webhook-mutated"] != "" {
		t.Errorf("object selector: %v %v", err, cm.Labels)
	}
	if cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil || cm.Labels["webhook-mutated"] != "" {
		t.Errorf("namespace selector: %v %v", err, cm.Labels)
	}
	testchain.WaitFor(t, func() bool {
		_, err := create("denied", map[string]string{"deny": "yes"})
		return err != nil && err.Error() == `admission webhook "deny.apichain.example.com" denied the request: denied by the test webhook`
	})
	if _, err := create("ignored", map[string]string{"down": "ignore"}); err != nil {
		t.Errorf("failurePolicy Ignore on a webhook that is down: %v", err)
	}
	_, err = create("failed", map[string]string{"down": "fail"})
	if want := `Internal error occurred: failed calling webhook "down-fail.apichain.example.com": failed to call webhook: Post "` + down + `?timeout=10s": dial tcp ` +
		strings.TrimPrefix(strings.TrimSuffix(down, "/down"), "https://") + `: connect: connection refused`; err == nil || err.Error() != want {
		t.Errorf("failurePolicy Fail on a webhook that is down: %v\n want %s", err, want)
	}
}

// TestAdmissionPolicies: a ValidatingAdmissionPolicy (CEL) whose binding denies with
// kube-apiserver's message, and a MutatingAdmissionPolicy that sets a label.
func TestAdmissionPolicies(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	inNamespace := &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}}
	constraints := &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: configMapRules()[0]}}}

	vap, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-x"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: constraints,
			Validations: []admissionregistrationv1.Validation{
				{Expression: `!has(object.data) || !("password" in object.data)`, Message: "no passwords in config maps"},
				{Expression: `object.metadata.name.size() < 20`},
			}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, vap.Name, metav1.DeleteOptions{})
	})
	vapb, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-y"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: vap.Name, MatchResources: inNamespace,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, vapb.Name, metav1.DeleteOptions{})
	})

	map1, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-m"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{MatchConstraints: constraints, ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"policy-mutated": "yes"}}}`}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Delete(ctx, map1.Name, metav1.DeleteOptions{})
	})
	mapb, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-mb"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: map1.Name, MatchResources: inNamespace},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Delete(ctx, mapb.Name, metav1.DeleteOptions{})
	})

	create := func(name string, data map[string]string) (*corev1.ConfigMap, error) {
		return cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	wantDenied := `configmaps "secret" is forbidden: ValidatingAdmissionPolicy '` + vap.Name + `' with binding '` + vapb.Name + `' denied request: no passwords in config maps`
	testchain.WaitFor(t, func() bool {
		_, err := create("secret", map[string]string{"password": "x"})
		return err != nil && err.Error() == wantDenied
	})
	_, err = create("a-name-that-is-far-too-long", nil)
	if want := `configmaps "a-name-that-is-far-too-long" is forbidden: ValidatingAdmissionPolicy '` + vap.Name + `' with binding '` + vapb.Name +
		`' denied request: failed expression: object.metadata.name.size() < 20`; err == nil || err.Error() != want {
		t.Errorf("failed expression: %v\n want %s", err, want)
	}
	testchain.WaitFor(t, func() bool {
		cm, err := create("mutated", map[string]string{"a": "b"})
		return err == nil && cm.Labels["policy-mutated"] == "yes"
	})
	if cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ns}, Data: map[string]string{"password": "x"}},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil || cm.Labels["policy-mutated"] != "" {
		t.Errorf("outside the bound namespace: %v %v", err, cm.Labels)
	}
	// An expression that does not compile is refused on create, as kube-apiserver refuses it.
	_, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-broken"},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: constraints, Validations: []admissionregistrationv1.Validation{{Expression: "object.x in [1, 2, "}}},
	}, metav1.CreateOptions{})
	if want := `ValidatingAdmissionPolicy.admissionregistration.k8s.io "` + ns + `-broken" is invalid: spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>'`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("broken expression: %v\n want %s", err, want)
	}
}
