package serviceaccount

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	authenticationtokenjwt "k8s.io/apiserver/pkg/authentication/token/jwt"
)

// leeway is the clock skew tolerated on exp, nbf and iat, and how long an object the token
// names may have been terminating before the token stops working.
const leeway = time.Minute

// Lookup returns the object a token names: resource is serviceaccounts, pods, secrets or
// nodes (namespace empty). It returns the API's NotFound for an object that does not exist.
type Lookup func(ctx context.Context, resource, namespace, name string) (metav1.Object, error)

// NewAuthenticator returns the authenticator of issuer's tokens: signed with one of keys, for
// one of the audiences of the request (apiAudiences, the API server's own, unless a
// TokenReview asks for others), naming objects that lookup still finds. A bearer token that is
// not a JWT of issuer is not its business: it passes (false, no error).
func NewAuthenticator(issuer string, keys []crypto.PublicKey, apiAudiences authenticator.Audiences, lookup Lookup) (authenticator.Token, error) {
	a := &tokenAuthenticator{issuer: issuer, apiAudiences: apiAudiences, lookup: lookup}
	for _, key := range keys {
		alg, err := algorithm(key)
		if err != nil {
			return nil, err
		}
		kid, err := keyID(key)
		if err != nil {
			return nil, err
		}
		a.keys = append(a.keys, verifyingKey{kid, key})
		if !slices.Contains(a.algorithms, alg) {
			a.algorithms = append(a.algorithms, alg)
		}
	}
	return a, nil
}

type tokenAuthenticator struct {
	issuer       string
	keys         []verifyingKey
	algorithms   []jose.SignatureAlgorithm
	apiAudiences authenticator.Audiences
	lookup       Lookup
}

type verifyingKey struct {
	id  string
	key crypto.PublicKey
}

func (a *tokenAuthenticator) AuthenticateToken(ctx context.Context, raw string) (*authenticator.Response, bool, error) {
	tok, err := jwt.ParseSigned(raw, a.algorithms)
	if err != nil {
		return nil, false, nil
	}
	var unverified jwt.Claims
	if tok.UnsafeClaimsWithoutVerification(&unverified) != nil || unverified.Issuer != a.issuer {
		return nil, false, nil
	}

	// The token's kid picks the keys to try; a token without one tries them all.
	var c claims
	var errs []error
	tried := false
	for _, k := range a.keys {
		if kid := tok.Headers[0].KeyID; kid != "" && kid != k.id {
			continue
		}
		tried = true
		if err := tok.Claims(k.key, &c); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = nil
		break
	}
	if !tried {
		return nil, false, errors.New("invalid signature, no keys found")
	}
	if len(errs) > 0 {
		return nil, false, utilerrors.NewAggregate(errs)
	}

	// For whom: a token without audiences is for the API server only.
	tokenAudiences := authenticator.Audiences(c.Audience)
	if len(tokenAudiences) == 0 {
		tokenAudiences = a.apiAudiences
	}
	wanted, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		wanted = a.apiAudiences
	}
	audiences := tokenAudiences.Intersect(wanted)
	if len(audiences) == 0 && len(a.apiAudiences) != 0 {
		return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAudiences, wanted)
	}

	info, err := a.check(ctx, &c, time.Now())
	if err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: info.UserInfo(), Audiences: audiences}, true, nil
}

// check says whose a verified token is, if its times hold at now and every object it names is
// still there, with the UID it names, and not terminating for longer than the leeway.
func (a *tokenAuthenticator) check(ctx context.Context, c *claims, now time.Time) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	switch err := c.Claims.ValidateWithLeeway(jwt.Expected{Time: now}, leeway); {
	case err == nil:
	case errors.Is(err, jwt.ErrExpired):
		return nil, errors.New("service account token has expired")
	case errors.Is(err, jwt.ErrNotValidYet):
		return nil, errors.New("service account token is not valid yet")
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, errors.New("service account token is issued in the future")
	default:
		return nil, errors.New("service account token claims could not be validated due to unexpected validation error")
	}

	k := c.Kubernetes
	gone := func(obj metav1.Object) bool {
		t := obj.GetDeletionTimestamp()
		return t != nil && t.Time.Before(now.Add(-leeway))
	}
	sa, err := a.lookup(ctx, "serviceaccounts", k.Namespace, k.ServiceAccount.Name)
	switch {
	case err != nil:
		return nil, err
	case string(sa.GetUID()) != k.ServiceAccount.UID:
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.GetUID(), k.ServiceAccount.UID)
	case gone(sa):
		return nil, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.ServiceAccount.Name)
	}

	info := &apiserverserviceaccount.ServiceAccountInfo{
		Namespace:    k.Namespace,
		Name:         k.ServiceAccount.Name,
		UID:          k.ServiceAccount.UID,
		CredentialID: authenticationtokenjwt.CredentialIDForJTI(c.ID),
	}
	// A bound object that is gone (or another by the same name) invalidates the token. The node
	// of a pod-bound token is only carried along: the pod is what the token is bound to.
	type binding struct {
		kind, resource, namespace string
		ref                       *ref
	}
	bound := []binding{{"secret", "secrets", k.Namespace, k.Secret}, {"pod", "pods", k.Namespace, k.Pod}}
	if k.Pod == nil {
		bound = append(bound, binding{"node", "nodes", "", k.Node})
	}
	for _, b := range bound {
		if b.ref == nil {
			continue
		}
		obj, err := a.lookup(ctx, b.resource, b.namespace, b.ref.Name)
		switch {
		case err != nil:
			return nil, errors.New("service account token has been invalidated")
		case string(obj.GetUID()) != b.ref.UID:
			return nil, fmt.Errorf("%s UID (%s) does not match service account %s ref claim (%s)", b.kind, obj.GetUID(), b.kind, b.ref.UID)
		case gone(obj):
			return nil, errors.New("service account token has been invalidated")
		}
	}
	if k.Pod != nil {
		info.PodName, info.PodUID = k.Pod.Name, k.Pod.UID
	}
	if k.Node != nil {
		info.NodeName, info.NodeUID = k.Node.Name, k.Node.UID
	}
	return info, nil
}
