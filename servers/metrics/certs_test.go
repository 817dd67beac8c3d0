package metrics

import (
	"bytes"
	"crypto/x509"
	"net"
	"os"
	"testing"

	"k8s.io/client-go/util/cert"
)

func TestEnsureServingCert(t *testing.T) {
	dir := t.TempDir()
	first, err := ensureServingCert(dir, net.IPv4(127, 0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(first.CABundle) {
		t.Fatal("no CA in the bundle")
	}
	certPEM, err := os.ReadFile(first.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"metrics-server.kube-system.svc", "metrics-server.kube-system", "metrics-server", "localhost", "127.0.0.1"} {
		if _, err := certs[0].Verify(x509.VerifyOptions{DNSName: name, Roots: pool}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if fi, err := os.Stat(first.KeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}

	// A restart reuses it: the APIServices' caBundle stays valid.
	again, err := ensureServingCert(dir, net.IPv4(127, 0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.CABundle, first.CABundle) {
		t.Error("the certificate was regenerated on restart")
	}

	// A new advertise address needs a new certificate.
	moved, err := ensureServingCert(dir, net.ParseIP("192.0.2.10"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(moved.CABundle, first.CABundle) {
		t.Error("the certificate lacks the new advertise address but was kept")
	}
	certPEM, _ = os.ReadFile(moved.CertFile)
	certs, _ = cert.ParseCertsPEM(certPEM)
	if err := certs[0].VerifyHostname("192.0.2.10"); err != nil {
		t.Error(err)
	}
}
