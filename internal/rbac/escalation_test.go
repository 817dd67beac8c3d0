package rbac

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// TestEscalationCheck: who may write which role or binding, and kube-apiserver's refusals.
func TestEscalationCheck(t *testing.T) {
	src := sourceOf(t,
		clusterRole("pod-reader", rule(list("get", "list"), list(""), list("pods"))),
		clusterRole("everything", rule(list("*"), list("*"), list("*")), pathRule(list("*"), "*")),
		// All resources, but neither paths nor the escalate and bind verbs.
		clusterRole("all-resources", rule(list("get", "list", "create", "update", "delete"), list("*"), list("*"))),
		clusterRole("escalator", rule(list("escalate"), list(rbacv1.GroupName), list("roles", "clusterroles"))),
		clusterRole("binder", rule(list("bind"), list(rbacv1.GroupName), list("clusterroles"), "everything")),
		binding("ns", "bob-reads", "ClusterRole", "pod-reader", userSubject("bob")),
		binding("", "root", "ClusterRole", "everything", userSubject("root")),
		binding("", "almost-root", "ClusterRole", "all-resources", userSubject("almost")),
		binding("", "eve", "ClusterRole", "escalator", userSubject("eve")),
		binding("ns", "ben", "ClusterRole", "binder", userSubject("ben")),
	)
	a := New(src)
	c := EscalationCheck{Rules: a, Authorizer: a}

	as := func(name, namespace string, groups ...string) context.Context {
		ctx := request.WithUser(context.Background(), &user.DefaultInfo{Name: name, Groups: groups})
		return request.WithNamespace(ctx, namespace)
	}
	newRole := func(rules ...rbacv1.PolicyRule) *rbacv1.Role {
		return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: rules}
	}
	newClusterRole := func(aggregated bool, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cr"}, Rules: rules}
		if aggregated {
			r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}
		}
		return r
	}
	bindTo := func(kind, name string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rb"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}, Subjects: []rbacv1.Subject{userSubject("x")}}
	}
	const lacks = "user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n"
	getPods := rule(list("get"), list(""), list("pods"))

	cases := []struct {
		name     string
		ctx      context.Context
		obj, old runtime.Object
		want     string // the Forbidden error's message; "" for allowed
	}{
		{"a role with held rules", as("bob", "ns"), newRole(getPods), nil, ""},
		{"held only in ns", as("bob", "other", "devs"), newRole(getPods), nil,
			`roles.rbac.authorization.k8s.io "r" is forbidden: ` + fmt.Sprintf(lacks, "bob", list("devs")) +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`},
		{"missing verbs merged per resource, lines sorted", as("bob", "ns", user.AllAuthenticated),
			newRole(rule(list("get", "list", "delete"), list(""), list("secrets", "pods"))), nil,
			`roles.rbac.authorization.k8s.io "r" is forbidden: ` + fmt.Sprintf(lacks, "bob", list(user.AllAuthenticated)) +
				`{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}` + "\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}`},
		{"names and paths", as("bob", "ns"),
			newRole(rule(list("get"), list(""), list("configmaps"), "a", "b"), pathRule(list("get"), "/metrics")), nil,
			`roles.rbac.authorization.k8s.io "r" is forbidden: ` + fmt.Sprintf(lacks, "bob", list()) +
				`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get"]}` + "\n" +
				`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get"]}` + "\n" +
				`{NonResourceURLs:["/metrics"], Verbs:["get"]}`},
		{"a cluster role needs the rules cluster-wide", as("bob", ""), newClusterRole(false, getPods), nil,
			`clusterroles.rbac.authorization.k8s.io "cr" is forbidden: ` + fmt.Sprintf(lacks, "bob", list()) +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`},
		{"aggregationRule needs everything", as("almost", ""), newClusterRole(true), nil,
			`clusterroles.rbac.authorization.k8s.io "cr" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{"and so does removing one", as("almost", ""), newClusterRole(false), newClusterRole(true),
			`clusterroles.rbac.authorization.k8s.io "cr" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{"root", as("root", ""), newClusterRole(true, getPods), nil, ""},
		{"escalate", as("eve", "ns"), newRole(rule(list("*"), list("*"), list("*"))), nil, ""},
		{"escalate on cluster roles skips the aggregationRule check", as("eve", ""), newClusterRole(true), nil, ""},
		{"system:masters", as("admin", "ns", user.SystemPrivilegedGroup), newRole(rule(list("*"), list("*"), list("*"))), nil, ""},
		{"binding a held role", as("bob", "ns"), bindTo("ClusterRole", "pod-reader"), nil, ""},
		{"binding an unheld role", as("bob", "ns"), bindTo("ClusterRole", "everything"), nil,
			`rolebindings.rbac.authorization.k8s.io "rb" is forbidden: ` + fmt.Sprintf(lacks, "bob", list()) +
				`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}` + "\n" + `{NonResourceURLs:["*"], Verbs:["*"]}`},
		{"bind on that role", as("ben", "ns"), bindTo("ClusterRole", "everything"), nil, ""},
		{"bind is per namespace", as("ben", "other"), bindTo("ClusterRole", "everything"), nil,
			`rolebindings.rbac.authorization.k8s.io "rb" is forbidden: ` + fmt.Sprintf(lacks, "ben", list()) +
				`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}` + "\n" + `{NonResourceURLs:["*"], Verbs:["*"]}`},
		{"bind is per role", as("ben", "ns"), bindTo("ClusterRole", "all-resources"), nil,
			`rolebindings.rbac.authorization.k8s.io "rb" is forbidden: ` + fmt.Sprintf(lacks, "ben", list()) +
				`{APIGroups:["*"], Resources:["*"], Verbs:["get" "list" "create" "update" "delete"]}`},
		{"a cluster role binding", as("bob", ""), &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "crb"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "pod-reader"}}, nil,
			`clusterrolebindings.rbac.authorization.k8s.io "crb" is forbidden: ` + fmt.Sprintf(lacks, "bob", list()) +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
	}
	for _, tc := range cases {
		err := c.Check(tc.ctx, tc.obj, tc.old)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.want):
			t.Errorf("%s:\n got  %v\n want %s", tc.name, err, tc.want)
		}
	}

	// Binding a missing role is the role's 404.
	if err := c.Check(as("bob", "ns"), bindTo("Role", "nope"), nil); !apierrors.IsNotFound(err) {
		t.Errorf("binding a missing role: %v", err)
	}
	// An update that only the garbage collector would make needs nothing.
	old := newRole(rule(list("*"), list("*"), list("*")))
	updated := old.DeepCopy()
	updated.Finalizers = list("example.com/keep")
	if err := c.Check(as("bob", "ns"), updated, old); err != nil {
		t.Errorf("finalizers only: %v", err)
	}
	updated.Rules[0].Verbs = list("get")
	if err := c.Check(as("bob", "ns"), updated, old); !apierrors.IsForbidden(err) {
		t.Errorf("finalizers and rules: %v", err)
	}
	if err := c.Check(context.Background(), old, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("no user: %v", err)
	}
}
