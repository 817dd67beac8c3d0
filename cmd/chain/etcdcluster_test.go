package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// etcdCluster is a real etcd cluster for tests: n embedded members in this process, on loopback
// ports, clients authenticated by TLS certificates (as kube-apiserver reaches a production etcd),
// peers on plain http (loopback only).
type etcdCluster struct {
	members []*embed.Etcd
	// ClientURLs are the members' https client URLs (--etcd-servers).
	ClientURLs []string
	// CAFile verifies the members (--etcd-cafile); CertFile and KeyFile are a client
	// certificate they accept (--etcd-certfile, --etcd-keyfile).
	CAFile, CertFile, KeyFile string
}

func startEtcdCluster(t *testing.T, n int) *etcdCluster {
	t.Helper()
	dir := t.TempDir()
	c := &etcdCluster{}
	serverCert, serverKey := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	c.CAFile, c.CertFile, c.KeyFile = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	writeEtcdPKI(t, c.CAFile, serverCert, serverKey, c.CertFile, c.KeyFile)

	clientPorts, peerPorts := freeTCPPorts(t, n), freeTCPPorts(t, n)
	var initial []string
	for i := range n {
		initial = append(initial, fmt.Sprintf("m%d=http://127.0.0.1:%d", i, peerPorts[i]))
	}
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		client := url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", clientPorts[i])}
		peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPorts[i])}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "apichain-test"
		// Clients must present a certificate signed by the CA.
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: serverCert, KeyFile: serverKey, TrustedCAFile: c.CAFile, ClientCertAuth: true}
		// Process death, not machine crash, is what the tests simulate: fsync buys nothing there.
		cfg.UnsafeNoFsync = true
		cfg.LogLevel = "fatal"
		if os.Getenv("CHAIN_TEST_VERBOSE") != "" {
			cfg.LogLevel = "warn"
		}
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.close()
			t.Fatalf("starting etcd member %s: %v", cfg.Name, err)
		}
		c.members = append(c.members, e)
		c.ClientURLs = append(c.ClientURLs, client.String())
	}
	t.Cleanup(c.close)
	for _, e := range c.members {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			t.Fatalf("etcd member %s failed: %v", e.Config().Name, err)
		case <-time.After(time.Minute):
			t.Fatalf("etcd member %s did not join the cluster within a minute", e.Config().Name)
		}
	}
	return c
}

// stopLeader stops the member that leads the cluster, the one whose loss costs most (an
// election), and returns its name.
func (c *etcdCluster) stopLeader(t *testing.T) string {
	t.Helper()
	for i, e := range c.members {
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			name := e.Config().Name
			e.Close()
			c.members[i] = nil // Close must run once
			return name
		}
	}
	t.Fatal("no etcd member leads")
	return ""
}

func (c *etcdCluster) close() {
	for i, e := range c.members {
		if e != nil {
			e.Close()
			c.members[i] = nil
		}
	}
}

// writeEtcdPKI writes a CA, a serving certificate for 127.0.0.1 (usable as a client too:
// etcd's gRPC gateway dials its own member with it) and a client certificate.
func writeEtcdPKI(t *testing.T, caFile, serverCert, serverKey, clientCert, clientKey string) {
	t.Helper()
	caKey := newECKey(t)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "etcd-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	writePEM(t, caFile, "CERTIFICATE", caDER)
	leaf := func(serial int64, cn string, ips []net.IP, usages []x509.ExtKeyUsage, certFile, keyFile string) {
		key := newECKey(t)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, IPAddresses: ips,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usages}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certFile, "CERTIFICATE", der)
		writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	}
	leaf(2, "etcd-member", []net.IP{net.IPv4(127, 0, 0, 1)}, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, serverCert, serverKey)
	leaf(3, "apichain", nil, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, clientCert, clientKey)
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freeTCPPorts finds n free loopback ports (another process could take one before etcd binds it;
// on a test machine that is rare enough).
func freeTCPPorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
