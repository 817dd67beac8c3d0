package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/client-go/util/cert"
)

func TestEnsureCreatesThenReuses(t *testing.T) {
	f := FilesIn(t.TempDir())
	names := ServingNames{DNS: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}}
	created, err := Ensure(f, names)
	if err != nil || !created {
		t.Fatalf("first Ensure: created=%v err=%v", created, err)
	}
	for _, key := range []string{f.ServerCAKey, f.ServingKey, f.ClientCAKey, f.AdminKey, f.FrontProxyCAKey, f.FrontProxyClientKey, f.ServiceAccountKey} {
		st, err := os.Stat(key)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v err %v, want 0600", key, st.Mode().Perm(), err)
		}
	}
	before, _ := os.ReadFile(f.ServingCert)
	created, err = Ensure(f, names)
	if err != nil || created {
		t.Fatalf("second Ensure: created=%v err=%v", created, err)
	}
	after, _ := os.ReadFile(f.ServingCert)
	if !bytes.Equal(before, after) {
		t.Errorf("serving certificate changed without reason")
	}

	// A new address reissues the serving certificate from the same CA.
	caBefore, _ := os.ReadFile(f.ServerCACert)
	names.IPs = append(names.IPs, net.IPv4(10, 1, 2, 3))
	if created, err = Ensure(f, names); err != nil || !created {
		t.Fatalf("Ensure with a new IP: created=%v err=%v", created, err)
	}
	caAfter, _ := os.ReadFile(f.ServerCACert)
	if !bytes.Equal(caBefore, caAfter) {
		t.Errorf("the CA changed")
	}
	serving := load1(t, f.ServingCert)
	if !serving.IPAddresses[len(serving.IPAddresses)-1].Equal(net.IPv4(10, 1, 2, 3)) {
		t.Errorf("serving cert IPs %v", serving.IPAddresses)
	}
	pool, _ := cert.NewPool(f.ServerCACert)
	if _, err := serving.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
		t.Errorf("serving cert does not verify against the server CA: %v", err)
	}
}

func TestCertificatesSayWhoTheyAre(t *testing.T) {
	f := FilesIn(t.TempDir())
	if _, err := Ensure(f, ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	admin := load1(t, f.AdminCert)
	if admin.Subject.CommonName != "admin" || len(admin.Subject.Organization) != 1 || admin.Subject.Organization[0] != "system:masters" {
		t.Errorf("admin subject %v", admin.Subject)
	}
	clientPool, _ := cert.NewPool(f.ClientCACert)
	if _, err := admin.Verify(x509.VerifyOptions{Roots: clientPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin cert does not verify against the client CA: %v", err)
	}
	fp := load1(t, f.FrontProxyClientCert)
	fpPool, _ := cert.NewPool(f.FrontProxyCACert)
	if _, err := fp.Verify(x509.VerifyOptions{Roots: fpPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil || fp.Subject.CommonName != FrontProxyClientName {
		t.Errorf("front-proxy client cert: %v %v", fp.Subject, err)
	}
	// The front-proxy certificate must not pass as a user certificate.
	if _, err := fp.Verify(x509.VerifyOptions{Roots: clientPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Errorf("front-proxy cert verifies against the client CA")
	}
	certPEM, keyPEM, err := IssueClientCert(f, "bob", []string{"devs"})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := x509.ParseCertificate(pair.Certificate[0])
	if bob.Subject.CommonName != "bob" || bob.Subject.Organization[0] != "devs" {
		t.Errorf("issued cert subject %v", bob.Subject)
	}
}

func load1(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	certs, err := cert.CertsFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return certs[0]
}

func TestIssueServingCert(t *testing.T) {
	f := FilesIn(t.TempDir())
	if _, err := Ensure(f, ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := IssueServingCert(f, "kubelet", ServingNames{DNS: []string{"node-1"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(pair.Certificate[0])
	pool, _ := cert.NewPool(f.ServerCACert)
	if _, err := c.Verify(x509.VerifyOptions{Roots: pool, DNSName: "node-1"}); err != nil {
		t.Errorf("serving cert does not verify for node-1 against the server CA: %v", err)
	}
}

// TestEnsureConcurrently: instances sharing a --pki-dir start at once. They must end up with one
// consistent set (every key matches its certificate, every leaf verifies against the CA on
// disk), and a serving certificate that covers every instance's names.
func TestEnsureConcurrently(t *testing.T) {
	f := FilesIn(t.TempDir())
	const instances = 6
	errs := make(chan error, instances)
	for i := range instances {
		go func() {
			_, err := Ensure(f, ServingNames{DNS: []string{"localhost"}, IPs: []net.IP{net.IPv4(10, 0, 0, byte(i+1))}})
			errs <- err
		}()
	}
	for range instances {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, pair := range [][2]string{{f.ServerCACert, f.ServerCAKey}, {f.ServingCert, f.ServingKey}, {f.ClientCACert, f.ClientCAKey},
		{f.AdminCert, f.AdminKey}, {f.FrontProxyCACert, f.FrontProxyCAKey}, {f.FrontProxyClientCert, f.FrontProxyClientKey}} {
		if _, err := tls.LoadX509KeyPair(pair[0], pair[1]); err != nil {
			t.Errorf("%s and %s do not match: %v", pair[0], pair[1], err)
		}
	}
	for _, leaf := range [][2]string{{f.ServingCert, f.ServerCACert}, {f.AdminCert, f.ClientCACert}, {f.FrontProxyClientCert, f.FrontProxyCACert}} {
		if err := load1(t, leaf[0]).CheckSignatureFrom(load1(t, leaf[1])); err != nil {
			t.Errorf("%s is not signed by %s: %v", leaf[0], leaf[1], err)
		}
	}
	serving := load1(t, f.ServingCert)
	for i := range instances {
		if ip := net.IPv4(10, 0, 0, byte(i+1)); !slices.ContainsFunc(serving.IPAddresses, ip.Equal) {
			t.Errorf("serving certificate lacks %s: %v", ip, serving.IPAddresses)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(f.Dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}
