package reconciliation

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestRunAgainstAClient drives Run through a client: create when missing, add missing rules
// while keeping a user's, leave a protected role alone, recreate a binding whose roleRef changed,
// and create a Role's namespace.
func TestRunAgainstAClient(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	crs := ClusterRoleModifier{Client: client.RbacV1().ClusterRoles()}
	want := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Labels: map[string]string{"l": "v"}, Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"}},
		Rules:      rules("pods"),
	}
	run := func(cr *rbacv1.ClusterRole) *ReconcileClusterRoleResult {
		t.Helper()
		res, err := (&ReconcileRoleOptions{Role: ClusterRoleRuleOwner{ClusterRole: cr.DeepCopy()}, Client: crs, Confirm: true}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(want); res.Operation != ReconcileCreate {
		t.Fatalf("first run: %v", res.Operation)
	}
	if res := run(want); res.Operation != ReconcileNone {
		t.Fatalf("second run: %v", res.Operation)
	}

	// A user adds a rule: it stays; the expected role grows a rule: it is added.
	got, _ := client.RbacV1().ClusterRoles().Get(ctx, "r", metav1.GetOptions{})
	got.Rules = append(got.Rules, rules("secrets")...)
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	grown := want.DeepCopy()
	grown.Rules = rules("pods", "nodes")
	if res := run(grown); res.Operation != ReconcileUpdate || len(res.MissingRules) != 1 {
		t.Fatalf("grown: %v %v", res.Operation, res.MissingRules)
	}
	got, _ = client.RbacV1().ClusterRoles().Get(ctx, "r", metav1.GetOptions{})
	if len(got.Rules) != 3 || got.Rules[1].Resources[0] != "secrets" || got.Rules[2].Resources[0] != "nodes" {
		t.Errorf("after reconcile: %v", got.Rules)
	}

	// autoupdate=false: reported, not written.
	got.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	grown.Rules = rules("pods", "nodes", "services")
	if res := run(grown); !res.Protected || res.Operation != ReconcileUpdate {
		t.Fatalf("protected: %+v", res)
	}
	got, _ = client.RbacV1().ClusterRoles().Get(ctx, "r", metav1.GetOptions{})
	if len(got.Rules) != 3 {
		t.Errorf("a protected role was changed: %v", got.Rules)
	}

	// A binding whose roleRef differs is recreated.
	crbs := ClusterRoleBindingClientAdapter{Client: client.RbacV1().ClusterRoleBindings()}
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "old"}, Subjects: subjects("u")}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	nb := b.DeepCopy()
	nb.RoleRef.Name = "new"
	res, err := (&ReconcileRoleBindingOptions{RoleBinding: ClusterRoleBindingAdapter{ClusterRoleBinding: nb}, Client: crbs, Confirm: true}).Run(ctx)
	if err != nil || res.Operation != ReconcileRecreate {
		t.Fatalf("recreate: %v %v", err, res)
	}
	gotB, _ := client.RbacV1().ClusterRoleBindings().Get(ctx, "b", metav1.GetOptions{})
	if gotB.RoleRef.Name != "new" {
		t.Errorf("binding not recreated: %v", gotB.RoleRef)
	}

	// Roles are created in their namespace, which is created if missing.
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "kube-new"}, Rules: rules("pods")}
	rm := RoleModifier{Client: client.RbacV1(), NamespaceClient: client.CoreV1().Namespaces()}
	if _, err := (&ReconcileRoleOptions{Role: RoleRuleOwner{Role: role}, Client: rm, Confirm: true}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Namespaces().Get(ctx, "kube-new", metav1.GetOptions{}); err != nil {
		t.Errorf("namespace not created: %v", err)
	}
}
