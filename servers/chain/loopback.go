package chain

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"github.com/google/uuid"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
)

// applySecureServing is k8s.io/apiserver's SecureServingOptionsWithLoopback.ApplyTo
// (pkg/server/options/serving_with_loopback.go) with one change: the self-signed certificate the
// servers' loopback client pins is ECDSA P-256 instead of RSA 2048. Upstream generates an RSA key
// on every start, which costs a busy core about 0.1 s, a fifth of the chain's start-up, for a
// certificate nothing outside this process ever sees.
func applySecureServing(s *genericoptions.SecureServingOptions, serving **genericapiserver.SecureServingInfo, loopback **rest.Config) error {
	if err := s.ApplyTo(serving); err != nil {
		return err
	}
	certPEM, keyPEM, err := selfSignedLoopbackCert(time.Now())
	if err != nil {
		return fmt.Errorf("generating the loopback certificate: %w", err)
	}
	cert, err := dynamiccertificates.NewStaticSNICertKeyContent("self-signed loopback", certPEM, keyPEM, genericapiserver.LoopbackClientServerNameOverride)
	if err != nil {
		return fmt.Errorf("loading the loopback certificate: %w", err)
	}
	// First among the SNI certificates, so that it wins for its name.
	(*serving).SNICerts = append([]dynamiccertificates.SNICertKeyContentProvider{cert}, (*serving).SNICerts...)
	// The loopback client authenticates with a random token that only this process knows;
	// AuthorizeClientBearerToken later makes it system:apiserver in system:masters.
	*loopback, err = (*serving).NewLoopbackClientConfig(uuid.New().String(), certPEM)
	return err
}

// selfSignedLoopbackCert is a CA-less serving certificate for the loopback name, valid as long as
// upstream's (about three years; a restart makes a new one).
func selfSignedLoopbackCert(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: genericapiserver.LoopbackClientServerNameOverride},
		DNSNames:              []string{genericapiserver.LoopbackClientServerNameOverride},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add((3*365 + 1) * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // self-signed: the loopback client trusts it as its own root
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
