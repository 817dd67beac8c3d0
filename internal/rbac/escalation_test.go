package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func escalationFixture() AuthorizationRuleResolver {
	r, _ := NewTestRuleResolver(
		[]*rbacv1.Role{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pods-reader"},
			Rules: []rbacv1.PolicyRule{NewRule("get", "list").Groups("").Resources("pods").RuleOrDie()}}},
		[]*rbacv1.RoleBinding{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pods-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}}}},
		[]*rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "escalator"}, Rules: []rbacv1.PolicyRule{
				NewRule("escalate").Groups(rbacv1.GroupName).Resources("roles").RuleOrDie(),
				NewRule("bind").Groups(rbacv1.GroupName).Resources("clusterroles").Names("view").RuleOrDie(),
			}},
		},
		[]*rbacv1.ClusterRoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "escalators"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "escalator"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "escalators"}}}},
	)
	return r
}

func userCtx(name, namespace string, groups ...string) context.Context {
	ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name, Groups: groups})
	return genericapirequest.WithNamespace(ctx, namespace)
}

func TestConfirmNoEscalation(t *testing.T) {
	r := escalationFixture()
	cases := []struct {
		name  string
		ctx   context.Context
		rules []rbacv1.PolicyRule
		want  string
	}{
		{"held", userCtx("bob", "ns", "devs"), []rbacv1.PolicyRule{NewRule("get").Groups("").Resources("pods").RuleOrDie()}, ""},
		{"held only in ns", userCtx("bob", "other", "devs"), []rbacv1.PolicyRule{NewRule("get").Groups("").Resources("pods").RuleOrDie()},
			"user \"bob\" (groups=[\"devs\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\"]}"},
		{"partly held, compacted", userCtx("bob", "ns", "devs", "system:authenticated"),
			[]rbacv1.PolicyRule{NewRule("get", "list", "delete").Groups("").Resources("pods", "secrets").RuleOrDie()},
			"user \"bob\" (groups=[\"devs\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				"{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n" +
				"{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"delete\" \"get\" \"list\"]}"},
		{"non-resource", userCtx("bob", "ns"), []rbacv1.PolicyRule{NewRule("get").URLs("/metrics").RuleOrDie()},
			"user \"bob\" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}"},
	}
	for _, tc := range cases {
		err := ConfirmNoEscalation(tc.ctx, r, tc.rules)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got  %q\n want %q", tc.name, got, tc.want)
		}
	}
	if err := ConfirmNoEscalation(context.Background(), r, nil); err == nil || err.Error() != "no user on context" {
		t.Errorf("no user: %v", err)
	}
}

func TestEscalationChecks(t *testing.T) {
	authz := NewWithResolver(escalationFixture())
	masters := userCtx("admin", "", user.SystemPrivilegedGroup)
	if !EscalationAllowed(masters) || EscalationAllowed(userCtx("bob", "")) || EscalationAllowed(context.Background()) {
		t.Error("EscalationAllowed is for system:masters only")
	}

	withRequest := func(ctx context.Context, resource, namespace, name string) context.Context {
		return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true,
			APIGroup: rbacv1.GroupName, APIVersion: "v1", Resource: resource, Namespace: namespace, Name: name, Verb: "create"})
	}
	if !RoleEscalationAuthorized(withRequest(userCtx("eve", "ns", "escalators"), "roles", "ns", "r"), authz) {
		t.Error("escalate on roles should be authorized for the escalators group")
	}
	if RoleEscalationAuthorized(withRequest(userCtx("eve", "", "escalators"), "clusterroles", "", "r"), authz) {
		t.Error("escalate on clusterroles is not granted")
	}
	if RoleEscalationAuthorized(withRequest(userCtx("eve", "ns", "escalators"), "rolebindings", "ns", "r"), authz) {
		t.Error("escalate applies to roles and clusterroles only")
	}
	if RoleEscalationAuthorized(userCtx("eve", "ns", "escalators"), authz) {
		t.Error("no request info: not authorized")
	}

	view := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	edit := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"}
	if !BindingAuthorized(userCtx("eve", "ns", "escalators"), view, "ns", authz) {
		t.Error("bind view should be authorized")
	}
	if BindingAuthorized(userCtx("eve", "ns", "escalators"), edit, "ns", authz) {
		t.Error("bind edit is not granted")
	}
	if BindingAuthorized(userCtx("eve", "ns", "escalators"), rbacv1.RoleRef{Kind: "Other", Name: "view"}, "ns", authz) {
		t.Error("unknown roleRef kinds are never authorized")
	}
}

func TestIsOnlyMutatingGCFields(t *testing.T) {
	old := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{NewRule("get").Groups("").Resources("pods").RuleOrDie()}}
	gc := old.DeepCopy()
	gc.Finalizers = []string{"foregroundDeletion"}
	gc.OwnerReferences = []metav1.OwnerReference{{Name: "o"}}
	if !IsOnlyMutatingGCFields(gc, old) {
		t.Error("finalizers and owner references are GC fields")
	}
	more := old.DeepCopy()
	more.Rules[0].Verbs = []string{"*"}
	if IsOnlyMutatingGCFields(more, old) {
		t.Error("rules are not GC fields")
	}
	var nilRole *rbacv1.Role
	if IsOnlyMutatingGCFields(gc, nilRole) {
		t.Error("no old object: not only GC fields")
	}
}
