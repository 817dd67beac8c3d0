package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/apichain/apichain/internal/pki"
)

// fakeGetter holds the objects that exist.
type fakeGetter struct {
	sas     map[string]*corev1.ServiceAccount
	pods    map[string]*corev1.Pod
	secrets map[string]*corev1.Secret
	nodes   map[string]*corev1.Node
}

func (f *fakeGetter) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if o, ok := f.sas[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
}
func (f *fakeGetter) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	if o, ok := f.pods[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}
func (f *fakeGetter) GetSecret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if o, ok := f.secrets[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("secrets"), name)
}
func (f *fakeGetter) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	if o, ok := f.nodes[name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
}

func objMeta(ns, name, uid string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}
}

type fixture struct {
	key    *ecdsa.PrivateKey
	gen    TokenGenerator
	getter *fakeGetter
	authn  authenticator.Token
	sa     *corev1.ServiceAccount
	pod    *corev1.Pod
	node   *corev1.Node
	secret *corev1.Secret
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := JWTTokenGenerator(DefaultIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{key: key, gen: gen,
		sa:     &corev1.ServiceAccount{ObjectMeta: objMeta("ns", "default", "sa-uid")},
		pod:    &corev1.Pod{ObjectMeta: objMeta("ns", "web", "pod-uid"), Spec: corev1.PodSpec{ServiceAccountName: "default", NodeName: "n1"}},
		node:   &corev1.Node{ObjectMeta: objMeta("", "n1", "node-uid")},
		secret: &corev1.Secret{ObjectMeta: objMeta("ns", "s", "secret-uid")},
	}
	f.getter = &fakeGetter{
		sas:     map[string]*corev1.ServiceAccount{"ns/default": f.sa},
		pods:    map[string]*corev1.Pod{"ns/web": f.pod},
		secrets: map[string]*corev1.Secret{"ns/s": f.secret},
		nodes:   map[string]*corev1.Node{"n1": f.node},
	}
	keys, err := StaticPublicKeys([]any{&key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	f.authn = JWTTokenAuthenticator([]string{DefaultIssuer}, keys, authenticator.Audiences{DefaultIssuer}, NewValidator(f.getter))
	return f
}

func (f *fixture) token(t testing.TB, pod *corev1.Pod, secret *corev1.Secret, node *corev1.Node, seconds int64, auds ...string) string {
	t.Helper()
	if len(auds) == 0 {
		auds = []string{DefaultIssuer}
	}
	c, pc, err := NewClaims(*f.sa, pod, secret, node, seconds, 0, auds)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := f.gen.GenerateToken(context.Background(), c, pc)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTokenRoundTrip(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()

	// Unbound.
	resp, ok, err := f.authn.AuthenticateToken(ctx, f.token(t, nil, nil, nil, 3600))
	if err != nil || !ok {
		t.Fatalf("unbound token: %v %v", ok, err)
	}
	u := resp.User
	if u.GetName() != "system:serviceaccount:ns:default" || u.GetUID() != "sa-uid" ||
		strings.Join(u.GetGroups(), ",") != "system:serviceaccounts,system:serviceaccounts:ns" {
		t.Errorf("user: %s %s %v", u.GetName(), u.GetUID(), u.GetGroups())
	}
	if jti := u.GetExtra()[user.CredentialIDKey]; len(jti) != 1 || !strings.HasPrefix(jti[0], "JTI=") {
		t.Errorf("credential id: %v", u.GetExtra())
	}
	if len(resp.Audiences) != 1 || resp.Audiences[0] != DefaultIssuer {
		t.Errorf("audiences: %v", resp.Audiences)
	}

	// Bound to a pod: the pod and its node in the user's extra.
	resp, ok, err = f.authn.AuthenticateToken(ctx, f.token(t, f.pod, nil, f.node, 3600))
	if err != nil || !ok {
		t.Fatalf("pod-bound token: %v %v", ok, err)
	}
	extra := resp.User.GetExtra()
	if extra["authentication.kubernetes.io/pod-name"][0] != "web" || extra["authentication.kubernetes.io/pod-uid"][0] != "pod-uid" ||
		extra["authentication.kubernetes.io/node-name"][0] != "n1" || extra["authentication.kubernetes.io/node-uid"][0] != "node-uid" {
		t.Errorf("pod-bound extra: %v", extra)
	}

	// Bound to a secret, and to a node.
	if _, ok, err := f.authn.AuthenticateToken(ctx, f.token(t, nil, f.secret, nil, 3600)); !ok || err != nil {
		t.Errorf("secret-bound token: %v %v", ok, err)
	}
	if _, ok, err := f.authn.AuthenticateToken(ctx, f.token(t, nil, nil, f.node, 3600)); !ok || err != nil {
		t.Errorf("node-bound token: %v %v", ok, err)
	}

	// The wire format: ES256 with the key's ID; the claims kube-apiserver writes.
	tok := f.token(t, f.pod, nil, f.node, 3600)
	parts := strings.Split(tok, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	kid, _ := keyIDFromPublicKey(&f.key.PublicKey)
	if string(header) != `{"alg":"ES256","kid":"`+kid+`"}` {
		t.Errorf("header %s", header)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	for _, k := range []string{"iss", "sub", "aud", "exp", "iat", "nbf", "jti", "kubernetes.io"} {
		if _, ok := claims[k]; !ok {
			t.Errorf("claim %s missing: %s", k, payload)
		}
	}
	k8s, _ := claims["kubernetes.io"].(map[string]any)
	if k8s["namespace"] != "ns" || k8s["pod"] == nil || k8s["node"] == nil || k8s["serviceaccount"] == nil {
		t.Errorf("kubernetes.io claims: %v", k8s)
	}
}

func TestTokenRejections(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	good := f.token(t, f.pod, nil, nil, 3600)

	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherGen, _ := JWTTokenGenerator(DefaultIssuer, otherKey)
	c, pc, _ := NewClaims(*f.sa, nil, nil, nil, 3600, 0, []string{DefaultIssuer})
	foreign, _ := otherGen.GenerateToken(ctx, c, pc)
	otherIssuer, _ := JWTTokenGenerator("https://elsewhere", f.key)
	elsewhere, _ := otherIssuer.GenerateToken(ctx, c, pc)

	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(mustDecode(parts[1]), `"ns"`, `"kube-system"`, 1))) + "." + parts[2]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + "."

	expired := func() string {
		defer func(n func() time.Time) { now = n }(now)
		now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
		return f.token(t, nil, nil, nil, 3600)
	}()
	future := func() string {
		defer func(n func() time.Time) { now = n }(now)
		now = func() time.Time { return time.Now().Add(time.Hour) }
		return f.token(t, nil, nil, nil, 3600)
	}()

	cases := []struct {
		name    string
		token   string
		ctx     context.Context
		mine    bool // the authenticator claims the token (ok or error) rather than passing
		wantErr string
	}{
		{"not a JWT", "abc", ctx, false, ""},
		{"another issuer", elsewhere, ctx, false, ""},
		{"another key", foreign, ctx, true, "invalid signature, no keys found"},
		{"tampered", tampered, ctx, true, "crypto/ecdsa: verification error"},
		{"alg none", none, ctx, true, `unexpected signature algorithm "none"; expected "ES256"`},
		{"expired", expired, ctx, true, "service account token has expired"},
		{"not yet valid", future, ctx, true, "service account token is not valid yet"},
		{"wrong audience", f.token(t, nil, nil, nil, 3600, "vault"), ctx, true,
			`token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]`},
		{"requested audience", f.token(t, nil, nil, nil, 3600, "vault"), authenticator.WithAudiences(ctx, authenticator.Audiences{"vault"}), true, ""},
	}
	for _, tc := range cases {
		resp, ok, err := f.authn.AuthenticateToken(tc.ctx, tc.token)
		switch {
		case !tc.mine && (ok || err != nil):
			t.Errorf("%s: the authenticator should pass: %v %v", tc.name, ok, err)
		case tc.mine && tc.wantErr == "" && (!ok || err != nil || resp == nil):
			t.Errorf("%s: want accepted, got %v %v", tc.name, ok, err)
		case tc.wantErr != "" && (ok || err == nil || err.Error() != tc.wantErr):
			t.Errorf("%s: got %v %v, want error %q", tc.name, ok, err, tc.wantErr)
		}
	}

	// The objects it names go away (or are replaced).
	delete(f.getter.pods, "ns/web")
	if _, ok, err := f.authn.AuthenticateToken(ctx, good); ok || err == nil || err.Error() != "service account token has been invalidated" {
		t.Errorf("deleted bound pod: %v %v", ok, err)
	}
	f.getter.pods["ns/web"] = &corev1.Pod{ObjectMeta: objMeta("ns", "web", "new-uid")}
	if _, ok, err := f.authn.AuthenticateToken(ctx, good); ok || err == nil || err.Error() != "pod UID (new-uid) does not match service account pod ref claim (pod-uid)" {
		t.Errorf("recreated bound pod: %v %v", ok, err)
	}
	terminating := metav1.NewTime(time.Now().Add(-2 * time.Minute))
	f.getter.pods["ns/web"] = f.pod.DeepCopy()
	f.getter.pods["ns/web"].DeletionTimestamp = &terminating
	if _, ok, err := f.authn.AuthenticateToken(ctx, good); ok || err == nil || err.Error() != "service account token has been invalidated" {
		t.Errorf("pod deleted for longer than the leeway: %v %v", ok, err)
	}
	secretBound := f.token(t, nil, f.secret, nil, 3600)
	delete(f.getter.secrets, "ns/s")
	if _, ok, err := f.authn.AuthenticateToken(ctx, secretBound); ok || err == nil || err.Error() != "service account token has been invalidated" {
		t.Errorf("deleted bound secret: %v %v", ok, err)
	}
	unbound := f.token(t, nil, nil, nil, 3600)
	f.getter.sas["ns/default"] = &corev1.ServiceAccount{ObjectMeta: objMeta("ns", "default", "other-uid")}
	if _, ok, err := f.authn.AuthenticateToken(ctx, unbound); ok || err == nil || err.Error() != "service account UID (other-uid) does not match claim (sa-uid)" {
		t.Errorf("recreated service account: %v %v", ok, err)
	}
	delete(f.getter.sas, "ns/default")
	if _, ok, err := f.authn.AuthenticateToken(ctx, unbound); ok || err == nil || err.Error() != `serviceaccounts "default" not found` {
		t.Errorf("deleted service account: %v %v", ok, err)
	}
}

func mustDecode(s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestNewClaimsBindsOneKindOnly(t *testing.T) {
	sa := corev1.ServiceAccount{ObjectMeta: objMeta("ns", "default", "u")}
	if _, _, err := NewClaims(sa, &corev1.Pod{}, &corev1.Secret{}, nil, 600, 0, nil); err == nil {
		t.Error("a token bound to a pod and a secret")
	}
	c, pc, err := NewClaims(sa, nil, nil, nil, 600, 0, []string{"a", "b"})
	if err != nil || c.Subject != "system:serviceaccount:ns:default" || *c.Expiry-*c.IssuedAt != 600 || len(c.Audience) != 2 || pc.Kubernetes.Svcacct.UID != "u" {
		t.Errorf("claims %+v %+v %v", c, pc, err)
	}
}

// TestKeysFromTheDataDir: the chain's sa.key signs what sa.pub verifies.
func TestKeysFromTheDataDir(t *testing.T) {
	files := pki.FilesIn(t.TempDir())
	if _, err := pki.Ensure(files, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	key, err := LoadSigningKey(files.ServiceAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := LoadPublicKeys(files.ServiceAccountPub)
	if err != nil || len(keys) != 1 {
		t.Fatalf("public keys: %v %v", keys, err)
	}
	f := newFixture(t)
	gen, _ := JWTTokenGenerator(DefaultIssuer, key)
	c, pc, _ := NewClaims(*f.sa, nil, nil, nil, 600, 0, []string{DefaultIssuer})
	tok, err := gen.GenerateToken(context.Background(), c, pc)
	if err != nil {
		t.Fatal(err)
	}
	authn := JWTTokenAuthenticator([]string{DefaultIssuer}, keys, authenticator.Audiences{DefaultIssuer}, NewValidator(f.getter))
	if _, ok, err := authn.AuthenticateToken(context.Background(), tok); !ok || err != nil {
		t.Errorf("token signed with sa.key: %v %v", ok, err)
	}
	if _, err := LoadSigningKey(files.ServiceAccountPub); err == nil {
		t.Error("sa.pub is not a private key")
	}
}
