package bootstrappolicy

import (
	"bytes"
	"os"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/apichain/apichain/test/reference"
)

// TestEmbeddedIsTheReference: the embedded policy is the observed one the chain's tests compare
// against (test/reference), byte for byte.
func TestEmbeddedIsTheReference(t *testing.T) {
	ref, err := os.ReadFile(reference.Path("bootstrap-rbac.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ref, kubeAPIServerPolicy) {
		t.Error("kube-apiserver-v1.37.2.json differs from test/reference/bootstrap-rbac.json")
	}
}

// TestDefault: every object is a bootstrap object, no name is taken twice, every binding's role
// is in the policy, and the metrics server's user is bound.
func TestDefault(t *testing.T) {
	p, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	kas, err := KubeAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	if len(kas.ClusterRoles) == 0 || len(p.ClusterRoles) <= len(kas.ClusterRoles) || len(p.RoleBindings) <= len(kas.RoleBindings) {
		t.Fatalf("policy sizes: kube-apiserver %d cluster roles, %d role bindings; chain %d, %d",
			len(kas.ClusterRoles), len(kas.RoleBindings), len(p.ClusterRoles), len(p.RoleBindings))
	}

	seen := map[string]bool{}
	var metricsServerBound bool
	check := func(kind, namespace, name string, labels, annotations map[string]string, subjects []rbacv1.Subject) {
		key := kind + " " + namespace + "/" + name
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
		if labels["kubernetes.io/bootstrapping"] != "rbac-defaults" || annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("%s lacks the bootstrapping label or autoupdate annotation: %v %v", key, labels, annotations)
		}
		metricsServerBound = metricsServerBound || slices.Contains(subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: MetricsServerUser})
	}
	for _, r := range p.ClusterRoles {
		check("ClusterRole", "", r.Name, r.Labels, r.Annotations, nil)
	}
	for _, r := range p.Roles {
		check("Role", r.Namespace, r.Name, r.Labels, r.Annotations, nil)
	}
	for _, b := range p.ClusterRoleBindings {
		check("ClusterRoleBinding", "", b.Name, b.Labels, b.Annotations, b.Subjects)
		if !seen["ClusterRole /"+b.RoleRef.Name] {
			t.Errorf("ClusterRoleBinding %s: no ClusterRole %s", b.Name, b.RoleRef.Name)
		}
	}
	for _, b := range p.RoleBindings {
		check("RoleBinding", b.Namespace, b.Name, b.Labels, b.Annotations, b.Subjects)
		if role := b.RoleRef.Kind + " " + map[string]string{"Role": b.Namespace}[b.RoleRef.Kind] + "/" + b.RoleRef.Name; !seen[role] {
			t.Errorf("RoleBinding %s/%s: no %s", b.Namespace, b.Name, role)
		}
	}
	if !metricsServerBound {
		t.Errorf("no binding names %s", MetricsServerUser)
	}
}

// TestAddRejectsTypos: a misspelt field or an unknown kind in a policy file is an error, not
// an object that silently grants less.
func TestAddRejectsTypos(t *testing.T) {
	for _, doc := range []string{
		"items: [{kind: ClusterRole, metadata: {name: a}, rule: []}]",
		"items: [{kind: ClusterRole, metadata: {name: a, label: {}}}]",
		"items: [{kind: ServiceAccount, metadata: {name: a}}]",
		"items: [{kind: Role, metadata: {name: a}, subjects: []}]",
		"items: [{kind: RoleBinding, metadata: {name: a}, rules: [], roleRef: {kind: Role, name: r}}]",
		"items: [{kind: RoleBinding, metadata: {name: a}}]",
		"items: {kind: Role}",
	} {
		var p Policy
		if err := p.add("test.yaml", []byte(doc)); err == nil {
			t.Errorf("%s: no error", doc)
		}
	}
}
