// Package pki creates, on first start, the certificates and keys a chain needs and reuses them
// afterwards. It sits outside the chain: servers/chain calls Ensure before building any server,
// and every file it writes is a plain PEM file under <data-dir>/pki, as kubeadm lays them out.
//
// Three CAs, as in a kubeadm cluster:
//   - the server CA signs the serving certificate (what kubectl verifies);
//   - the client CA signs client certificates (what the chain's x509 authenticator trusts);
//   - the front-proxy CA signs the aggregator's proxy client certificate (what aggregated API
//     servers trust, through kube-system/extension-apiserver-authentication).
//
// Plus the service-account signing key. Keys are ECDSA P-256: quick to generate, accepted everywhere.
//
// Several chain instances may share one directory (--pki-dir): Ensure holds an exclusive lock on
// <dir>/.lock while it looks and writes, so that two instances starting at once create one set
// of CAs, never two halves of different ones; and a serving certificate is reissued only to add
// names, so that one instance never drops the names another one serves.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// renewBefore makes Ensure reissue a leaf certificate that would expire soon.
	renewBefore = 30 * 24 * time.Hour
)

// Files names every file Ensure maintains, by absolute path.
type Files struct {
	Dir string

	ServerCACert, ServerCAKey string
	ServingCert, ServingKey   string

	ClientCACert, ClientCAKey string
	AdminCert, AdminKey       string

	FrontProxyCACert, FrontProxyCAKey         string
	FrontProxyClientCert, FrontProxyClientKey string

	ServiceAccountKey, ServiceAccountPub string
}

// FilesIn returns the layout under dir.
func FilesIn(dir string) Files {
	p := func(name string) string { return filepath.Join(dir, name) }
	return Files{
		Dir:          dir,
		ServerCACert: p("ca.crt"), ServerCAKey: p("ca.key"),
		ServingCert: p("apiserver.crt"), ServingKey: p("apiserver.key"),
		ClientCACert: p("client-ca.crt"), ClientCAKey: p("client-ca.key"),
		AdminCert: p("admin.crt"), AdminKey: p("admin.key"),
		FrontProxyCACert: p("front-proxy-ca.crt"), FrontProxyCAKey: p("front-proxy-ca.key"),
		FrontProxyClientCert: p("front-proxy-client.crt"), FrontProxyClientKey: p("front-proxy-client.key"),
		ServiceAccountKey: p("sa.key"), ServiceAccountPub: p("sa.pub"),
	}
}

// ServingNames are the names and addresses the serving certificate must cover.
type ServingNames struct {
	DNS []string
	IPs []net.IP
}

// FrontProxyClientName is the CN of the aggregator's proxy client certificate; aggregated
// API servers accept request headers only from this name (requestheader-allowed-names).
const FrontProxyClientName = "front-proxy-client"

// Ensure creates whatever is missing under f.Dir and reuses what is there. A serving certificate
// that lacks one of names, or a leaf that expires soon, is reissued from the existing CA.
// It reports whether anything was written.
func Ensure(f Files, names ServingNames) (created bool, err error) {
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return false, fmt.Errorf("creating pki dir: %w", err)
	}
	unlock, err := lock(f.Dir)
	if err != nil {
		return false, err
	}
	defer unlock()
	steps := []func() (bool, error){
		func() (bool, error) { return ensureCA(f.ServerCACert, f.ServerCAKey, "apichain-server-ca") },
		func() (bool, error) {
			return ensureLeaf(f.ServingCert, f.ServingKey, f.ServerCACert, f.ServerCAKey,
				leafSpec{cn: "apichain-apiserver", dns: names.DNS, ips: names.IPs, usage: x509.ExtKeyUsageServerAuth})
		},
		func() (bool, error) { return ensureCA(f.ClientCACert, f.ClientCAKey, "apichain-client-ca") },
		func() (bool, error) {
			return ensureLeaf(f.AdminCert, f.AdminKey, f.ClientCACert, f.ClientCAKey,
				leafSpec{cn: "admin", orgs: []string{"system:masters"}, usage: x509.ExtKeyUsageClientAuth})
		},
		func() (bool, error) {
			return ensureCA(f.FrontProxyCACert, f.FrontProxyCAKey, "apichain-front-proxy-ca")
		},
		func() (bool, error) {
			return ensureLeaf(f.FrontProxyClientCert, f.FrontProxyClientKey, f.FrontProxyCACert, f.FrontProxyCAKey,
				leafSpec{cn: FrontProxyClientName, usage: x509.ExtKeyUsageClientAuth})
		},
		func() (bool, error) { return ensureKeyPair(f.ServiceAccountKey, f.ServiceAccountPub) },
	}
	for _, step := range steps {
		wrote, err := step()
		if err != nil {
			return created, err
		}
		created = created || wrote
	}
	return created, nil
}

// lock takes an exclusive advisory lock on dir/.lock, waiting for another process (or another
// chain in this process) that holds it. The kernel drops the lock if the holder dies.
func lock(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the pki lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// IssueClientCert signs a new client certificate with the client CA, for a user and groups
// (the chain's x509 authenticator maps CN to the user name and O to the groups).
func IssueClientCert(f Files, user string, groups []string) (certPEM, keyPEM []byte, err error) {
	i, err := NewClientIssuer(f)
	if err != nil {
		return nil, nil, err
	}
	return i.Issue(user, groups)
}

// ClientIssuer signs client certificates with the client CA it read once: what issues the
// simulated kubelets' certificates, one a node, without reading the CA from disk for each.
type ClientIssuer struct {
	ca    *x509.Certificate
	caKey crypto.Signer
}

// NewClientIssuer reads the client CA of f.
func NewClientIssuer(f Files) (*ClientIssuer, error) {
	ca, caKey, err := load(f.ClientCACert, f.ClientCAKey)
	if err != nil {
		return nil, err
	}
	return &ClientIssuer{ca: ca, caKey: caKey}, nil
}

// Issue is IssueClientCert with the CA already read; safe for concurrent use.
func (i *ClientIssuer) Issue(user string, groups []string) (certPEM, keyPEM []byte, err error) {
	return issueWith(i.ca, i.caKey, leafSpec{cn: user, orgs: groups, usage: x509.ExtKeyUsageClientAuth})
}

// IssueServingCert signs a serving certificate with the server CA for names: what a kubeadm
// cluster's kubelets get from the kubelet-serving signer, so that whoever trusts the chain's CA
// (the metrics server scraping kubelets) can verify them.
func IssueServingCert(f Files, cn string, names ServingNames) (certPEM, keyPEM []byte, err error) {
	return issue(f.ServerCACert, f.ServerCAKey, leafSpec{cn: cn, dns: names.DNS, ips: names.IPs, usage: x509.ExtKeyUsageServerAuth})
}

// issue signs a new leaf certificate with the CA in caCertPath and caKeyPath.
func issue(caCertPath, caKeyPath string, spec leafSpec) (certPEM, keyPEM []byte, err error) {
	ca, caKey, err := load(caCertPath, caKeyPath)
	if err != nil {
		return nil, nil, err
	}
	return issueWith(ca, caKey, spec)
}

// issueWith signs a new leaf certificate with ca.
func issueWith(ca *x509.Certificate, caKey crypto.Signer, spec leafSpec) (certPEM, keyPEM []byte, err error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	c, err := sign(spec, key, ca, caKey)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return encodeCert(c), keyPEM, nil
}

type leafSpec struct {
	cn    string
	orgs  []string
	dns   []string
	ips   []net.IP
	usage x509.ExtKeyUsage
}

func ensureCA(certPath, keyPath, cn string) (bool, error) {
	if c, _, err := load(certPath, keyPath); err == nil && time.Until(c.NotAfter) > renewBefore {
		return false, nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	key, err := newKey()
	if err != nil {
		return false, err
	}
	c, err := cert.NewSelfSignedCACert(cert.Config{CommonName: cn}, key)
	if err != nil {
		return false, fmt.Errorf("creating CA %s: %w", cn, err)
	}
	return true, write(certPath, keyPath, c, key)
}

func ensureLeaf(certPath, keyPath, caCertPath, caKeyPath string, spec leafSpec) (bool, error) {
	ca, caKey, err := load(caCertPath, caKeyPath)
	if err != nil {
		return false, err
	}
	if c, _, err := load(certPath, keyPath); err == nil {
		valid := c.CheckSignatureFrom(ca) == nil && time.Until(c.NotAfter) > renewBefore
		if valid && covers(c, spec) {
			return false, nil
		}
		if valid {
			// Keep the names it has: another instance sharing this directory may serve them,
			// and reloads this file while it runs.
			spec = withNamesOf(c, spec)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	key, err := newKey()
	if err != nil {
		return false, err
	}
	c, err := sign(spec, key, ca, caKey)
	if err != nil {
		return false, fmt.Errorf("signing %s: %w", spec.cn, err)
	}
	return true, write(certPath, keyPath, c, key)
}

// covers reports whether an existing certificate already says what spec asks for.
func covers(c *x509.Certificate, spec leafSpec) bool {
	if c.Subject.CommonName != spec.cn || !slices.Equal(c.Subject.Organization, spec.orgs) {
		return false
	}
	for _, d := range spec.dns {
		if !slices.Contains(c.DNSNames, d) {
			return false
		}
	}
	for _, ip := range spec.ips {
		if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

// withNamesOf adds the DNS names and addresses of c to spec.
func withNamesOf(c *x509.Certificate, spec leafSpec) leafSpec {
	spec.dns = append(slices.Clone(spec.dns), c.DNSNames...)
	slices.Sort(spec.dns)
	spec.dns = slices.Compact(spec.dns)
	ips := slices.Clone(spec.ips)
	for _, ip := range c.IPAddresses {
		if !slices.ContainsFunc(ips, ip.Equal) {
			ips = append(ips, ip)
		}
	}
	spec.ips = ips
	return spec
}

func sign(spec leafSpec, key crypto.Signer, ca *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: spec.cn, Organization: spec.orgs},
		DNSNames:     spec.dns,
		IPAddresses:  spec.ips,
		NotBefore:    now.Add(-5 * time.Minute).UTC(), // tolerate small clock skew
		NotAfter:     now.Add(leafValidity).UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{spec.usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func ensureKeyPair(keyPath, pubPath string) (bool, error) {
	if _, err := os.Stat(keyPath); err == nil {
		if _, err := os.Stat(pubPath); err == nil {
			return false, nil
		}
	}
	key, err := newKey()
	if err != nil {
		return false, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return false, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return false, err
	}
	if err := writeFile(keyPath, keyPEM, 0o600); err != nil {
		return false, err
	}
	return true, writeFile(pubPath, pemBlock("PUBLIC KEY", pubDER), 0o644)
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func load(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	certs, err := cert.CertsFromFile(certPath)
	if err != nil {
		if _, statErr := os.Stat(certPath); errors.Is(statErr, os.ErrNotExist) {
			return nil, nil, statErr
		}
		return nil, nil, fmt.Errorf("reading %s: %w", certPath, err)
	}
	k, err := keyutil.PrivateKeyFromFile(keyPath)
	if err != nil {
		if _, statErr := os.Stat(keyPath); errors.Is(statErr, os.ErrNotExist) {
			return nil, nil, statErr
		}
		return nil, nil, fmt.Errorf("reading %s: %w", keyPath, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a signing key", keyPath)
	}
	return certs[0], signer, nil
}

func write(certPath, keyPath string, c *x509.Certificate, key crypto.Signer) error {
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	if err := writeFile(keyPath, keyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(certPath, encodeCert(c), 0o644)
}

func encodeCert(c *x509.Certificate) []byte { return pemBlock(cert.CertificateBlockType, c.Raw) }

// writeFile replaces path atomically so that a crash never leaves half a key behind, and a
// chain reading the file (the serving certificate is reloaded while it runs) sees the old
// file or the new one.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
