package validation

// Table tests for CertificateSigningRequest validation; cases follow kubernetes v1.37.2
// pkg/apis/certificates/validation/validation_test.go (TestValidateCertificateSigningRequestCreate,
// TestValidateCertificateSigningRequestUpdate and its status and approval variants), with the
// declarative zeroOrOneOf rule that replaces the handwritten Approved/Denied check.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func newCSRPEM(t *testing.T, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "me", Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestValidateCertificateSigningRequest(t *testing.T) {
	request := newCSRPEM(t)
	csr := func(mutate func(*certificatesv1.CertificateSigningRequest)) *certificatesv1.CertificateSigningRequest {
		c := &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{Name: "csr", ResourceVersion: "1"},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: request, SignerName: "example.com/signer",
				Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}},
		}
		mutate(c)
		return c
	}
	cases := []struct {
		name string
		csr  *certificatesv1.CertificateSigningRequest
		want []string
	}{
		{"valid", csr(func(*certificatesv1.CertificateSigningRequest) {}), nil},
		{"any name", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Name = "Any:Name!" }), nil},
		{"no usages", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = nil }), []string{`spec.usages: Required value`}},
		{"unknown usage", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = []certificatesv1.KeyUsage{"nope"} }),
			[]string{`spec.usages[0]: Unsupported value: "nope": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`}},
		{"duplicate usage", csr(func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageClientAuth}
		}), []string{`spec.usages[1]: Duplicate value: "client auth"`}},
		{"legacy signer", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = LegacyUnknownSignerName }),
			[]string{`spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`}},
		{"no signer", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "" }), []string{`spec.signerName: Required value`}},
		{"signer without path", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "example.com" }),
			[]string{`spec.signerName: Invalid value: "example.com": must be a fully qualified domain and path of the form 'example.com/signer-name'`}},
		{"short expiration", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.ExpirationSeconds = ptr.To[int32](599) }),
			[]string{`spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)`}},
		{"not a request", csr(func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Request = []byte("nope") }),
			[]string{`spec.request: Invalid value: "bm9wZQ==": PEM block type must be CERTIFICATE REQUEST`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateCertificateSigningRequestCreate(tc.csr), tc.want)
	}

	old := csr(func(*certificatesv1.CertificateSigningRequest) {})
	condition := func(t certificatesv1.RequestConditionType) certificatesv1.CertificateSigningRequestCondition {
		return certificatesv1.CertificateSigningRequestCondition{Type: t, Status: v1.ConditionTrue}
	}
	approved := old.DeepCopy()
	approved.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{condition(certificatesv1.CertificateApproved)}
	expectErrors(t, "approve through the main resource", ValidateCertificateSigningRequestUpdate(approved, old),
		[]string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`})
	expectErrors(t, "approve through /status", ValidateCertificateSigningRequestStatusUpdate(approved, old),
		[]string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`})
	expectErrors(t, "approve through /approval", ValidateCertificateSigningRequestApprovalUpdate(approved, old), nil)
	both := approved.DeepCopy()
	both.Status.Conditions = append(both.Status.Conditions, condition(certificatesv1.CertificateDenied))
	expectErrors(t, "approve and deny", withDeclarative(t, both, old, ValidateCertificateSigningRequestApprovalUpdate(both, old)),
		[]string{`status.conditions: Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": must specify at most one of: ` + "`" + `conditions[{"type": "Approved"}]` + "`, `" + `conditions[{"type": "Denied"}]` + "`"})
	removed := old.DeepCopy()
	expectErrors(t, "remove approval", ValidateCertificateSigningRequestApprovalUpdate(removed, approved),
		[]string{`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`})
	falseApproval := old.DeepCopy()
	falseApproval.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: v1.ConditionFalse}}
	expectErrors(t, "approved must be true", ValidateCertificateSigningRequestApprovalUpdate(falseApproval, old),
		[]string{`status.conditions[0].status: Unsupported value: "False": supported values: "True"`})
	certificate := approved.DeepCopy()
	certificate.Status.Certificate = []byte("not a certificate")
	expectErrors(t, "set certificate through the main resource", ValidateCertificateSigningRequestUpdate(certificate, approved),
		[]string{`status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`, `status.certificate: Forbidden: updates may not set certificate content`})
	expectErrors(t, "set invalid certificate through /status", ValidateCertificateSigningRequestStatusUpdate(certificate, approved),
		[]string{`status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`})
}
