package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/apichain/apichain/internal/rbac/bootstrappolicy"
)

// TestReconcileBootstrapPolicy: the first run creates everything (without a GET per object:
// the lists answer), a second changes nothing, a deleted role comes back, a rule a user added
// stays, and an autoupdate=false role is left alone.
func TestReconcileBootstrapPolicy(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	p, err := bootstrappolicy.Default()
	if err != nil {
		t.Fatal(err)
	}
	if err := Reconcile(ctx, p, client); err != nil {
		t.Fatalf("first reconcile: %v", err)
	}
	gets := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Group == rbacv1.GroupName {
			gets++
		}
	}
	if gets > 0 {
		t.Errorf("the first reconcile made %d GETs of RBAC objects, want none", gets)
	}
	crs, _ := client.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	crbs, _ := client.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if len(crs.Items) != len(p.ClusterRoles) || len(crbs.Items) != len(p.ClusterRoleBindings) {
		t.Fatalf("created %d cluster roles and %d bindings, want %d and %d", len(crs.Items), len(crbs.Items), len(p.ClusterRoles), len(p.ClusterRoleBindings))
	}
	reader, err := client.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", metav1.GetOptions{})
	if err != nil || len(reader.Rules) != 1 {
		t.Fatalf("extension-apiserver-authentication-reader: %v %v", err, reader)
	}
	if _, err := client.CoreV1().Namespaces().Get(ctx, "kube-public", metav1.GetOptions{}); err != nil {
		t.Errorf("the namespace of a bootstrap Role is created: %v", err)
	}

	// Changes: delete one, extend one, protect one (and take a rule from it).
	if err := client.RbacV1().ClusterRoles().Delete(ctx, "system:discovery", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	view, _ := client.RbacV1().ClusterRoles().Get(ctx, "system:aggregate-to-view", metav1.GetOptions{})
	extra := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	view.Rules = append(view.Rules, extra)
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, view, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	basic, _ := client.RbacV1().ClusterRoles().Get(ctx, "system:basic-user", metav1.GetOptions{})
	basic.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	basic.Rules = basic.Rules[:1]
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, basic, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	before := len(client.Actions())
	if err := Reconcile(ctx, p, client); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	var writes []string
	for _, a := range client.Actions()[before:] {
		if v := a.GetVerb(); v != "get" && v != "list" {
			writes = append(writes, v+" "+a.GetResource().Resource)
		}
	}
	if len(writes) != 1 || writes[0] != "create clusterroles" {
		t.Errorf("the second reconcile wrote %v, want only the deleted role's create", writes)
	}
	if _, err := client.RbacV1().ClusterRoles().Get(ctx, "system:discovery", metav1.GetOptions{}); err != nil {
		t.Errorf("a deleted bootstrap role does not come back: %v", err)
	}
	view, _ = client.RbacV1().ClusterRoles().Get(ctx, "system:aggregate-to-view", metav1.GetOptions{})
	if last := view.Rules[len(view.Rules)-1]; last.APIGroups[0] != "example.com" {
		t.Errorf("a user's rule was dropped: %v", view.Rules)
	}
	basic, _ = client.RbacV1().ClusterRoles().Get(ctx, "system:basic-user", metav1.GetOptions{})
	if len(basic.Rules) != 1 {
		t.Errorf("an autoupdate=false role was reconciled: %v", basic.Rules)
	}
}
