// Package serviceaccount issues and checks service account tokens, as kube-apiserver does.
//
// A token is a JWT signed with the chain's service-account key (<data-dir>/pki/sa.key): the
// registered claims (issuer, subject system:serviceaccount:<namespace>:<name>, audiences,
// expiry, a random ID) and the kubernetes.io claims, which name the service account and the
// pod, secret or node the token is bound to. Core's serviceaccounts/token subresource
// (servers/core/registry/core) issues tokens with a Signer; the chain's bearer-token
// authentication (servers/chain/auth.go), and through it TokenReview, checks them with
// NewAuthenticator: the signature, the audience, and that every object the token names still
// exists with the UID it had. go-jose does the JOSE part.
//
// It lives under internal/ because both sides use it.
package serviceaccount
