package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"

	"github.com/go-jose/go-jose/v4"
	"k8s.io/client-go/util/keyutil"
)

// LoadSigningKey reads the PEM private key tokens are signed with (kube-apiserver's
// --service-account-signing-key-file).
func LoadSigningKey(path string) (crypto.Signer, error) {
	key, err := keyutil.PrivateKeyFromFile(path)
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: a %T cannot sign", path, key)
	}
	return signer, nil
}

// LoadPublicKeys reads the PEM public keys tokens are verified with (kube-apiserver's
// --service-account-key-file).
func LoadPublicKeys(path string) ([]crypto.PublicKey, error) {
	keys, err := keyutil.PublicKeysFromFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]crypto.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out, nil
}

// keyID names a public key in the kid header: the unpadded base64url SHA-256 of its PKIX
// form, as kube-apiserver names its keys (so that a verifier knows which key to try).
func keyID(key crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return "", fmt.Errorf("encoding the public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// algorithm is the JWS algorithm kube-apiserver signs with for a key: RS256 for RSA, ES256,
// ES384 or ES512 for the ECDSA curves.
func algorithm(key crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	}
	return "", fmt.Errorf("no signing algorithm for a %T key", key)
}
