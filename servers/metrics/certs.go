package metrics

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// The serving certificate's files in --cert-dir, named as the generic apiserver names its
// generated pair (SecureServingOptions.ServerCert.PairName "apiserver").
const (
	servingCertName = "apiserver.crt"
	servingKeyName  = "apiserver.key"
	// renewBefore regenerates a certificate that would expire sooner.
	renewBefore = 30 * 24 * time.Hour
)

// serviceDNSNames are the names the Aggregator may dial: it verifies the certificate against
// <service>.<namespace>.svc.
var serviceDNSNames = []string{"metrics-server.kube-system.svc", "metrics-server.kube-system", "metrics-server", "localhost"}

// servingCert is the serving certificate in use and the CA that the APIServices trust.
type servingCert struct {
	CertFile, KeyFile string
	// CABundle is the last certificate of CertFile: the CA that signed the serving
	// certificate (the certificate itself when it is self-signed).
	CABundle []byte
}

// ensureServingCert returns the serving certificate in dir, generating a self-signed CA and a
// serving certificate for the service names, 127.0.0.1 and advertise when there is none, when
// it lacks one of those names, or when it expires within 30 days. metrics-server generates one
// in memory on every start (SecureServingOptions.MaybeDefaultWithSelfSignedCerts, for
// localhost only); keeping it across restarts keeps the APIServices' caBundle stable.
func ensureServingCert(dir string, advertise net.IP) (servingCert, error) {
	ips := []net.IP{net.IPv4(127, 0, 0, 1)}
	if advertise != nil && !advertise.Equal(ips[0]) && !advertise.IsUnspecified() {
		ips = append(ips, advertise)
	}
	sc := servingCert{CertFile: filepath.Join(dir, servingCertName), KeyFile: filepath.Join(dir, servingKeyName)}
	if ca, err := reusable(sc, ips); err == nil {
		sc.CABundle = ca
		return sc, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		klog.InfoS("Regenerating the serving certificate", "dir", dir, "reason", err)
	}

	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKeyWithOptions(cert.SelfSignedCertKeyOptions{
		Host:         serviceDNSNames[0],
		AlternateDNS: serviceDNSNames[1:],
		AlternateIPs: ips,
	})
	if err != nil {
		return sc, fmt.Errorf("generating the serving certificate: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return sc, fmt.Errorf("creating cert dir: %w", err)
	}
	if err := writeFile(sc.KeyFile, keyPEM, 0o600); err != nil {
		return sc, err
	}
	if err := writeFile(sc.CertFile, certPEM, 0o644); err != nil {
		return sc, err
	}
	certs, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		return sc, err
	}
	sc.CABundle = encode(certs[len(certs)-1])
	return sc, nil
}

// reusable checks the existing pair and returns its CA.
func reusable(sc servingCert, ips []net.IP) ([]byte, error) {
	pair, err := tls.LoadX509KeyPair(sc.CertFile, sc.KeyFile)
	if err != nil {
		if _, statErr := os.Stat(sc.CertFile); errors.Is(statErr, os.ErrNotExist) {
			return nil, statErr
		}
		return nil, err
	}
	certs := make([]*x509.Certificate, 0, len(pair.Certificate))
	for _, der := range pair.Certificate {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	leaf, ca := certs[0], certs[len(certs)-1]
	if time.Until(leaf.NotAfter) < renewBefore {
		return nil, fmt.Errorf("it expires on %v", leaf.NotAfter)
	}
	for _, name := range serviceDNSNames {
		if err := leaf.VerifyHostname(name); err != nil {
			return nil, err
		}
	}
	for _, ip := range ips {
		if err := leaf.VerifyHostname(ip.String()); err != nil {
			return nil, err
		}
	}
	if ca != leaf {
		if err := leaf.CheckSignatureFrom(ca); err != nil {
			return nil, fmt.Errorf("the last certificate of %s did not sign the first: %w", sc.CertFile, err)
		}
	}
	return encode(ca), nil
}

func encode(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: cert.CertificateBlockType, Bytes: c.Raw})
}

// writeFile replaces path atomically, so that a crash never leaves half a key behind.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
