package serviceaccount

import (
	"crypto"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// DefaultIssuer is the iss of the chain's tokens: what kubeadm passes as
// --service-account-issuer.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// Kubelets ask for pod-bound tokens of this lifetime. kube-apiserver (with
// --service-account-extend-token-expiration, on by default) makes such a token live a year
// and sets its warnafter to the lifetime asked for, so that old clients that do not refresh
// their token keep working while the cluster warns about them.
const (
	KubeletTokenSeconds   = 60*60 + 7
	ExtendedTokenLifetime = 365 * 24 * time.Hour
)

// claims is the payload of a token.
type claims struct {
	jwt.Claims
	// Audience is always a list, as kube-apiserver writes it (go-jose writes one audience as a
	// string): it hides jwt.Claims' own.
	Audience   []string         `json:"aud,omitempty"`
	Kubernetes kubernetesClaims `json:"kubernetes.io"`
}

type kubernetesClaims struct {
	Namespace      string `json:"namespace,omitempty"`
	ServiceAccount ref    `json:"serviceaccount"`
	// At most one of Pod (then Node is the pod's node, if it has one), Secret and Node.
	Pod    *ref `json:"pod,omitempty"`
	Secret *ref `json:"secret,omitempty"`
	Node   *ref `json:"node,omitempty"`
	// WarnAfter is set on extended kubelet tokens: when they would have expired.
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

// ref names an object of the token's claims.
type ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

func refTo(name, uid string) *ref { return &ref{Name: name, UID: uid} }

// Request says whom a token is for and what it is bound to.
type Request struct {
	ServiceAccount *corev1.ServiceAccount
	// The object the token is bound to: a pod (and the node it runs on, if any: its UID may be
	// missing), a secret, or a node; nil for none.
	Pod    *corev1.Pod
	Node   *corev1.Node
	Secret *corev1.Secret
	// Audiences are the token's aud.
	Audiences []string
	// Lifetime is from now to exp; WarnAfter, when not zero, from now to warnafter.
	Lifetime, WarnAfter time.Duration
}

// TokenGenerator issues tokens: a Signer.
type TokenGenerator interface {
	Issue(r Request, now time.Time) (string, error)
}

// Signer signs the tokens of one issuer with one key.
type Signer struct {
	issuer string
	signer jose.Signer
}

// NewSigner returns a Signer of issuer's tokens; the header names the key by its ID.
func NewSigner(issuer string, key crypto.Signer) (*Signer, error) {
	alg, err := algorithm(key.Public())
	if err != nil {
		return nil, err
	}
	kid, err := keyID(key.Public())
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, nil)
	if err != nil {
		return nil, fmt.Errorf("service account token signer: %w", err)
	}
	return &Signer{issuer: issuer, signer: signer}, nil
}

// Issue signs a token for r, issued now.
func (s *Signer) Issue(r Request, now time.Time) (string, error) {
	sa := r.ServiceAccount
	if r.Secret != nil && (r.Pod != nil || r.Node != nil) {
		return "", errors.New("a token is bound to a secret, or to a pod (and its node), or to a node: not to two of them")
	}
	c := claims{
		Claims: jwt.Claims{
			Issuer:    s.issuer,
			Subject:   apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			Expiry:    jwt.NewNumericDate(now.Add(r.Lifetime)),
			ID:        string(uuid.NewUUID()),
		},
		Audience: r.Audiences,
		Kubernetes: kubernetesClaims{
			Namespace:      sa.Namespace,
			ServiceAccount: ref{Name: sa.Name, UID: string(sa.UID)},
		},
	}
	k := &c.Kubernetes
	if r.Pod != nil {
		k.Pod = refTo(r.Pod.Name, string(r.Pod.UID))
	}
	if r.Secret != nil {
		k.Secret = refTo(r.Secret.Name, string(r.Secret.UID))
	}
	if r.Node != nil {
		k.Node = refTo(r.Node.Name, string(r.Node.UID))
	}
	if r.WarnAfter != 0 {
		k.WarnAfter = jwt.NewNumericDate(now.Add(r.WarnAfter))
	}
	return jwt.Signed(s.signer).Claims(c).Serialize()
}
