// Package serviceaccount issues and checks service account tokens, as kube-apiserver does:
// bound JWTs signed with the service-account key (<data-dir>/pki/sa.key), carrying the
// kubernetes.io claims (namespace, service account, and the pod, secret or node the token is
// bound to), ported from kubernetes v1.37.2 pkg/serviceaccount (jwt.go, claims.go) and
// pkg/controller/serviceaccount/tokengetter.go.
//
// Core's serviceaccounts/token subresource (servers/core/registry/core) signs with a
// TokenGenerator; the chain's bearer-token authenticator (servers/chain/auth.go) and so
// TokenReview validate with JWTTokenAuthenticator. It lives under internal/ because both sides
// use it.
//
// Where upstream signs with go-jose, this package writes and reads compact JWS itself (jws.go):
// the chain's key is ECDSA P-256, so the one algorithm is ES256, as upstream picks for that key.
package serviceaccount
