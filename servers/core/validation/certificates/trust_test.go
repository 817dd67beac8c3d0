package certificates

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

// issue makes a certificate for key, signed by parent's key (self-signed when parent is nil),
// valid from notBefore for lifetime; PEM.
func issue(t *testing.T, key ed25519.PublicKey, parent *x509.Certificate, parentKey ed25519.PrivateKey, ca bool, notBefore time.Time, lifetime time.Duration) (*x509.Certificate, string) {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "x"},
		NotBefore: notBefore, NotAfter: notBefore.Add(lifetime), IsCA: ca, BasicConstraintsValid: true}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestClusterTrustBundle(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	ca, caPEM := issue(t, pub, nil, priv, true, time.Now(), time.Hour)
	leafPub, _, _ := ed25519.GenerateKey(rand.Reader)
	_, leafPEM := issue(t, leafPub, ca, priv, false, time.Now(), time.Hour)
	quote := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", `\n`), `"`, `\"`) }
	base := `{metadata: {name: b, resourceVersion: "1"}, spec: {trustBundle: "` + quote(caPEM) + `"}}`
	vt.Cases{
		{"valid", `{}`, nil},
		{"signer's bundle", `{metadata: {name: "example.com:s:1"}, spec: {signerName: example.com/s}}`, nil},
		{"signer's bundle without the prefix", `{spec: {signerName: example.com/s}}`,
			[]string{`metadata.name: Invalid value: "b": ClusterTrustBundle for signerName example.com/s must be named with prefix example.com:s:`}},
		{"signer name", `{metadata: {name: "example:s:1"}, spec: {signerName: example/s}}`,
			[]string{`spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`}},
		{"the same anchor twice", `{spec: {trustBundle: "` + quote(caPEM+caPEM) + `"}}`,
			[]string{`spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])`}},
		{"not a CA", `{spec: {trustBundle: "` + quote(leafPEM) + `"}}`,
			[]string{`spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set`}},
	}.Run(t, kinds["ClusterTrustBundle"], base, nil)

	signed := `{metadata: {name: "example.com:s:1", resourceVersion: "1"}, spec: {signerName: example.com/s, trustBundle: "` + quote(caPEM) + `"}}`
	old := &certificatesv1.ClusterTrustBundle{}
	vt.Decode(t, old, signed)
	vt.Cases{
		{"a label", `{metadata: {labels: {a: b}}}`, nil},
		{"another signer", `{spec: {signerName: example.com/t}}`, []string{
			`metadata.name: Invalid value: "example.com:s:1": ClusterTrustBundle for signerName example.com/t must be named with prefix example.com:t:`,
			`spec.signerName: Invalid value: "example.com/t": field is immutable`}},
	}.Run(t, kinds["ClusterTrustBundle"], signed, old)
}

func TestPodCertificateRequestStatus(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, priv)
	if err != nil {
		t.Fatal(err)
	}
	caPub, caPriv, _ := ed25519.GenerateKey(rand.Reader)
	ca, _ := issue(t, caPub, nil, caPriv, true, time.Now().Add(-time.Hour), 48*time.Hour)
	now := time.Now().Truncate(time.Second)
	leaf, leafPEM := issue(t, pub, ca, caPriv, false, now, 2*time.Hour)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
	_, otherPEM := issue(t, otherPub, ca, caPriv, false, now, 2*time.Hour)

	stamp := func(tm time.Time) string { return tm.UTC().Format(time.RFC3339) }
	request := func(docs ...string) *pcr {
		r := &pcr{}
		vt.Decode(t, r, append([]string{`{metadata: {name: r, namespace: ns, resourceVersion: "1"}, spec: {signerName: example.com/s, podName: p, podUID: u1,
			serviceAccountName: sa, serviceAccountUID: u2, nodeName: n1, nodeUID: u3, stubPKCS10Request: ` + base64.StdEncoding.EncodeToString(csr) + `}}`}, docs...)...)
		return r
	}
	condition := func(typ string) string {
		return `{type: ` + typ + `, status: "True", reason: R, message: m, lastTransitionTime: "` + stamp(now) + `"}`
	}
	issued := func(chain string) string {
		return `{status: {conditions: [` + condition("Issued") + `], certificateChain: "` + strings.ReplaceAll(chain, "\n", `\n`) + `",
			notBefore: "` + stamp(leaf.NotBefore) + `", notAfter: "` + stamp(leaf.NotAfter) + `", beginRefreshAt: "` + stamp(leaf.NotBefore.Add(time.Hour)) + `"}}`
	}
	for _, tc := range []struct {
		name, was, doc string
		want           []string
	}{
		{"denied", `{}`, `{status: {conditions: [` + condition("Denied") + `]}}`, nil},
		{"issued", `{}`, issued(leafPEM), nil},
		{"issued to another key", `{}`, issued(otherPEM), []string{"status.certificateChain: Invalid value: "}},
		{"issued without a chain", `{}`, `{status: {conditions: [` + condition("Issued") + `]}}`,
			[]string{`status.certificateChain: Invalid value: "": issued certificate chain must contain at least one certificate`}},
		{"denied with a chain", `{}`, `{status: {conditions: [` + condition("Denied") + `], certificateChain: x}}`,
			[]string{"status: Invalid value: non-condition status fields must be empty when denying or failing the PodCertificateRequest"}},
		{"two answers", `{}`, `{status: {conditions: [` + condition("Denied") + `, ` + condition("Failed") + `]}}`,
			[]string{`status.conditions.[1].type: Invalid value: "Failed": There may be at most one condition with type "Issued", "Denied", or "Failed"`}},
		{"another condition", `{}`, `{status: {conditions: [` + condition("Pending") + `]}}`,
			[]string{`status.conditions.[0].type: Unsupported value: "Pending": supported values: "Issued", "Denied", "Failed"`}},
		{"changed after the answer", `{status: {conditions: [` + condition("Denied") + `]}}`, `{status: {conditions: [` + condition("Failed") + `]}}`,
			[]string{"status: Invalid value: immutable after PodCertificateRequest is issued, denied, or failed"}},
	} {
		was, r := request(tc.was), request(tc.was, tc.doc)
		vt.Expect(t, tc.name, ValidatePodCertificateRequestStatusUpdate(r, was), tc.want...)
	}
}
