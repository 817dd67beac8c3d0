package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
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

// objects is a Lookup over a map: what exists, by resource/namespace/name.
type objects map[string]metav1.Object

func (o objects) lookup(_ context.Context, resource, namespace, name string) (metav1.Object, error) {
	if obj, ok := o[resource+"/"+namespace+"/"+name]; ok {
		return obj, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource(resource), name)
}

func objectMeta(namespace, name, uid string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(uid)}
}

// world is a service account robot in ns, its pod job-1 on node n1, a secret, and an
// authenticator of the tokens signer signs.
type world struct {
	signer  *Signer
	key     crypto.Signer
	objects objects
	authn   authenticator.Token
	sa      *corev1.ServiceAccount
	pod     *corev1.Pod
	node    *corev1.Node
	secret  *corev1.Secret
}

func newWorld(t testing.TB, key crypto.Signer) *world {
	t.Helper()
	signer, err := NewSigner(DefaultIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{signer: signer, key: key,
		sa:     &corev1.ServiceAccount{ObjectMeta: objectMeta("ns", "robot", "uid-sa")},
		pod:    &corev1.Pod{ObjectMeta: objectMeta("ns", "job-1", "uid-pod"), Spec: corev1.PodSpec{ServiceAccountName: "robot", NodeName: "n1"}},
		node:   &corev1.Node{ObjectMeta: objectMeta("", "n1", "uid-node")},
		secret: &corev1.Secret{ObjectMeta: objectMeta("ns", "creds", "uid-secret")},
	}
	w.objects = objects{
		"serviceaccounts/ns/robot": w.sa, "pods/ns/job-1": w.pod, "nodes//n1": w.node, "secrets/ns/creds": w.secret,
	}
	w.authn, err = NewAuthenticator(DefaultIssuer, []crypto.PublicKey{key.Public()}, authenticator.Audiences{DefaultIssuer}, w.objects.lookup)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func ecKey(t testing.TB) crypto.Signer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue signs a token for the world's service account, issued at now, for an hour.
func (w *world) issue(t testing.TB, r Request, now time.Time) string {
	t.Helper()
	r.ServiceAccount = w.sa
	if r.Lifetime == 0 {
		r.Lifetime = time.Hour
	}
	if r.Audiences == nil {
		r.Audiences = []string{DefaultIssuer}
	}
	tok, err := w.signer.Issue(r, now)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func decodePart(t *testing.T, tok string, i int) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWireFormat: the header and the claims kube-apiserver writes, as client-go and other
// verifiers of the chain's tokens read them.
func TestWireFormat(t *testing.T) {
	w := newWorld(t, ecKey(t))
	now := time.Unix(1_800_000_000, 0)
	tok := w.issue(t, Request{Pod: w.pod, Node: w.node, WarnAfter: KubeletTokenSeconds * time.Second, Lifetime: ExtendedTokenLifetime}, now)

	kid, _ := keyID(w.key.Public())
	if h := decodePart(t, tok, 0); len(h) != 2 || h["alg"] != "ES256" || h["kid"] != kid {
		t.Errorf("header %v, want alg ES256 and kid %s only", h, kid)
	}
	p := decodePart(t, tok, 1)
	want := map[string]any{
		"iss": DefaultIssuer, "sub": "system:serviceaccount:ns:robot", "aud": []any{DefaultIssuer},
		"iat": float64(now.Unix()), "nbf": float64(now.Unix()), "exp": float64(now.Add(ExtendedTokenLifetime).Unix()),
	}
	for k, v := range want {
		if got, _ := json.Marshal(p[k]); string(got) != mustJSON(v) {
			t.Errorf("claim %s = %s, want %s", k, got, mustJSON(v))
		}
	}
	if jti, _ := p["jti"].(string); len(jti) != 36 {
		t.Errorf("jti %q, want a UUID", p["jti"])
	}
	k8s, _ := json.Marshal(p["kubernetes.io"])
	wantK8s := `{"namespace":"ns","node":{"name":"n1","uid":"uid-node"},"pod":{"name":"job-1","uid":"uid-pod"},` +
		`"serviceaccount":{"name":"robot","uid":"uid-sa"},"warnafter":1800003607}`
	if string(k8s) != wantK8s {
		t.Errorf("kubernetes.io claims\n got %s\nwant %s", k8s, wantK8s)
	}

	// An RSA key signs RS256.
	if h := decodePart(t, newWorld(t, rsaKey(t)).issue(t, Request{}, now), 0); h["alg"] != "RS256" {
		t.Errorf("RSA header %v", h)
	}
	if _, err := w.signer.Issue(Request{ServiceAccount: w.sa, Secret: w.secret, Pod: w.pod}, now); err == nil {
		t.Error("a token bound to a secret and a pod")
	}
}

func rsaKey(t testing.TB) crypto.Signer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAuthenticate: who a token is, bound or not.
func TestAuthenticate(t *testing.T) {
	w := newWorld(t, ecKey(t))
	ctx := context.Background()
	now := time.Now()
	for _, tc := range []struct {
		name  string
		req   Request
		extra map[string]string
	}{
		{"unbound", Request{}, nil},
		{"pod", Request{Pod: w.pod, Node: w.node}, map[string]string{
			"authentication.kubernetes.io/pod-name": "job-1", "authentication.kubernetes.io/pod-uid": "uid-pod",
			"authentication.kubernetes.io/node-name": "n1", "authentication.kubernetes.io/node-uid": "uid-node"}},
		{"secret", Request{Secret: w.secret}, nil},
		{"node", Request{Node: w.node}, map[string]string{
			"authentication.kubernetes.io/node-name": "n1", "authentication.kubernetes.io/node-uid": "uid-node"}},
	} {
		resp, ok, err := w.authn.AuthenticateToken(ctx, w.issue(t, tc.req, now))
		if err != nil || !ok {
			t.Errorf("%s: %v %v", tc.name, ok, err)
			continue
		}
		u := resp.User
		if u.GetName() != "system:serviceaccount:ns:robot" || u.GetUID() != "uid-sa" ||
			strings.Join(u.GetGroups(), ",") != "system:serviceaccounts,system:serviceaccounts:ns" {
			t.Errorf("%s: user %s %s %v", tc.name, u.GetName(), u.GetUID(), u.GetGroups())
		}
		if id := u.GetExtra()[user.CredentialIDKey]; len(id) != 1 || !strings.HasPrefix(id[0], "JTI=") {
			t.Errorf("%s: credential id %v", tc.name, u.GetExtra())
		}
		for k, v := range tc.extra {
			if got := u.GetExtra()[k]; len(got) != 1 || got[0] != v {
				t.Errorf("%s: extra %s = %v, want %s", tc.name, k, got, v)
			}
		}
		if strings.Join(resp.Audiences, ",") != DefaultIssuer {
			t.Errorf("%s: audiences %v", tc.name, resp.Audiences)
		}
	}
}

// TestRejections: what is not the authenticator's business passes; what is, and fails, fails
// with kube-apiserver's message.
func TestRejections(t *testing.T) {
	w := newWorld(t, ecKey(t))
	ctx := context.Background()
	now := time.Now()
	good := w.issue(t, Request{}, now)
	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"ns"`, `"kube-system"`, 1))) + "." + parts[2]
	otherKey := newWorld(t, ecKey(t)).issue(t, Request{}, now)
	elsewhere, _ := NewSigner("https://issuer.example", w.key)
	foreignIssuer, _ := elsewhere.Issue(Request{ServiceAccount: w.sa, Lifetime: time.Hour}, now)
	vault := w.issue(t, Request{Audiences: []string{"vault"}}, now)

	for _, tc := range []struct {
		name, token string
		ctx         context.Context
		want        string // "" accepted, "pass" not this authenticator's
	}{
		{"not a JWT", "opaque-static-token", ctx, "pass"},
		{"another issuer", foreignIssuer, ctx, "pass"},
		{"unsigned", base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", ctx, "pass"},
		{"another key", otherKey, ctx, "invalid signature, no keys found"},
		{"changed claims", forged, ctx, "go-jose/go-jose: error in cryptographic primitive"},
		{"expired", w.issue(t, Request{}, now.Add(-2*time.Hour)), ctx, "service account token has expired"},
		{"not yet valid", w.issue(t, Request{}, now.Add(time.Hour)), ctx, "service account token is not valid yet"},
		{"for another audience", vault, ctx, `token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]`},
		{"for the audience a TokenReview asks for", vault, authenticator.WithAudiences(ctx, authenticator.Audiences{"vault"}), ""},
	} {
		resp, ok, err := w.authn.AuthenticateToken(tc.ctx, tc.token)
		switch tc.want {
		case "pass":
			if ok || err != nil {
				t.Errorf("%s: want passed on, got %v %v", tc.name, ok, err)
			}
		case "":
			if !ok || err != nil || resp == nil {
				t.Errorf("%s: want accepted, got %v %v", tc.name, ok, err)
			}
		default:
			if ok || err == nil || err.Error() != tc.want {
				t.Errorf("%s: got %v %v, want error %q", tc.name, ok, err, tc.want)
			}
		}
	}
}

// TestRevocation: a token stops working when what it names goes away or is replaced.
func TestRevocation(t *testing.T) {
	w := newWorld(t, ecKey(t))
	ctx := context.Background()
	now := time.Now()
	podBound := w.issue(t, Request{Pod: w.pod, Node: w.node}, now)
	secretBound := w.issue(t, Request{Secret: w.secret}, now)
	nodeBound := w.issue(t, Request{Node: w.node}, now)
	unbound := w.issue(t, Request{}, now)
	check := func(what, tok, want string) {
		t.Helper()
		if _, ok, err := w.authn.AuthenticateToken(ctx, tok); ok || err == nil || err.Error() != want {
			t.Errorf("%s: got %v %v, want %q", what, ok, err, want)
		}
	}
	accepted := func(what, tok string) {
		t.Helper()
		if _, ok, err := w.authn.AuthenticateToken(ctx, tok); !ok || err != nil {
			t.Errorf("%s: got %v %v, want accepted", what, ok, err)
		}
	}

	terminating := func(m metav1.ObjectMeta, ago time.Duration) metav1.ObjectMeta {
		at := metav1.NewTime(now.Add(-ago))
		m.DeletionTimestamp = &at
		return m
	}
	w.objects["pods/ns/job-1"] = &corev1.Pod{ObjectMeta: terminating(w.pod.ObjectMeta, 30*time.Second)}
	accepted("pod terminating for less than the leeway", podBound)
	w.objects["pods/ns/job-1"] = &corev1.Pod{ObjectMeta: terminating(w.pod.ObjectMeta, 2*time.Minute)}
	check("pod terminating for longer", podBound, "service account token has been invalidated")
	w.objects["pods/ns/job-1"] = &corev1.Pod{ObjectMeta: objectMeta("ns", "job-1", "uid-other")}
	check("pod recreated", podBound, "pod UID (uid-other) does not match service account pod ref claim (uid-pod)")
	delete(w.objects, "pods/ns/job-1")
	check("pod deleted", podBound, "service account token has been invalidated")

	w.objects["pods/ns/job-1"] = w.pod
	delete(w.objects, "nodes//n1")
	accepted("the node of a pod-bound token is not checked", podBound)
	w.objects["nodes//n1"] = w.node

	w.objects["secrets/ns/creds"] = &corev1.Secret{ObjectMeta: objectMeta("ns", "creds", "uid-other")}
	check("secret recreated", secretBound, "secret UID (uid-other) does not match service account secret ref claim (uid-secret)")
	delete(w.objects, "secrets/ns/creds")
	check("secret deleted", secretBound, "service account token has been invalidated")
	w.objects["nodes//n1"] = &corev1.Node{ObjectMeta: objectMeta("", "n1", "uid-other")}
	check("node recreated", nodeBound, "node UID (uid-other) does not match service account node ref claim (uid-node)")

	w.objects["serviceaccounts/ns/robot"] = &corev1.ServiceAccount{ObjectMeta: terminating(w.sa.ObjectMeta, 2*time.Minute)}
	check("service account terminating", unbound, "service account ns/robot has been deleted")
	w.objects["serviceaccounts/ns/robot"] = &corev1.ServiceAccount{ObjectMeta: objectMeta("ns", "robot", "uid-other")}
	check("service account recreated", unbound, "service account UID (uid-other) does not match claim (uid-sa)")
	delete(w.objects, "serviceaccounts/ns/robot")
	check("service account deleted", unbound, `serviceaccounts "robot" not found`)
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
	pub, err := LoadPublicKeys(files.ServiceAccountPub)
	if err != nil || len(pub) != 1 {
		t.Fatalf("public keys: %v %v", pub, err)
	}
	w := newWorld(t, key)
	authn, err := NewAuthenticator(DefaultIssuer, pub, authenticator.Audiences{DefaultIssuer}, w.objects.lookup)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := authn.AuthenticateToken(context.Background(), w.issue(t, Request{}, time.Now())); !ok || err != nil {
		t.Errorf("a token signed with sa.key: %v %v", ok, err)
	}
	if _, err := LoadSigningKey(files.ServiceAccountPub); err == nil {
		t.Error("sa.pub read as a private key")
	}
}
