package serviceaccount

// Compact JWS (RFC 7515) with ES256 (RFC 7518 3.4): what go-jose does for kube-apiserver with
// an ECDSA P-256 key, written out so that the chain needs no JOSE library.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

const algES256 = "ES256"

type jwsHeader struct {
	Algorithm string `json:"alg"`
	KeyID     string `json:"kid,omitempty"`
}

// keyIDFromPublicKey derives a key ID from a public key, non-reversibly (pkg/serviceaccount/jwt.go):
// the base64url SHA-256 of its PKIX DER form.
func keyIDFromPublicKey(publicKey any) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(publicKey)
	if err != nil {
		return "", fmt.Errorf("failed to serialize public key to DER format: %v", err)
	}
	sum := crypto.SHA256.New()
	sum.Write(der)
	return base64.RawURLEncoding.EncodeToString(sum.Sum(nil)), nil
}

// signES256 returns the compact serialization of payload signed by key.
func signES256(key *ecdsa.PrivateKey, keyID string, payload []byte) (string, error) {
	if key.Curve != elliptic.P256() {
		return "", errors.New("unknown private key curve, must be P-256")
	}
	header, err := json.Marshal(jwsHeader{Algorithm: algES256, KeyID: keyID})
	if err != nil {
		return "", err
	}
	signingInput := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signingInput))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// parsedJWS is a compact JWS whose header and payload are decoded but not yet verified.
type parsedJWS struct {
	header                jwsHeader
	payload, signingInput []byte
	signature             []byte
}

func parseJWS(token string) (*parsedJWS, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("compact JWS format must have three parts")
	}
	rawHeader, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, fmt.Errorf("invalid header: %w", err)
	}
	var h jwsHeader
	if err := json.Unmarshal(rawHeader, &h); err != nil {
		return nil, fmt.Errorf("invalid header: %w", err)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("invalid payload: %w", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("invalid signature: %w", err)
	}
	return &parsedJWS{header: h, payload: payload, signingInput: []byte(parts[0] + "." + parts[1]), signature: sig}, nil
}

// verify checks the signature with key; only ES256 over P-256 is accepted.
func (p *parsedJWS) verify(key any) error {
	if p.header.Algorithm != algES256 {
		return fmt.Errorf("unexpected signature algorithm %q; expected %q", p.header.Algorithm, algES256)
	}
	pub, ok := key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return errors.New("invalid key type for ES256")
	}
	if len(p.signature) != 64 {
		return errors.New("invalid signature size")
	}
	digest := sha256.Sum256(p.signingInput)
	r := new(big.Int).SetBytes(p.signature[:32])
	s := new(big.Int).SetBytes(p.signature[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return errors.New("crypto/ecdsa: verification error")
	}
	return nil
}
