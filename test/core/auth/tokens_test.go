package auth_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// tokenConfig is a client that authenticates with a bearer token only.
func tokenConfig(base *rest.Config, token string) *rest.Config {
	cfg := rest.AnonymousClientConfig(base)
	cfg.BearerToken = token
	return cfg
}

func whoami(t *testing.T, cfg *rest.Config) (authenticationv1.UserInfo, error) {
	t.Helper()
	r, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}

// TestKubectlCreateToken: `kubectl create token` issues a bound service account token, which the
// chain accepts, TokenReview identifies, and RBAC authorizes through ServiceAccount subjects;
// deleting the service account (or the pod it is bound to) revokes it.
func TestKubectlCreateToken(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	out, err := testchain.KubectlInput(t, shared, "", "create", "token", "default", "-n", ns)
	if err != nil {
		t.Fatalf("kubectl create token: %v\n%s", err, out)
	}
	token := strings.TrimSpace(out)
	saUser := "system:serviceaccount:" + ns + ":default"

	u, err := whoami(t, tokenConfig(shared.Admin, token))
	if err != nil || u.Username != saUser || strings.Join(u.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:"+ns+",system:authenticated" {
		t.Fatalf("the token is %+v, %v", u, err)
	}
	review, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil || !review.Status.Authenticated || review.Status.User.Username != saUser ||
		len(review.Status.Audiences) != 1 || review.Status.Audiences[0] != "https://kubernetes.default.svc.cluster.local" {
		t.Errorf("TokenReview: %v %+v", err, review.Status)
	}

	// RBAC by ServiceAccount subject (no namespace: the binding's).
	bind(t, ns, "sa-readers", roleRef("Role", "cm-reader"), rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "default"},
		rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
	saCfg := tokenConfig(shared.Admin, token)
	coretest.WaitAllowed(t, saCfg, authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: ns})
	if _, err := kubernetes.NewForConfigOrDie(saCfg).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("the service account lists configmaps: %v", err)
	}

	// Another audience: not for the chain, but TokenReview can ask for it.
	out, err = testchain.KubectlInput(t, shared, "", "create", "token", "default", "-n", ns, "--audience", "vault", "--duration", "20m")
	if err != nil {
		t.Fatalf("kubectl create token --audience: %v\n%s", err, out)
	}
	vault := strings.TrimSpace(out)
	if resp, body := testchain.Do(t, tokenConfig(shared.Admin, vault), http.MethodGet, "/api", nil, ""); resp.StatusCode != 401 {
		t.Errorf("a token for vault at the chain: %d %s", resp.StatusCode, body)
	}
	review, err = cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: vault, Audiences: []string{"vault"}}}, metav1.CreateOptions{})
	if err != nil || !review.Status.Authenticated || review.Status.User.Username != saUser {
		t.Errorf("TokenReview for vault: %v %+v", err, review.Status)
	}

	// Bound to a pod: the pod is in the user's extra, and its deletion revokes the token.
	p := coretest.Pod("web")
	p.Spec.ServiceAccountName = "default"
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err = testchain.KubectlInput(t, shared, "", "create", "token", "default", "-n", ns, "--bound-object-kind", "Pod", "--bound-object-name", "web")
	if err != nil {
		t.Fatalf("kubectl create token --bound-object-kind Pod: %v\n%s", err, out)
	}
	podCfg := tokenConfig(shared.Admin, strings.TrimSpace(out))
	if u, err := whoami(t, podCfg); err != nil || u.Extra["authentication.kubernetes.io/pod-name"][0] != "web" {
		t.Errorf("pod-bound token: %+v %v", u, err)
	}
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	testchain.WaitFor(t, func() bool { _, err := whoami(t, podCfg); return apierrors.IsUnauthorized(err) })

	// Deleting the service account revokes its tokens. (The first error is the loopback token
	// authenticator's, which kube-apiserver has in front too.)
	if err := cs.CoreV1().ServiceAccounts(ns).Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.WaitFor(t, func() bool { _, err := whoami(t, saCfg); return apierrors.IsUnauthorized(err) })
	review, err = cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil || review.Status.Authenticated || review.Status.Error != `[invalid bearer token, serviceaccounts "default" not found]` {
		t.Errorf("TokenReview of a deleted service account's token: %v %+v", err, review.Status)
	}
}

// TestTokenRequestValidation: the TokenRequest API's defaults and errors.
func TestTokenRequestValidation(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *tr.Spec.ExpirationSeconds != 3600 || len(tr.Spec.Audiences) != 1 || tr.Spec.Audiences[0] != "https://kubernetes.default.svc.cluster.local" ||
		tr.Status.Token == "" || tr.Name != "robot" || tr.Namespace != ns || tr.UID == "" {
		t.Errorf("defaults: %+v", tr)
	}
	for _, tc := range []struct {
		req  *authenticationv1.TokenRequest
		name string
		want string
	}{
		{&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](599)}}, "robot",
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`},
		{&authenticationv1.TokenRequest{}, "nobody", `serviceaccounts "nobody" not found`},
		{&authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, "robot",
			`TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified`},
		{&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "gone"}}}, "robot",
			`pods "gone" not found`},
		{&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "ConfigMap", APIVersion: "v1", Name: "x"}}}, "robot",
			`cannot bind token to object of type /v1, Kind=ConfigMap`},
	} {
		_, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, tc.name, tc.req, metav1.CreateOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("TokenRequest %+v:\n got  %v\n want %s", tc.req, err, tc.want)
		}
	}
}

// TestTokenAuthFileAndRBACAfterRestart runs its own chain, with --token-auth-file: a static
// token's user is who the file says, authorized by RBAC. After a restart the bootstrap policy is
// reconciled: a deleted bootstrap role comes back, a rule a user added to one stays, and a role
// annotated autoupdate=false is left as the user left it.
func TestTokenAuthFileAndRBACAfterRestart(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte("s3cr3t,tina,uid-7,\"devs,ops\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func() *testchain.Chain {
		c, err := testchain.StartIn(dir, nil, func(o *chain.Options) { o.TokenAuthFile = tokenFile })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	c := start()
	cs := kubernetes.NewForConfigOrDie(c.Admin)

	tina := tokenConfig(c.Admin, "s3cr3t")
	u, err := whoami(t, tina)
	if err != nil || u.Username != "tina" || u.UID != "uid-7" || strings.Join(u.Groups, ",") != "devs,ops,system:authenticated" {
		t.Fatalf("tina is %+v, %v", u, err)
	}
	if resp, _ := testchain.Do(t, tokenConfig(c.Admin, "wrong"), http.MethodGet, "/readyz", nil, ""); resp.StatusCode != 401 {
		t.Errorf("an unknown token: %d, want 401", resp.StatusCode)
	}
	if _, err := kubernetes.NewForConfigOrDie(tina).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("tina lists namespaces: %v", err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "ops-read-namespaces"},
		RoleRef: roleRef("ClusterRole", "system:controller:namespace-controller"), Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "ops"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.WaitFor(t, func() bool {
		_, err := kubernetes.NewForConfigOrDie(tina).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		return err == nil
	})

	// Change the bootstrap policy, then restart.
	if err := cs.RbacV1().ClusterRoles().Delete(ctx, "system:heapster", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.RbacV1().ClusterRoleBindings().Delete(ctx, "system:basic-user", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	extra := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	view, _ := cs.RbacV1().ClusterRoles().Get(ctx, "system:aggregate-to-view", metav1.GetOptions{})
	view.Rules = append(view.Rules, extra)
	if _, err := cs.RbacV1().ClusterRoles().Update(ctx, view, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	dns, _ := cs.RbacV1().ClusterRoles().Get(ctx, "system:kube-dns", metav1.GetOptions{})
	dns.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	dns.Rules = nil
	if _, err := cs.RbacV1().ClusterRoles().Update(ctx, dns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	c = start()
	defer c.Stop()
	cs = kubernetes.NewForConfigOrDie(c.Admin)
	if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "system:heapster", metav1.GetOptions{}); err != nil {
		t.Errorf("a deleted bootstrap role after restart: %v", err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, "system:basic-user", metav1.GetOptions{}); err != nil {
		t.Errorf("a deleted bootstrap binding after restart: %v", err)
	}
	view, _ = cs.RbacV1().ClusterRoles().Get(ctx, "system:aggregate-to-view", metav1.GetOptions{})
	if last := view.Rules[len(view.Rules)-1]; len(last.APIGroups) != 1 || last.APIGroups[0] != "example.com" {
		t.Errorf("a rule added to a bootstrap role was dropped: %v", view.Rules)
	}
	dns, _ = cs.RbacV1().ClusterRoles().Get(ctx, "system:kube-dns", metav1.GetOptions{})
	if len(dns.Rules) != 0 {
		t.Errorf("an autoupdate=false role was reconciled: %v", dns.Rules)
	}
	// The user's binding is still there, and the static token still works.
	if _, err := kubernetes.NewForConfigOrDie(tokenConfig(c.Admin, "s3cr3t")).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("tina after restart: %v", err)
	}
}
