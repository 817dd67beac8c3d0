package bootstrappolicy

import (
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/internal/rbac"
)

// The testdata/*.yaml fixtures are kubernetes v1.37.2's own
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata), what its policy_test.go checks the
// policy against with the default feature gates. The port must produce exactly the same objects.

func readFixture[T any](t *testing.T, name string) []T {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []T `json:"items"`
	}
	if err := yaml.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func byName[T any](items []T, name func(*T) string) map[string]T {
	m := map[string]T{}
	for i := range items {
		m[name(&items[i])] = items[i]
	}
	return m
}

func compare[T any](t *testing.T, fixture string, got []T, name func(*T) string) {
	t.Helper()
	items := readFixture[T](t, fixture)
	for i := range items {
		// The fixtures are encoded objects; the policy's objects carry no TypeMeta.
		if o, ok := any(&items[i]).(interface{ GetObjectKind() schema.ObjectKind }); ok {
			o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
	}
	want := byName(items, name)
	have := byName(got, name)
	if len(have) != len(got) {
		t.Errorf("%s: duplicate names in the policy", fixture)
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range have {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: %q is not in kube-apiserver's policy", fixture, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		h, ok := have[n]
		if !ok {
			t.Errorf("%s: %q is missing", fixture, n)
			continue
		}
		if w := want[n]; !equality.Semantic.DeepEqual(h, w) {
			t.Errorf("%s: %q differs (-got +want):\n%s", fixture, n, cmp.Diff(h, w))
		}
	}
}

func crName(r *rbacv1.ClusterRole) string         { return r.Name }
func crbName(b *rbacv1.ClusterRoleBinding) string { return b.Name }
func rName(r *rbacv1.Role) string                 { return r.Namespace + "/" + r.Name }
func rbName(b *rbacv1.RoleBinding) string         { return b.Namespace + "/" + b.Name }

func TestClusterRolesMatchKubeAPIServer(t *testing.T) {
	compare(t, "cluster-roles.yaml", ClusterRoles(), crName)
}

func TestClusterRoleBindingsMatchKubeAPIServer(t *testing.T) {
	compare(t, "cluster-role-bindings.yaml", ClusterRoleBindings(), crbName)
}

func TestControllerRolesMatchKubeAPIServer(t *testing.T) {
	compare(t, "controller-roles.yaml", ControllerRoles(), crName)
	compare(t, "controller-role-bindings.yaml", ControllerRoleBindings(), crbName)
}

func TestNamespaceRolesMatchKubeAPIServer(t *testing.T) {
	var roles []rbacv1.Role
	for _, rs := range NamespaceRoles() {
		roles = append(roles, rs...)
	}
	compare(t, "namespace-roles.yaml", roles, rName)
	var bindings []rbacv1.RoleBinding
	for _, bs := range NamespaceRoleBindings() {
		bindings = append(bindings, bs...)
	}
	compare(t, "namespace-role-bindings.yaml", bindings, rbName)
}

// TestDefaultPolicyIsConsistent: every binding of the default policy refers to a role it
// creates (or one kube-apiserver creates elsewhere), names are unique, and everything is
// labelled for reconciliation.
func TestDefaultPolicyIsConsistent(t *testing.T) {
	p := Default()
	clusterRoles := map[string]bool{}
	for _, r := range p.ClusterRoles {
		if clusterRoles[r.Name] {
			t.Errorf("ClusterRole %q twice", r.Name)
		}
		clusterRoles[r.Name] = true
		if r.Labels["kubernetes.io/bootstrapping"] != "rbac-defaults" || r.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("ClusterRole %q is not labelled for reconciliation: %v %v", r.Name, r.Labels, r.Annotations)
		}
	}
	for _, b := range p.ClusterRoleBindings {
		if !clusterRoles[b.RoleRef.Name] {
			t.Errorf("ClusterRoleBinding %q refers to ClusterRole %q, which is not bootstrapped", b.Name, b.RoleRef.Name)
		}
	}
	for ns, bindings := range p.RoleBindings {
		roles := map[string]bool{}
		for _, r := range p.Roles[ns] {
			roles[r.Name] = true
		}
		for _, b := range bindings {
			if b.RoleRef.Kind == "Role" && !roles[b.RoleRef.Name] {
				t.Errorf("RoleBinding %s/%s refers to Role %q, which is not bootstrapped", ns, b.Name, b.RoleRef.Name)
			}
		}
	}
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user",
		"system:public-info-viewer", "system:auth-delegator", "system:heapster", "system:node-proxier", "system:kube-scheduler",
		"system:kube-controller-manager", "system:node", "system:controller:namespace-controller",
		"system:aggregated-metrics-reader", "system:metrics-server", MetricsServerRegistrationRole} {
		if !clusterRoles[name] {
			t.Errorf("ClusterRole %q is not bootstrapped", name)
		}
	}
}

// TestMetricsServerHasWhatItNeeds: the user system:metrics-server, with no groups but
// system:authenticated, may do what the chain's metrics server does, and no more than that
// on the core resources it registers.
func TestMetricsServerHasWhatItNeeds(t *testing.T) {
	p := Default()
	var crs []*rbacv1.ClusterRole
	for i := range p.ClusterRoles {
		crs = append(crs, &p.ClusterRoles[i])
	}
	var crbs []*rbacv1.ClusterRoleBinding
	for i := range p.ClusterRoleBindings {
		crbs = append(crbs, &p.ClusterRoleBindings[i])
	}
	var rs []*rbacv1.Role
	for _, roles := range p.Roles {
		for i := range roles {
			rs = append(rs, &roles[i])
		}
	}
	var rbs []*rbacv1.RoleBinding
	for _, bindings := range p.RoleBindings {
		for i := range bindings {
			rbs = append(rbs, &bindings[i])
		}
	}
	resolver, _ := rbac.NewTestRuleResolver(rs, rbs, crs, crbs)
	authz := rbac.NewWithResolver(resolver)
	ms := newUser(MetricsServerUser, "system:authenticated")
	for _, tc := range []struct {
		attrs   attrs
		allowed bool
	}{
		{attrs{verb: "list", resource: "nodes"}, true},
		{attrs{verb: "watch", resource: "pods"}, true},
		{attrs{verb: "get", resource: "nodes", subresource: "metrics", name: "n1"}, true},
		{attrs{verb: "create", group: "authentication.k8s.io", resource: "tokenreviews"}, true},
		{attrs{verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews"}, true},
		{attrs{verb: "watch", namespace: "kube-system", resource: "configmaps", name: "extension-apiserver-authentication"}, true},
		{attrs{verb: "get", namespace: "kube-system", resource: "configmaps", name: "other"}, false},
		{attrs{verb: "create", namespace: "kube-system", resource: "services"}, true},
		{attrs{verb: "update", namespace: "kube-system", resource: "services", name: "metrics-server"}, true},
		{attrs{verb: "update", namespace: "kube-system", resource: "services", name: "kube-dns"}, false},
		{attrs{verb: "create", namespace: "default", resource: "services"}, false},
		{attrs{verb: "delete", namespace: "kube-system", group: "discovery.k8s.io", resource: "endpointslices", name: "x"}, true},
		{attrs{verb: "update", group: "apiregistration.k8s.io", resource: "apiservices", name: "v1.metrics.k8s.io"}, true},
		{attrs{verb: "update", group: "apiregistration.k8s.io", resource: "apiservices", name: "v1.apps"}, false},
		{attrs{verb: "list", resource: "secrets"}, false},
		{attrs{verb: "get", nonResource: "/apis/metrics.k8s.io/v1"}, true}, // system:discovery
	} {
		got := allowed(t, authz, ms, tc.attrs)
		if got != tc.allowed {
			t.Errorf("metrics server %+v: allowed=%v, want %v", tc.attrs, got, tc.allowed)
		}
	}
}
