package serviceaccount

// The claims of a bound service account token and their validation, ported from kubernetes
// v1.37.2 pkg/serviceaccount/claims.go with the feature gates it reads at their v1.37 defaults
// (ServiceAccountTokenJTI, ServiceAccountTokenPodNodeInfo, ServiceAccountTokenNodeBinding and
// ServiceAccountTokenNodeBindingValidation are GA; APIServerWebhookAuthenticationToken is alpha,
// off, so webhook-bound tokens are neither issued nor accepted).

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	authenticationtokenjwt "k8s.io/apiserver/pkg/authentication/token/jwt"
	"k8s.io/klog/v2"
)

const (
	// WarnOnlyBoundTokenExpirationSeconds is the expiration kubelets ask for on projected tokens,
	// which kube-apiserver extends (see ExpirationExtensionSeconds) and warns about past it.
	WarnOnlyBoundTokenExpirationSeconds = 60*60 + 7
	// ExpirationExtensionSeconds is how long such a token really lives.
	ExpirationExtensionSeconds = 24 * 365 * 60 * 60
	// defaultLeeway is go-jose's jwt.DefaultLeeway: clock skew tolerated on exp, nbf and iat.
	defaultLeeway = time.Minute
)

// now is stubbed in tests.
var now = time.Now

// NumericDate is a JWT time: seconds since the epoch.
type NumericDate int64

// NewNumericDate returns t as a NumericDate.
func NewNumericDate(t time.Time) *NumericDate {
	d := NumericDate(t.Unix())
	return &d
}

// Time returns the date as a time.
func (n NumericDate) Time() time.Time { return time.Unix(int64(n), 0) }

// Audience is the aud claim: one string or a list of them.
type Audience []string

// UnmarshalJSON accepts a string or a list.
func (a *Audience) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Audience{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New("expected string or array value to unmarshal to Audience")
	}
	*a = l
	return nil
}

// Claims are the registered claims of a token (go-jose's jwt.Claims).
type Claims struct {
	Issuer    string       `json:"iss,omitempty"`
	Subject   string       `json:"sub,omitempty"`
	Audience  Audience     `json:"aud,omitempty"`
	Expiry    *NumericDate `json:"exp,omitempty"`
	NotBefore *NumericDate `json:"nbf,omitempty"`
	IssuedAt  *NumericDate `json:"iat,omitempty"`
	ID        string       `json:"jti,omitempty"`
}

// The go-jose validation errors that claims.go maps to its messages.
var (
	errExpired           = errors.New("validation failed, token is expired (exp)")
	errNotValidYet       = errors.New("validation failed, token not valid yet (nbf)")
	errIssuedInTheFuture = errors.New("validation field, token issued in the future (iat)")
)

// validateTimes is go-jose's Claims.Validate with jwt.Expected{Time: t} and the default leeway.
func (c *Claims) validateTimes(t time.Time) error {
	if c.NotBefore != nil && t.Add(defaultLeeway).Before(c.NotBefore.Time()) {
		return errNotValidYet
	}
	if c.Expiry != nil && t.Add(-defaultLeeway).After(c.Expiry.Time()) {
		return errExpired
	}
	if c.IssuedAt != nil && t.Add(defaultLeeway).Before(c.IssuedAt.Time()) {
		return errIssuedInTheFuture
	}
	return nil
}

// PrivateClaims are the kubernetes.io claims.
type PrivateClaims struct {
	Kubernetes Kubernetes `json:"kubernetes.io,omitempty"`
}

// Kubernetes says whose token it is and what it is bound to.
type Kubernetes struct {
	Namespace string       `json:"namespace,omitempty"`
	Svcacct   Ref          `json:"serviceaccount,omitempty"`
	Pod       *Ref         `json:"pod,omitempty"`
	Secret    *Ref         `json:"secret,omitempty"`
	Node      *Ref         `json:"node,omitempty"`
	WarnAfter *NumericDate `json:"warnafter,omitempty"`
}

// Ref names an object and its UID.
type Ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// NewClaims returns the claims of a token for sa, bound to at most one of pod (with its node)
// or secret or node, valid for expirationSeconds, for audience.
func NewClaims(sa corev1.ServiceAccount, pod *corev1.Pod, secret *corev1.Secret, node *corev1.Node, expirationSeconds, warnafter int64, audience []string) (*Claims, *PrivateClaims, error) {
	t := now()
	sc := &Claims{
		Subject:   apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
		Audience:  Audience(audience),
		IssuedAt:  NewNumericDate(t),
		NotBefore: NewNumericDate(t),
		Expiry:    NewNumericDate(t.Add(time.Duration(expirationSeconds) * time.Second)),
		ID:        newUUID(),
	}
	pc := &PrivateClaims{Kubernetes: Kubernetes{
		Namespace: sa.Namespace,
		Svcacct:   Ref{Name: sa.Name, UID: string(sa.UID)},
	}}
	if secret != nil && (node != nil || pod != nil) {
		return nil, nil, fmt.Errorf("internal error, token can only be bound to one object type")
	}
	switch {
	case pod != nil:
		pc.Kubernetes.Pod = &Ref{Name: pod.Name, UID: string(pod.UID)}
		if node != nil {
			pc.Kubernetes.Node = &Ref{Name: node.Name, UID: string(node.UID)}
		}
	case secret != nil:
		pc.Kubernetes.Secret = &Ref{Name: secret.Name, UID: string(secret.UID)}
	case node != nil:
		pc.Kubernetes.Node = &Ref{Name: node.Name, UID: string(node.UID)}
	}
	if warnafter != 0 {
		pc.Kubernetes.WarnAfter = NewNumericDate(t.Add(time.Duration(warnafter) * time.Second))
	}
	return sc, pc, nil
}

// newUUID is a random (version 4) UUID, as uuid.NewString.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// TokenGetter finds the objects a token names, to check they still exist.
type TokenGetter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	GetNode(ctx context.Context, name string) (*corev1.Node, error)
}

// Validator checks a token whose signature and issuer are verified, and says who it is.
type Validator struct {
	getter TokenGetter
}

// NewValidator returns a validator that looks objects up with getter.
func NewValidator(getter TokenGetter) *Validator {
	return &Validator{getter: getter}
}

// Validate checks times, then that the service account and the bound object still exist with
// the UIDs of the claims and are not being deleted (for longer than the leeway).
func (v *Validator) Validate(ctx context.Context, public *Claims, private *PrivateClaims) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	nowTime := now()
	switch err := public.validateTimes(nowTime); err {
	case nil:
	case errExpired:
		return nil, errors.New("service account token has expired")
	case errNotValidYet:
		return nil, errors.New("service account token is not valid yet")
	case errIssuedInTheFuture:
		return nil, errors.New("service account token is issued in the future")
	default:
		return nil, errors.New("service account token claims could not be validated due to unexpected validation error")
	}

	invalidIfDeletedBefore := nowTime.Add(-defaultLeeway)
	namespace := private.Kubernetes.Namespace
	saref := private.Kubernetes.Svcacct
	podref := private.Kubernetes.Pod
	noderef := private.Kubernetes.Node
	secref := private.Kubernetes.Secret

	serviceAccount, err := v.getter.GetServiceAccount(ctx, namespace, saref.Name)
	if err != nil {
		klog.V(4).Infof("Could not retrieve service account %s/%s: %v", namespace, saref.Name, err)
		return nil, err
	}
	if string(serviceAccount.UID) != saref.UID {
		klog.V(4).Infof("Service account UID no longer matches %s/%s: %q != %q", namespace, saref.Name, string(serviceAccount.UID), saref.UID)
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", serviceAccount.UID, saref.UID)
	}
	if serviceAccount.DeletionTimestamp != nil && serviceAccount.DeletionTimestamp.Time.Before(invalidIfDeletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", namespace, saref.Name)
	}

	if secref != nil {
		secret, err := v.getter.GetSecret(ctx, namespace, secref.Name)
		if err != nil {
			klog.V(4).Infof("Could not retrieve bound secret %s/%s for service account %s/%s: %v", namespace, secref.Name, namespace, saref.Name, err)
			return nil, errors.New("service account token has been invalidated")
		}
		if secref.UID != string(secret.UID) {
			return nil, fmt.Errorf("secret UID (%s) does not match service account secret ref claim (%s)", secret.UID, secref.UID)
		}
		if secret.DeletionTimestamp != nil && secret.DeletionTimestamp.Time.Before(invalidIfDeletedBefore) {
			return nil, errors.New("service account token has been invalidated")
		}
	}

	var podName, podUID string
	if podref != nil {
		pod, err := v.getter.GetPod(ctx, namespace, podref.Name)
		if err != nil {
			klog.V(4).Infof("Could not retrieve bound pod %s/%s for service account %s/%s: %v", namespace, podref.Name, namespace, saref.Name, err)
			return nil, errors.New("service account token has been invalidated")
		}
		if podref.UID != string(pod.UID) {
			return nil, fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", pod.UID, podref.UID)
		}
		if pod.DeletionTimestamp != nil && pod.DeletionTimestamp.Time.Before(invalidIfDeletedBefore) {
			return nil, errors.New("service account token has been invalidated")
		}
		podName, podUID = podref.Name, podref.UID
	}

	var nodeName, nodeUID string
	if noderef != nil {
		if podref != nil {
			// A pod-bound token only carries its node's name and UID along.
			nodeName, nodeUID = noderef.Name, noderef.UID
		} else {
			node, err := v.getter.GetNode(ctx, noderef.Name)
			if err != nil {
				klog.V(4).Infof("Could not retrieve node object %q for service account %s/%s: %v", noderef.Name, namespace, saref.Name, err)
				return nil, errors.New("service account token has been invalidated")
			}
			if noderef.UID != string(node.UID) {
				return nil, fmt.Errorf("node UID (%s) does not match service account node ref claim (%s)", node.UID, noderef.UID)
			}
			if node.DeletionTimestamp != nil && node.DeletionTimestamp.Time.Before(invalidIfDeletedBefore) {
				return nil, errors.New("service account token has been invalidated")
			}
			nodeName, nodeUID = noderef.Name, noderef.UID
		}
	}

	// warnafter only feeds kube-apiserver's stale-token audit annotation and metrics.
	return &apiserverserviceaccount.ServiceAccountInfo{
		Namespace:    private.Kubernetes.Namespace,
		Name:         private.Kubernetes.Svcacct.Name,
		UID:          private.Kubernetes.Svcacct.UID,
		PodName:      podName,
		PodUID:       podUID,
		NodeName:     nodeName,
		NodeUID:      nodeUID,
		CredentialID: authenticationtokenjwt.CredentialIDForJTI(public.ID),
	}, nil
}
