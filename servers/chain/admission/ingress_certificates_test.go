package admission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/utils/ptr"
)

func TestDefaultIngressClass(t *testing.T) {
	now := time.Now()
	class := func(name string, age time.Duration, isDefault bool) *networkingv1.IngressClass {
		c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-age))}}
		if isDefault {
			c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
		}
		return c
	}
	cases := []struct {
		name      string
		classes   []*networkingv1.IngressClass
		ingress   *networkingv1.Ingress
		wantClass *string
	}{
		{"no default, no modification of Ingress", []*networkingv1.IngressClass{class("nondefault", 0, false)}, &networkingv1.Ingress{}, nil},
		{"one default, modify Ingress with class=nil", []*networkingv1.IngressClass{class("default1", 0, true)}, &networkingv1.Ingress{}, ptr.To("default1")},
		{"one default, no modification of Ingress with class field=''", []*networkingv1.IngressClass{class("default1", 0, true)},
			&networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("")}}, ptr.To("")},
		{"one default, no modification of Ingress with class annotation", []*networkingv1.IngressClass{class("default1", 0, true)},
			&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/ingress.class": "foo"}}}, nil},
		{"two defaults with the same creation time, choose the one with the lower name", []*networkingv1.IngressClass{class("default2", 0, true), class("default1", 0, true)},
			&networkingv1.Ingress{}, ptr.To("default1")},
		{"two defaults, choose the newest", []*networkingv1.IngressClass{class("default1", time.Hour, true), class("default2", 0, true)},
			&networkingv1.Ingress{}, ptr.To("default2")},
	}
	for _, tc := range cases {
		p := NewDefaultIngressClass(networkingv1listers.NewIngressClassLister(indexer(tc.classes...)))
		if err := admit(t, p, attrs(tc.ingress, nil, networkingv1.Resource("ingresses"), "Ingress", "ns", "ing", "", admission.Create, nil)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := tc.ingress.Spec.IngressClassName
		if (got == nil) != (tc.wantClass == nil) || (got != nil && *got != *tc.wantClass) {
			t.Errorf("%s: class %v, want %v", tc.name, ptr.Deref(got, "<nil>"), ptr.Deref(tc.wantClass, "<nil>"))
		}
	}
}

// signerAuthorizer allows verb on the names it lists.
type signerAuthorizer struct {
	verb    string
	allowed map[string]bool
}

func (a signerAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetVerb() == a.verb && attrs.GetResource() == "signers" && attrs.GetAPIGroup() == "certificates.k8s.io" && a.allowed[attrs.GetName()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func TestCertificateApprovalAndSigning(t *testing.T) {
	csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "abc.com/xyz"}}
	approved := csr.DeepCopy()
	approved.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
	bob := &user.DefaultInfo{Name: "bob"}
	cases := []struct {
		name    string
		plugin  func() *CertificateSigner
		allowed map[string]bool
		sub     string
		obj     *certificatesv1.CertificateSigningRequest
		want    string
	}{
		{"approve allowed on the signer", NewCertificateApproval, map[string]bool{"abc.com/xyz": true}, "approval", approved, ""},
		{"approve allowed on the signer's domain", NewCertificateApproval, map[string]bool{"abc.com/*": true}, "approval", approved, ""},
		{"approve denied", NewCertificateApproval, map[string]bool{"abc.com/other": true}, "approval", approved,
			`certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "abc.com/xyz"`},
		{"the main resource is not checked", NewCertificateApproval, nil, "", approved, ""},
		{"sign denied", NewCertificateSigning, nil, "status", approved,
			`certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to sign requests with signerName "abc.com/xyz"`},
		{"sign allowed", NewCertificateSigning, map[string]bool{"abc.com/xyz": true}, "status", approved, ""},
		{"a status update that changes nothing is not checked", NewCertificateSigning, nil, "status", csr, ""},
	}
	for _, tc := range cases {
		p := tc.plugin()
		p.SetUnconditionalAuthorizer(signerAuthorizer{verb: p.verb, allowed: tc.allowed})
		err := validate(t, p, attrs(tc.obj, csr, csrResource, "CertificateSigningRequest", "", "csr", tc.sub, admission.Update, bob))
		if got := errString(err); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCertificateSubjectRestriction(t *testing.T) {
	request := func(orgs ...string) []byte {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "x", Organization: orgs}}, key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	}
	cases := []struct {
		name   string
		signer string
		req    []byte
		want   string
	}{
		{"ignored signer", "example.com/x", request("system:masters"), ""},
		{"kube-apiserver-client without masters", certificatesv1.KubeAPIServerClientSignerName, request("devs"), ""},
		{"kube-apiserver-client with masters", certificatesv1.KubeAPIServerClientSignerName, request("devs", "system:masters"),
			`certificatesigningrequests.certificates.k8s.io "csr" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`},
	}
	p := NewCertificateSubjectRestriction()
	for _, tc := range cases {
		csr := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: tc.signer, Request: tc.req}}
		err := validate(t, p, attrs(csr, nil, csrResource, "CertificateSigningRequest", "", "csr", "", admission.Create, nil))
		if got := errString(err); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}
