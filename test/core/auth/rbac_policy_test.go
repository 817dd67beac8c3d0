package auth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/internal/rbac/bootstrappolicy"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// TestBootstrapPolicyMatchesKubeAPIServer: every ClusterRole, ClusterRoleBinding, Role and
// RoleBinding labelled kubernetes.io/bootstrapping=rbac-defaults that the chain serves is one
// kube-apiserver v1.37.2 creates (test/reference/bootstrap-rbac.json) or one of the chain's
// own, and equal to it: labels, annotations, rules, aggregationRule, roleRef, subjects. An
// aggregated role's rules are the clusterrole-aggregation controller's, and not compared.
func TestBootstrapPolicyMatchesKubeAPIServer(t *testing.T) {
	raw, err := os.ReadFile(reference.Path("bootstrap-rbac.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reference struct{ Items []map[string]any }
	if err := json.Unmarshal(raw, &reference); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{}
	for _, item := range reference.Items {
		want[policyKey(item)] = essence(item)
	}
	// The chain's own: what its policy has beyond the reference.
	own, err := bootstrappolicy.Default()
	if err != nil {
		t.Fatal(err)
	}
	chainOwn := 0
	addOwn := func(kind string, obj runtime.Object) {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		m["kind"] = kind
		if key := policyKey(m); want[key] == nil {
			want[key] = essence(m)
			chainOwn++
		}
	}
	for i := range own.ClusterRoles {
		addOwn("ClusterRole", &own.ClusterRoles[i])
	}
	for i := range own.ClusterRoleBindings {
		addOwn("ClusterRoleBinding", &own.ClusterRoleBindings[i])
	}
	for i := range own.Roles {
		addOwn("Role", &own.Roles[i])
	}
	for i := range own.RoleBindings {
		addOwn("RoleBinding", &own.RoleBindings[i])
	}
	if want["ClusterRole /cluster-admin"]["rules"] == nil || want["ClusterRoleBinding /cluster-admin"]["subjects"] == nil {
		t.Fatalf("the comparison would look at nothing: %v", want["ClusterRole /cluster-admin"])
	}
	if chainOwn == 0 || len(want) != len(reference.Items)+chainOwn {
		t.Fatalf("%d reference objects, %d of the chain's own, %d in all", len(reference.Items), chainOwn, len(want))
	}

	_, dyn := testchain.Clients(t, shared)
	served := map[string]map[string]any{}
	for _, resource := range []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"} {
		list, err := dyn.Resource(rbacv1.SchemeGroupVersion.WithResource(resource)).List(context.Background(),
			metav1.ListOptions{LabelSelector: "kubernetes.io/bootstrapping=rbac-defaults"})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range list.Items {
			served[policyKey(item.Object)] = essence(item.Object)
		}
	}
	for key, w := range want {
		got, ok := served[key]
		switch {
		case !ok:
			t.Errorf("%s: not served", key)
		case !reflect.DeepEqual(got, w):
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(w)
			t.Errorf("%s:\n served %s\n want   %s", key, gotJSON, wantJSON)
		}
	}
	for key := range served {
		if want[key] == nil {
			t.Errorf("%s: served, but neither kube-apiserver's nor the chain's", key)
		}
	}
}

// policyKey is "Kind namespace/name".
func policyKey(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	return fmt.Sprintf("%v %s/%v", obj["kind"], ns, meta["name"])
}

// essence is what the comparison looks at, with absent and null alike.
func essence(obj map[string]any) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	out := map[string]any{}
	for _, k := range []string{"labels", "annotations"} {
		if v := meta[k]; v != nil {
			out[k] = v
		}
	}
	for _, k := range []string{"rules", "aggregationRule", "roleRef", "subjects"} {
		if v := obj[k]; v != nil {
			out[k] = v
		}
	}
	if out["aggregationRule"] != nil {
		delete(out, "rules")
	}
	// Through JSON, so that both sides hold the same Go types.
	b, _ := json.Marshal(out)
	out = map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

// TestRBACClusterRoleEscalation: a user who may write ClusterRoles and ClusterRoleBindings may
// grant only what the user holds cluster-wide, and may not use an aggregationRule; each refusal
// is kube-apiserver's 403.
func TestRBACClusterRoleEscalation(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	carl := uniqueUser("carl")
	writer := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: carl + "-writer"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"create", "update", "delete"}, APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles", "clusterrolebindings"}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
	}}
	createClusterRole(t, cs, writer)
	createClusterRoleBinding(t, cs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: writer.Name},
		RoleRef: roleRef("ClusterRole", writer.Name), Subjects: []rbacv1.Subject{userSubject(carl)}})
	cfg := testchain.UserConfig(t, shared, carl)
	coretest.WaitAllowed(t, cfg, authorizationv1.ResourceAttributes{Verb: "create", Group: rbacv1.GroupName, Resource: "clusterroles"})
	cc := kubernetes.NewForConfigOrDie(cfg)
	forbidden := func(resource, name, why string) string {
		return fmt.Sprintf(`%s.rbac.authorization.k8s.io %q is forbidden: %s`, resource, name, why)
	}
	lacks := fmt.Sprintf(`user %q (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`, carl)

	held := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: carl + "-node-reader"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"nodes"}}}}
	if _, err := cc.RbacV1().ClusterRoles().Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Errorf("a cluster role with held rules: %v", err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(ctx, held.Name, metav1.DeleteOptions{}) })

	type refusal struct {
		what string
		err  error
		want string
	}
	var refusals []refusal
	secrets := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: carl + "-secrets"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "watch"}, APIGroups: []string{""}, Resources: []string{"nodes", "secrets"}}}}
	_, err := cc.RbacV1().ClusterRoles().Create(ctx, secrets, metav1.CreateOptions{})
	refusals = append(refusals, refusal{"unheld rules", err, forbidden("clusterroles", secrets.Name, lacks+"\n"+
		`{APIGroups:[""], Resources:["nodes"], Verbs:["watch"]}`+"\n"+`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "watch"]}`)})

	aggregated := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: carl + "-aggregated"}, AggregationRule: &rbacv1.AggregationRule{
		ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"example.com/aggregate": "true"}}}}}
	_, err = cc.RbacV1().ClusterRoles().Create(ctx, aggregated, metav1.CreateOptions{})
	refusals = append(refusals, refusal{"an aggregationRule", err,
		forbidden("clusterroles", aggregated.Name, "must have cluster-admin privileges to use the aggregationRule")})

	dns := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: carl + "-dns"},
		RoleRef: roleRef("ClusterRole", "system:kube-dns"), Subjects: []rbacv1.Subject{userSubject(carl)}}
	_, err = cc.RbacV1().ClusterRoleBindings().Create(ctx, dns, metav1.CreateOptions{})
	refusals = append(refusals, refusal{"binding an unheld role", err, forbidden("clusterrolebindings", dns.Name, lacks+"\n"+
		`{APIGroups:[""], Resources:["endpoints"], Verbs:["list" "watch"]}`+"\n"+`{APIGroups:[""], Resources:["services"], Verbs:["list" "watch"]}`)})

	for _, r := range refusals {
		if !apierrors.IsForbidden(r.err) || r.err.Error() != r.want {
			t.Errorf("%s:\n got  %v\n want %s", r.what, r.err, r.want)
		}
	}

	// A binding to the role carl made, which he holds, is fine.
	ok := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: held.Name}, RoleRef: roleRef("ClusterRole", held.Name),
		Subjects: []rbacv1.Subject{userSubject("dora")}}
	if _, err := cc.RbacV1().ClusterRoleBindings().Create(ctx, ok, metav1.CreateOptions{}); err != nil {
		t.Errorf("binding a held role: %v", err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, ok.Name, metav1.DeleteOptions{}) })
}

func createClusterRole(t *testing.T, cs kubernetes.Interface, r *rbacv1.ClusterRole) {
	t.Helper()
	if _, err := cs.RbacV1().ClusterRoles().Create(context.Background(), r, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{}) })
}

func createClusterRoleBinding(t *testing.T, cs kubernetes.Interface, b *rbacv1.ClusterRoleBinding) {
	t.Helper()
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(context.Background(), b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{})
	})
}

// TestKubectlAuthCanIForUsers: kubectl auth can-i, through impersonation, for a service
// account, a group member, a user limited to one object's name and a user with no binding.
func TestKubectlAuthCanIForUsers(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	ns := testchain.Namespace(t, shared)
	robot := "system:serviceaccount:" + ns + ":robot"
	group, nick := uniqueUser("readers"), uniqueUser("nick")
	bind(t, ns, "robot-logs", roleRef("Role", "log-reader"), rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot"},
		rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}})
	bind(t, ns, "readers", roleRef("Role", "cm-reader"), rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: group},
		rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
	bind(t, ns, "nick-settings", roleRef("Role", "settings-reader"), userSubject(nick),
		rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"settings"}})

	for _, tc := range []struct {
		args []string
		want string
	}{
		// The grants first: each is polled until the authorizer's informers have it, so that
		// the refusals after them are not just a lagging cache.
		{[]string{"get", "pods", "--subresource=log", "--as", robot}, "yes"},
		{[]string{"list", "configmaps", "--as", "dana", "--as-group", group}, "yes"},
		{[]string{"get", "configmaps/settings", "--as", nick}, "yes"},
		{[]string{"get", "/healthz", "--as", "dana"}, "yes"},
		{[]string{"get", "pods", "--as", robot}, "no"},
		{[]string{"get", "pods", "--subresource=log", "--as", "system:serviceaccount:default:robot"}, "no"},
		{[]string{"list", "configmaps", "--as", "dana"}, "no"},
		{[]string{"delete", "configmaps", "--as", "dana", "--as-group", group}, "no"},
		{[]string{"get", "configmaps/other", "--as", nick}, "no"},
		{[]string{"list", "configmaps", "--as", nick}, "no"},
		{[]string{"get", "/metrics", "--as", "dana"}, "no"},
	} {
		args := append([]string{"auth", "can-i", "-n", ns}, tc.args...)
		var out string
		if tc.want == "yes" {
			testchain.WaitFor(t, func() bool {
				out, _ = testchain.KubectlInput(t, shared, "", args...)
				return strings.TrimSpace(out) == "yes"
			})
		} else if out, _ = testchain.KubectlInput(t, shared, "", args...); strings.TrimSpace(out) != tc.want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), out, tc.want)
		}
	}
}
