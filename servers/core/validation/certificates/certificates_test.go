package certificates

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"CertificateSigningRequest": vt.Of(ValidateCertificateSigningRequest, ValidateCertificateSigningRequestUpdate),
	"ClusterTrustBundle":        vt.Of(ValidateClusterTrustBundle, ValidateClusterTrustBundleUpdate),
	"PodCertificateRequest":     vt.Of(ValidatePodCertificateRequest, ValidatePodCertificateRequestUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 24, nil) }

func TestAcceptedBundlesAndPodCertificates(t *testing.T) {
	vt.Accepted(t, "clustertrustbundle.json", kinds["ClusterTrustBundle"])
	vt.Accepted(t, "podcertificaterequest.json", kinds["PodCertificateRequest"])
}

// pemOf returns data as one PEM block of type typ, base64 as it stands in JSON.
func pemOf(typ string, der []byte) string {
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// fixtures returns a fresh certificate request and a self-signed certificate, PEM in base64.
func fixtures(t *testing.T) (request, certificate string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	csrDER, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "me"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "me"}, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0)}
	certDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf("CERTIFICATE REQUEST", csrDER), pemOf("CERTIFICATE", certDER)
}

func decode(t *testing.T, docs ...string) *csr {
	r := &csr{}
	vt.Decode(t, r, docs...)
	return r
}

func TestCertificateSigningRequest(t *testing.T) {
	req, _ := fixtures(t)
	base := `{metadata: {name: csr, resourceVersion: "1"}, spec: {request: "` + req + `", signerName: example.com/signer, usages: [digital signature, client auth]}}`
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{}`, nil},
		{"any name", `{metadata: {name: "Any:Name!"}}`, nil},
		{"not a request", `{spec: {request: bm9wZQ==}}`, []string{`spec.request: Invalid value: "bm9wZQ==": PEM block type must be CERTIFICATE REQUEST`}},
		{"a certificate instead", `{spec: {request: "` + pemOf("CERTIFICATE", []byte("x")) + `"}}`, []string{"spec.request: Invalid value: "}},
		{"no usages", `{spec: {usages: null}}`, []string{"spec.usages: Required value"}},
		{"unknown usage", `{spec: {usages: [nope]}}`, []string{`spec.usages[0]: Unsupported value: "nope": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`}},
		{"usage twice", `{spec: {usages: [client auth, client auth]}}`, []string{`spec.usages[1]: Duplicate value: "client auth"`}},
		{"no signer", `{spec: {signerName: ""}}`, []string{"spec.signerName: Required value"}},
		{"legacy signer", `{spec: {signerName: kubernetes.io/legacy-unknown}}`, []string{`spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`}},
		{"signer without path", `{spec: {signerName: example.com}}`, []string{`spec.signerName: Invalid value: "example.com": must be a fully qualified domain and path of the form 'example.com/signer-name'`}},
		{"signer with two paths", `{spec: {signerName: example.com/a/b}}`, []string{`spec.signerName: Invalid value: "example.com/a/b": must be a fully qualified domain`}},
		{"signer domain of one label", `{spec: {signerName: example/signer}}`, []string{`spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`}},
		{"signer domain label", `{spec: {signerName: Example.com/signer}}`, []string{`spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of`}},
		{"signer path label", `{spec: {signerName: example.com/my_signer}}`, []string{`spec.signerName: Invalid value: "my_signer": validating label "my_signer": a lowercase RFC 1123 label`}},
		{"signer too long", `{spec: {signerName: "example.com/` + strings.Repeat("a.", 125) + `a"}}`, []string{"spec.signerName: Too long: may not be more than 241 bytes"}},
		{"short expiration", `{spec: {expirationSeconds: 599}}`, []string{"spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"}},
		{"long enough", `{spec: {expirationSeconds: 600}}`, nil},
	} {
		r := decode(t, base, tc.doc)
		vt.Expect(t, tc.name, ValidateCertificateSigningRequest(r), tc.want...)
	}
}

func TestCertificateSigningRequestUpdates(t *testing.T) {
	req, certificate := fixtures(t)
	base := `{metadata: {name: csr, resourceVersion: "1"}, spec: {request: "` + req + `", signerName: example.com/signer, usages: [client auth]}}`
	const approved = `{status: {conditions: [{type: Approved, status: "True"}]}}`
	const denied = `{status: {conditions: [{type: Denied, status: "True"}]}}`
	const both = `{status: {conditions: [{type: Approved, status: "True"}, {type: Denied, status: "True"}]}}`
	signed := `{status: {conditions: [{type: Approved, status: "True"}], certificate: "` + certificate + `"}}`
	for _, tc := range []struct {
		name     string
		update   func(r, old *csr) field.ErrorList
		old, doc string
		want     []string
	}{
		{"approve through the main resource", ValidateCertificateSigningRequestUpdate, `{}`, approved, []string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`}},
		{"approve through /status", ValidateCertificateSigningRequestStatusUpdate, `{}`, approved, []string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`}},
		{"approve through /approval", ValidateCertificateSigningRequestApprovalUpdate, `{}`, approved, nil},
		{"deny through /approval", ValidateCertificateSigningRequestApprovalUpdate, `{}`, denied, nil},
		{"take an approval back", ValidateCertificateSigningRequestApprovalUpdate, approved, `{status: {conditions: []}}`, []string{`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`}},
		{"approval must be true", ValidateCertificateSigningRequestApprovalUpdate, `{}`, `{status: {conditions: [{type: Approved, status: "False"}]}}`, []string{`status.conditions[0].status: Unsupported value: "False": supported values: "True"`}},
		{"a condition of one's own", ValidateCertificateSigningRequestStatusUpdate, `{}`, `{status: {conditions: [{type: Issued, status: "False"}]}}`, nil},
		{"condition without type", ValidateCertificateSigningRequestStatusUpdate, `{}`, `{status: {conditions: [{status: "True"}]}}`, []string{"status.conditions[0].type: Required value"}},
		{"condition without status", ValidateCertificateSigningRequestStatusUpdate, `{}`, `{status: {conditions: [{type: Issued}]}}`, []string{"status.conditions[0].status: Required value"}},
		{"a condition twice", ValidateCertificateSigningRequestStatusUpdate, `{}`, `{status: {conditions: [{type: Issued, status: "True"}, {type: Issued, status: "False"}]}}`, []string{`status.conditions[1].type: Duplicate value: "Issued"`}},
		{"sign through /status", ValidateCertificateSigningRequestStatusUpdate, approved, signed, nil},
		{"sign through the main resource", ValidateCertificateSigningRequestUpdate, approved, signed, []string{"status.certificate: Forbidden: updates may not set certificate content"}},
		{"sign again", ValidateCertificateSigningRequestStatusUpdate, signed, `{status: {certificate: "` + pemOf("CERTIFICATE", []byte("x")) + `"}}`, []string{`status.certificate: Invalid value: "<certificate data>": `, "status.certificate: Forbidden: updates may not modify existing certificate content"}},
		{"not a certificate", ValidateCertificateSigningRequestStatusUpdate, approved, `{status: {certificate: bm9wZQ==}}`, []string{`status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`}},
		{"a key instead", ValidateCertificateSigningRequestStatusUpdate, approved, `{status: {certificate: "` + pemOf("PRIVATE KEY", []byte("x")) + `"}}`, []string{`status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"`}},
		{"a stored fault is tolerated", ValidateCertificateSigningRequestStatusUpdate, `{spec: {usages: [client auth, client auth]}, status: {conditions: [{type: Approved, status: "True"}]}}`, signed, nil},
		{"a stored legacy signer too", ValidateCertificateSigningRequestUpdate, `{spec: {signerName: kubernetes.io/legacy-unknown}}`, `{metadata: {labels: {a: b}}}`, nil},
		{"approved and denied", ValidateCertificateSigningRequestApprovalUpdate, `{}`, both, []string{`status.conditions: Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": must specify at most one of: ` + "`" + `conditions[{"type": "Approved"}]` + "`, `" + `conditions[{"type": "Denied"}]` + "`"}},
		{"name", ValidateCertificateSigningRequestUpdate, `{}`, `{metadata: {name: other}}`, []string{`metadata.name: Invalid value: "other": field is immutable`}},
	} {
		old := decode(t, base, tc.old)
		r := decode(t, base, tc.old, tc.doc)
		vt.Expect(t, tc.name, vt.Merged(t, r, old, tc.update(r, old)), tc.want...)
	}
}
