package serviceaccount

// Token generation and authentication, ported from kubernetes v1.37.2 pkg/serviceaccount/jwt.go.

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/client-go/util/keyutil"
)

// DefaultIssuer is the issuer kube-apiserver's documentation and kubeadm use:
// https://kubernetes.default.svc.cluster.local.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// TokenGenerator signs tokens.
type TokenGenerator interface {
	// GenerateToken signs claims and privateClaims; the issuer is the generator's. Registered
	// claims win over private ones of the same name.
	GenerateToken(ctx context.Context, claims *Claims, privateClaims *PrivateClaims) (string, error)
}

// JWTTokenGenerator returns a generator signing as iss with privateKey (ECDSA P-256: ES256).
func JWTTokenGenerator(iss string, privateKey *ecdsa.PrivateKey) (TokenGenerator, error) {
	keyID, err := keyIDFromPublicKey(&privateKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("failed to derive keyID: %v", err)
	}
	return &jwtTokenGenerator{iss: iss, key: privateKey, keyID: keyID}, nil
}

type jwtTokenGenerator struct {
	iss   string
	key   *ecdsa.PrivateKey
	keyID string
}

func (j *jwtTokenGenerator) GenerateToken(ctx context.Context, claims *Claims, privateClaims *PrivateClaims) (string, error) {
	// As go-jose merges them: private claims, then registered ones, then the issuer.
	merged := map[string]any{}
	for _, part := range []any{privateClaims, claims, &Claims{Issuer: j.iss}} {
		raw, err := json.Marshal(part)
		if err != nil {
			return "", err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		for k, v := range m {
			merged[k] = v
		}
	}
	payload, err := json.Marshal(merged)
	if err != nil {
		return "", err
	}
	return signES256(j.key, j.keyID, payload)
}

// PublicKey is a key that verifies tokens, with its key ID.
type PublicKey struct {
	KeyID     string
	PublicKey any
}

// StaticPublicKeys returns keys with their derived IDs.
func StaticPublicKeys(keys []any) ([]PublicKey, error) {
	var out []PublicKey
	for _, key := range keys {
		if priv, ok := key.(*ecdsa.PrivateKey); ok {
			key = &priv.PublicKey
		}
		keyID, err := keyIDFromPublicKey(key)
		if err != nil {
			return nil, err
		}
		out = append(out, PublicKey{KeyID: keyID, PublicKey: key})
	}
	return out, nil
}

// JWTTokenAuthenticator authenticates tokens of issuers signed by one of keys, checked by
// validator. implicitAuds are the API server's audiences: a token must be for one of them, or for
// the audiences of the request's context (TokenReview).
func JWTTokenAuthenticator(issuers []string, keys []PublicKey, implicitAuds authenticator.Audiences, validator *Validator) authenticator.Token {
	issuersMap := map[string]bool{}
	for _, issuer := range issuers {
		issuersMap[issuer] = true
	}
	return &jwtTokenAuthenticator{issuers: issuersMap, keys: keys, implicitAuds: implicitAuds, validator: validator}
}

type jwtTokenAuthenticator struct {
	issuers      map[string]bool
	keys         []PublicKey
	implicitAuds authenticator.Audiences
	validator    *Validator
}

func (j *jwtTokenAuthenticator) keysFor(keyID string) []PublicKey {
	if keyID == "" {
		return j.keys
	}
	var out []PublicKey
	for _, k := range j.keys {
		if k.KeyID == keyID {
			out = append(out, k)
		}
	}
	return out
}

// AuthenticateToken implements authenticator.Token. A token that is not a JWT of one of the
// issuers is not this authenticator's (no error); one that is, and fails, is an error.
func (j *jwtTokenAuthenticator) AuthenticateToken(ctx context.Context, tokenData string) (*authenticator.Response, bool, error) {
	if !j.hasCorrectIssuer(tokenData) {
		return nil, false, nil
	}
	tok, err := parseJWS(tokenData)
	if err != nil {
		return nil, false, nil
	}
	keys := j.keysFor(tok.header.KeyID)
	if len(keys) == 0 {
		return nil, false, fmt.Errorf("invalid signature, no keys found")
	}
	var (
		found   bool
		errlist []error
	)
	for _, key := range keys {
		if err := tok.verify(key.PublicKey); err != nil {
			errlist = append(errlist, err)
			continue
		}
		found = true
		break
	}
	if !found {
		return nil, false, utilerrors.NewAggregate(errlist)
	}

	public := &Claims{}
	private := &PrivateClaims{}
	if err := json.Unmarshal(tok.payload, public); err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(tok.payload, private); err != nil {
		return nil, false, err
	}
	if !j.issuers[public.Issuer] {
		return nil, false, fmt.Errorf("token issuer %q is invalid", public.Issuer)
	}

	tokenAudiences := authenticator.Audiences(public.Audience)
	if len(tokenAudiences) == 0 {
		// Only the API server's audiences for legacy tokens.
		tokenAudiences = j.implicitAuds
	}
	requestedAudiences, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		requestedAudiences = j.implicitAuds
	}
	auds := tokenAudiences.Intersect(requestedAudiences)
	if len(auds) == 0 && len(j.implicitAuds) != 0 {
		return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAudiences, requestedAudiences)
	}

	sa, err := j.validator.Validate(ctx, public, private)
	if err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: sa.UserInfo(), Audiences: auds}, true, nil
}

// hasCorrectIssuer reports whether tokenData is a compact JWT whose (unverified) iss is one of
// the issuers.
func (j *jwtTokenAuthenticator) hasCorrectIssuer(tokenData string) bool {
	if strings.HasPrefix(strings.TrimSpace(tokenData), "{") {
		return false
	}
	parts := strings.Split(tokenData, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	claims := struct {
		// Not verified: do not trust.
		Issuer string `json:"iss"`
	}{}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return false
	}
	return j.issuers[claims.Issuer]
}

// LoadSigningKey reads the service-account private key (PEM).
func LoadSigningKey(path string) (*ecdsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := keyutil.ParsePrivateKeyPEM(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: service account key is %T, want an ECDSA key", path, key)
	}
	return ec, nil
}

// LoadPublicKeys reads the service-account public keys (PEM), as --service-account-key-file.
func LoadPublicKeys(path string) ([]PublicKey, error) {
	keys, err := keyutil.PublicKeysFromFile(path)
	if err != nil {
		return nil, err
	}
	var anyKeys []any
	for _, k := range keys {
		anyKeys = append(anyKeys, k)
	}
	return StaticPublicKeys(anyKeys)
}
