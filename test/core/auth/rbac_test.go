package auth_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// RBAC through the whole chain: the authorizer reads Roles and bindings from the shared
// informers, so every grant is waited for (coretest.WaitAllowed) before it is used.

// uniqueUser is a user name no other test uses.
func uniqueUser(prefix string) string { return prefix + "-" + rand.String(5) }

// bind creates a Role with rules in ns (unless rules is empty and roleRef names a ClusterRole)
// and binds it to subject.
func bind(t *testing.T, ns, name string, roleRef rbacv1.RoleRef, subject rbacv1.Subject, rules ...rbacv1.PolicyRule) {
	t.Helper()
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	if roleRef.Kind == "Role" {
		if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: roleRef.Name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef: roleRef, Subjects: []rbacv1.Subject{subject}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func roleRef(kind, name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
}

// aggregate does for one aggregated ClusterRole what kube-controller-manager's
// clusterrole-aggregation controller does for all (pkg/controller/clusterroleaggregation): its
// rules become the union of the rules of the ClusterRoles its selectors match. The test chain
// runs no controllers (test/testchain turns them off; controllers/clusterroleaggregation
// does this in `chain`), so admin, edit and view have the empty rules kube-apiserver creates
// them with until a test aggregates them.
func aggregate(t *testing.T, name string) {
	t.Helper()
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		role, err := cs.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var rules []rbacv1.PolicyRule
		for _, sel := range role.AggregationRule.ClusterRoleSelectors {
			matched, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&sel)})
			if err != nil {
				return err
			}
			slices.SortFunc(matched.Items, func(a, b rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
			for _, m := range matched.Items {
				if m.Name == name {
					continue
				}
				for _, r := range m.Rules {
					if !slices.ContainsFunc(rules, func(e rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(e, r) }) {
						rules = append(rules, r)
					}
				}
			}
		}
		if equality.Semantic.DeepEqual(role.Rules, rules) {
			return nil
		}
		role.Rules = rules
		_, err = cs.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRBACViewInOneNamespace: a user bound to view in one namespace reads configmaps there and
// nowhere else, and reads no secrets (view grants none).
func TestRBACViewInOneNamespace(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns, other := testchain.Namespace(t, shared), testchain.Namespace(t, shared)
	for _, n := range []string{ns, other} {
		if _, err := cs.CoreV1().ConfigMaps(n).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	aggregate(t, "view")
	viewer := uniqueUser("viewer")
	bind(t, ns, "viewers", roleRef("ClusterRole", "view"), userSubject(viewer))

	cfg := testchain.UserConfig(t, shared, viewer)
	coretest.WaitAllowed(t, cfg, authorizationv1.ResourceAttributes{Verb: "get", Resource: "configmaps", Namespace: ns})
	vc := kubernetes.NewForConfigOrDie(cfg)
	if _, err := vc.CoreV1().ConfigMaps(ns).Get(ctx, "cfg", metav1.GetOptions{}); err != nil {
		t.Errorf("get configmap in %s: %v", ns, err)
	}
	if _, err := vc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list configmaps in %s: %v", ns, err)
	}
	_, err := vc.CoreV1().ConfigMaps(other).Get(ctx, "cfg", metav1.GetOptions{})
	want := fmt.Sprintf(`configmaps "cfg" is forbidden: User %q cannot get resource "configmaps" in API group "" in the namespace %q`, viewer, other)
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("get configmap in %s:\n got  %v\n want %s", other, err, want)
	}
	if _, err := vc.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("view lists secrets: %v", err)
	}
	if _, err := vc.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("view creates configmaps: %v", err)
	}

	// What RBAC says the user may do there (kubectl auth can-i --list).
	rr, err := vc.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Status.Incomplete || !slices.ContainsFunc(rr.Status.ResourceRules, func(r authorizationv1.ResourceRule) bool {
		return slices.Contains(r.Resources, "configmaps") && slices.Contains(r.Verbs, "get")
	}) || !slices.ContainsFunc(rr.Status.NonResourceRules, func(r authorizationv1.NonResourceRule) bool {
		return slices.Contains(r.NonResourceURLs, "/api/*")
	}) {
		t.Errorf("SelfSubjectRulesReview in %s: %+v", ns, rr.Status)
	}
}

// TestKubectlAuthCanIAndWhoami: kubectl auth can-i and whoami, as admin and as another user by
// impersonation.
func TestKubectlAuthCanIAndWhoami(t *testing.T) {
	ns, other := testchain.Namespace(t, shared), testchain.Namespace(t, shared)
	bob := uniqueUser("bob")
	bind(t, ns, "cm-readers", roleRef("Role", "cm-reader"), userSubject(bob),
		rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
	coretest.WaitAllowed(t, testchain.UserConfig(t, shared, bob), authorizationv1.ResourceAttributes{Verb: "get", Resource: "configmaps", Namespace: ns})

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "can-i", "get", "configmaps", "--as", bob, "-n", ns}, "yes"},
		{[]string{"auth", "can-i", "get", "configmaps", "--as", bob, "-n", other}, "no"},
		{[]string{"auth", "can-i", "delete", "configmaps", "--as", bob, "-n", ns}, "no"},
		{[]string{"auth", "can-i", "get", "configmaps", "-n", other}, "yes"}, // admin
		{[]string{"auth", "can-i", "create", "pods", "--as", bob, "--as-group", "system:masters", "-n", other}, "yes"},
	} {
		out, _ := testchain.KubectlInput(t, shared, "", tc.args...)
		if strings.TrimSpace(out) != tc.want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
	out, err := testchain.KubectlInput(t, shared, "", "auth", "can-i", "--list", "--as", bob, "-n", ns)
	if err != nil || !regexp.MustCompile(`(?m)^configmaps\s+\[\]\s+\[\]\s+\[get list\]`).MatchString(out) {
		t.Errorf("kubectl auth can-i --list: %v\n%s", err, out)
	}

	out, err = testchain.KubectlInput(t, shared, "", "auth", "whoami")
	if err != nil || !regexp.MustCompile(`(?m)^Username\s+admin$`).MatchString(out) || !strings.Contains(out, "[system:masters system:authenticated]") {
		t.Errorf("kubectl auth whoami: %v\n%s", err, out)
	}
	out, err = testchain.KubectlInput(t, shared, "", "auth", "whoami", "--as", bob, "--as-group", "devs")
	if err != nil || !regexp.MustCompile(`(?m)^Username\s+`+bob+`$`).MatchString(out) || !strings.Contains(out, "[devs system:authenticated]") {
		t.Errorf("kubectl auth whoami --as %s: %v\n%s", bob, err, out)
	}
}

// TestImpersonationIsAuthorizedByRBAC: impersonating needs the impersonate verb on users,
// groups or serviceaccounts, which RBAC can grant name by name.
func TestImpersonationIsAuthorizedByRBAC(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	imp, bob := uniqueUser("imp"), uniqueUser("bob")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "impersonate-" + bob}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users"}, ResourceNames: []string{bob}},
	}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef: roleRef("ClusterRole", role.Name), Subjects: []rbacv1.Subject{userSubject(imp)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bind(t, ns, "cm-readers", roleRef("Role", "cm-reader"), userSubject(bob),
		rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
	impCfg := testchain.UserConfig(t, shared, imp)
	coretest.WaitAllowed(t, impCfg, authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "users", Name: bob})
	coretest.WaitAllowed(t, testchain.UserConfig(t, shared, bob), authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: ns})

	as := func(user string, groups ...string) kubernetes.Interface {
		c := rest.CopyConfig(impCfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
		return kubernetes.NewForConfigOrDie(c)
	}
	// imp, as bob: bob's permissions, not imp's.
	if _, err := as(bob).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("imp as %s lists configmaps: %v", bob, err)
	}
	_, err := as(bob).CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if want := fmt.Sprintf(`User %q cannot list resource "secrets"`, bob); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("imp as %s lists secrets: %v", bob, err)
	}
	// Anyone else, or any group, is not imp's to impersonate.
	_, err = as("alice").CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if want := fmt.Sprintf(`users "alice" is forbidden: User %q cannot impersonate resource "users" in API group "" at the cluster scope`, imp); !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("imp as alice:\n got  %v\n want %s", err, want)
	}
	_, err = as(bob, "system:masters").CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if want := fmt.Sprintf(`groups "system:masters" is forbidden: User %q cannot impersonate resource "groups" in API group "" at the cluster scope`, imp); !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("imp as %s in system:masters:\n got  %v\n want %s", bob, err, want)
	}

	// kubectl --as, from admin: the request runs as bob.
	out, _ := testchain.KubectlInput(t, shared, "", "--as", bob, "-n", ns, "get", "secrets")
	if want := fmt.Sprintf(`secrets is forbidden: User %q cannot list resource "secrets" in API group "" in the namespace %q`, bob, ns); !strings.Contains(out, want) {
		t.Errorf("kubectl --as %s get secrets:\n%s", bob, out)
	}
	out, err = testchain.KubectlInput(t, shared, "", "--as", bob, "--as-group", "system:masters", "-n", ns, "get", "secrets")
	if err != nil || !strings.Contains(out, "No resources found") {
		t.Errorf("kubectl --as %s --as-group system:masters get secrets: %v\n%s", bob, err, out)
	}
}

// TestRBACEscalationPrevention: a user who may write roles and bindings in a namespace may
// grant only what the user holds, unless given escalate or bind; system:masters may grant
// anything.
func TestRBACEscalationPrevention(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	bob := uniqueUser("bob")
	bind(t, ns, "rbac-writers", roleRef("Role", "rbac-writer"), userSubject(bob),
		rbacv1.PolicyRule{Verbs: []string{"get", "list", "create", "update", "patch", "delete"}, APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}},
		rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
	cfg := testchain.UserConfig(t, shared, bob)
	coretest.WaitAllowed(t, cfg, authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "roles", Namespace: ns})
	bc := kubernetes.NewForConfigOrDie(cfg)

	held := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "held"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}
	if _, err := bc.RbacV1().Roles(ns).Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Errorf("a role with held permissions: %v", err)
	}
	secrets := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "secrets"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}}}}
	_, err := bc.RbacV1().Roles(ns).Create(ctx, secrets, metav1.CreateOptions{})
	want := fmt.Sprintf(`roles.rbac.authorization.k8s.io "secrets" is forbidden: user %q (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`, bob)
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("escalating role:\n got  %v\n want %s", err, want)
	}
	// Growing a held role is an update with the same check.
	held, _ = cs.RbacV1().Roles(ns).Get(ctx, "held", metav1.GetOptions{})
	held.Rules[0].Verbs = append(held.Rules[0].Verbs, "delete")
	if _, err := bc.RbacV1().Roles(ns).Update(ctx, held, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}`) {
		t.Errorf("escalating update: %v", err)
	}
	// Binding cluster-admin is granting everything.
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "admins"}, RoleRef: roleRef("ClusterRole", "cluster-admin"), Subjects: []rbacv1.Subject{userSubject(bob)}}
	if _, err := bc.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); !apierrors.IsForbidden(err) ||
		!strings.HasPrefix(err.Error(), fmt.Sprintf(`rolebindings.rbac.authorization.k8s.io "admins" is forbidden: user %q (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`, bob)) {
		t.Errorf("binding cluster-admin: %v", err)
	}
	// A binding to a role whose permissions bob holds is fine.
	if _, err := bc.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "held"},
		RoleRef: roleRef("Role", "held"), Subjects: []rbacv1.Subject{userSubject("carol")}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("binding a held role: %v", err)
	}

	// Admin (system:masters) may.
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, secrets, metav1.CreateOptions{}); err != nil {
		t.Errorf("admin creates the role: %v", err)
	}

	// escalate on roles, bind on cluster-admin: then bob may too.
	bind(t, ns, "escalators", roleRef("Role", "escalator"), userSubject(bob),
		rbacv1.PolicyRule{Verbs: []string{"escalate"}, APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles"}},
		rbacv1.PolicyRule{Verbs: []string{"bind"}, APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, ResourceNames: []string{"cluster-admin"}})
	coretest.WaitAllowed(t, cfg, authorizationv1.ResourceAttributes{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin", Namespace: ns})
	secrets.Name = "secrets-by-bob"
	if _, err := bc.RbacV1().Roles(ns).Create(ctx, secrets, metav1.CreateOptions{}); err != nil {
		t.Errorf("with escalate: %v", err)
	}
	if _, err := bc.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Errorf("with bind: %v", err)
	}
}

// TestAnonymousGetsPublicInfoOnly: system:public-info-viewer is all an anonymous client gets.
func TestAnonymousGetsPublicInfoOnly(t *testing.T) {
	anon := rest.AnonymousClientConfig(shared.Admin)
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/readyz", 200}, {"/livez", 200}, {"/healthz", 200}, {"/version", 200},
		{"/api", 403}, {"/apis", 403}, {"/openapi/v2", 403}, {"/metrics", 403}, {"/api/v1/namespaces/default/configmaps", 403},
	} {
		resp, body := testchain.Do(t, anon, http.MethodGet, tc.path, nil, "")
		if resp.StatusCode != tc.code {
			t.Errorf("anonymous GET %s: %d, want %d: %s", tc.path, resp.StatusCode, tc.code, body)
		}
	}
	resp, body := testchain.Do(t, anon, http.MethodGet, "/api", nil, "")
	if want := `forbidden: User \"system:anonymous\" cannot get path \"/api\"`; resp.StatusCode != 403 || !strings.Contains(string(body), want) {
		t.Errorf("anonymous /api: %s", body)
	}
	// Authenticated users get discovery (system:discovery) and nothing more.
	cfg := testchain.UserConfig(t, shared, uniqueUser("nobody"))
	if resp, body := testchain.Do(t, cfg, http.MethodGet, "/apis", nil, ""); resp.StatusCode != 200 {
		t.Errorf("authenticated /apis: %d %s", resp.StatusCode, body)
	}
	if resp, body := testchain.Do(t, cfg, http.MethodGet, "/metrics", nil, ""); resp.StatusCode != 403 {
		t.Errorf("authenticated /metrics: %d %s", resp.StatusCode, body)
	}
}

// TestBootstrapPolicyExists: kube-apiserver's bootstrap roles and bindings, and the chain's own
// for the metrics server, are there once the chain is ready, with the hook's name in /readyz.
func TestBootstrapPolicyExists(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	// Lists, not a get each: the client's rate limit would make this slow.
	crs, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clusterRoles := map[string]rbacv1.ClusterRole{}
	for _, r := range crs.Items {
		clusterRoles[r.Name] = r
	}
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user",
		"system:public-info-viewer", "system:auth-delegator", "system:aggregate-to-admin", "system:aggregate-to-edit",
		"system:aggregate-to-view", "system:heapster", "system:node-proxier", "system:kube-scheduler",
		"system:kube-controller-manager", "system:node", "system:controller:namespace-controller",
		"system:controller:clusterrole-aggregation-controller", "system:aggregated-metrics-reader", "system:metrics-server",
		"apichain:metrics-server-registration"} {
		r, ok := clusterRoles[name]
		if !ok {
			t.Errorf("ClusterRole %s is missing", name)
			continue
		}
		if r.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" || r.Labels["kubernetes.io/bootstrapping"] != "rbac-defaults" {
			t.Errorf("ClusterRole %s is not a bootstrap role: %v %v", name, r.Labels, r.Annotations)
		}
	}
	if view := clusterRoles["view"]; view.AggregationRule == nil || view.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" {
		t.Errorf("view is not aggregated: %+v", view)
	}
	crbs, err := cs.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cluster-admin", "system:discovery", "system:basic-user", "system:public-info-viewer",
		"system:kube-scheduler", "system:controller:namespace-controller", "system:metrics-server", "metrics-server:system:auth-delegator"} {
		if !slices.ContainsFunc(crbs.Items, func(b rbacv1.ClusterRoleBinding) bool { return b.Name == name }) {
			t.Errorf("ClusterRoleBinding %s is missing", name)
		}
	}
	if _, err := cs.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", metav1.GetOptions{}); err != nil {
		t.Errorf("Role kube-system/extension-apiserver-authentication-reader: %v", err)
	}
	rbs, err := cs.RbacV1().RoleBindings("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"metrics-server-auth-reader", "system::extension-apiserver-authentication-reader"} {
		if !slices.ContainsFunc(rbs.Items, func(b rbacv1.RoleBinding) bool { return b.Name == name }) {
			t.Errorf("RoleBinding kube-system/%s is missing", name)
		}
	}
	_, body := testchain.Get(t, shared, "/readyz?verbose")
	if !strings.Contains(string(body), "[+]poststarthook/rbac/bootstrap-roles ok") {
		t.Errorf("/readyz?verbose lacks rbac/bootstrap-roles:\n%s", body)
	}
	out, err := testchain.KubectlInput(t, shared, "", "get", "clusterrolebinding", "cluster-admin", "-o", "wide")
	if err != nil || !regexp.MustCompile(`(?m)^cluster-admin\s+ClusterRole/cluster-admin\s+\S+\s+\s+system:masters`).MatchString(out) {
		t.Errorf("kubectl get clusterrolebinding cluster-admin -o wide: %v\n%s", err, out)
	}
}
