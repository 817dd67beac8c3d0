package rbac

import (
	"context"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// sourceOf is a Source over informer caches holding objs (the caches are filled directly: no
// watch is needed to read them).
func sourceOf(t *testing.T, objs ...runtime.Object) Source {
	t.Helper()
	i := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Rbac().V1()
	for _, o := range objs {
		var err error
		switch o.(type) {
		case *rbacv1.ClusterRole:
			err = i.ClusterRoles().Informer().GetStore().Add(o)
		case *rbacv1.Role:
			err = i.Roles().Informer().GetStore().Add(o)
		case *rbacv1.ClusterRoleBinding:
			err = i.ClusterRoleBindings().Informer().GetStore().Add(o)
		case *rbacv1.RoleBinding:
			err = i.RoleBindings().Informer().GetStore().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return FromInformers(i)
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(namespace, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

// binding is a ClusterRoleBinding without namespace, a RoleBinding with one; roleKind is "Role"
// or "ClusterRole".
func binding(namespace, name, roleKind, roleName string, subjects ...rbacv1.Subject) runtime.Object {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: roleName}
	if namespace == "" {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subjects}
	}
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, RoleRef: ref, Subjects: subjects}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

func rule(verbs, groups, resources []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func pathRule(verbs []string, paths ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

func list(s ...string) []string { return s }

// world is a small cluster: who is bound to what is in each object's name.
func world(t *testing.T) Source {
	return sourceOf(t,
		clusterRole("reader", rule(list("get", "list", "watch"), list(""), list("pods", "configmaps"))),
		clusterRole("pod-logs", rule(list("get"), list(""), list("pods/log"))),
		clusterRole("scaler", rule(list("update"), list("apps"), list("*/scale"))),
		clusterRole("settings-reader", rule(list("get"), list(""), list("configmaps"), "settings")),
		clusterRole("health", pathRule(list("get"), "/healthz", "/logs/*")),
		clusterRole("everything", rule(list("*"), list("*"), list("*")), pathRule(list("*"), "*")),
		// An aggregated role as the clusterrole-aggregation controller leaves it: its rules are
		// what it gathered.
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aggregated"},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "true"}}}},
			Rules:           []rbacv1.PolicyRule{rule(list("list"), list("batch"), list("jobs"))}},
		role("team-a", "deployer", rule(list("create", "update"), list("apps"), list("deployments"))),

		binding("", "readers", "ClusterRole", "reader", groupSubject("readers")),
		binding("", "root", "ClusterRole", "everything", userSubject("root")),
		binding("", "health", "ClusterRole", "health", groupSubject(user.AllAuthenticated)),
		binding("", "sam-scales", "ClusterRole", "scaler", userSubject("sam")),
		binding("", "nick-settings", "ClusterRole", "settings-reader", userSubject("nick")),
		binding("", "jobs", "ClusterRole", "aggregated", userSubject("jo")),
		binding("team-a", "alice-reads", "ClusterRole", "reader", userSubject("alice")),
		binding("team-a", "ci-deploys", "Role", "deployer", saSubject("", "ci")),
		binding("team-a", "robot-logs", "ClusterRole", "pod-logs", saSubject("ops", "robot")),
		binding("team-a", "dangling", "Role", "missing", userSubject("carol")),
	)
}

func TestAuthorize(t *testing.T) {
	a := New(world(t))
	res := func(verb, group, resource, subresource, namespace, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource,
			Namespace: namespace, Name: name, ResourceRequest: true}
	}
	path := func(verb, p string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{Verb: verb, Path: p}
	}
	cases := []struct {
		user   string
		groups []string
		attrs  authorizer.AttributesRecord
		allow  bool
		reason string // the whole reason if set
	}{
		// A RoleBinding to a ClusterRole grants in its namespace only.
		{user: "alice", attrs: res("get", "", "pods", "", "team-a", "web"), allow: true,
			reason: `RBAC: allowed by RoleBinding "alice-reads/team-a" of ClusterRole "reader" to User "alice"`},
		{user: "alice", attrs: res("list", "", "configmaps", "", "team-a", ""), allow: true},
		{user: "alice", attrs: res("get", "", "pods", "", "team-b", "web")},
		{user: "alice", attrs: res("list", "", "pods", "", "", "")},
		{user: "alice", attrs: res("delete", "", "pods", "", "team-a", "web")},
		{user: "alice", attrs: res("get", "apps", "pods", "", "team-a", "web")},
		// "pods" does not grant pods/log.
		{user: "alice", attrs: res("get", "", "pods", "log", "team-a", "web")},
		// A ClusterRoleBinding to a group grants everywhere.
		{user: "bob", groups: list("readers"), attrs: res("watch", "", "configmaps", "", "team-b", ""), allow: true,
			reason: `RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "readers"`},
		{user: "bob", groups: list("readers"), attrs: res("list", "", "configmaps", "", "", ""), allow: true},
		{user: "bob", groups: list("readers"), attrs: res("get", "", "secrets", "", "team-b", "")},
		{user: "bob", groups: list("writers"), attrs: res("get", "", "pods", "", "team-b", "")},
		// A ServiceAccount subject without a namespace is in the binding's.
		{user: "system:serviceaccount:team-a:ci", attrs: res("create", "apps", "deployments", "", "team-a", ""), allow: true,
			reason: `RBAC: allowed by RoleBinding "ci-deploys/team-a" of Role "deployer" to ServiceAccount "ci/team-a"`},
		{user: "system:serviceaccount:team-b:ci", attrs: res("create", "apps", "deployments", "", "team-a", "")},
		{user: "ci", attrs: res("create", "apps", "deployments", "", "team-a", "")},
		{user: "system:serviceaccount:team-a:ci", attrs: res("create", "extensions", "deployments", "", "team-a", "")},
		{user: "system:serviceaccount:ops:robot", attrs: res("get", "", "pods", "log", "team-a", "web"), allow: true,
			reason: `RBAC: allowed by RoleBinding "robot-logs/team-a" of ClusterRole "pod-logs" to ServiceAccount "robot/ops"`},
		{user: "system:serviceaccount:ops:robot", attrs: res("get", "", "pods", "", "team-a", "web")},
		// "*/scale" is the scale subresource of any resource, and only that.
		{user: "sam", attrs: res("update", "apps", "deployments", "scale", "team-a", "web"), allow: true},
		{user: "sam", attrs: res("update", "apps", "statefulsets", "scale", "team-b", "db"), allow: true},
		{user: "sam", attrs: res("update", "apps", "deployments", "", "team-a", "web")},
		{user: "sam", attrs: res("update", "apps", "deployments", "status", "team-a", "web")},
		// resourceNames: that name only, so never a list or a create (no name).
		{user: "nick", attrs: res("get", "", "configmaps", "", "team-a", "settings"), allow: true},
		{user: "nick", attrs: res("get", "", "configmaps", "", "team-a", "other")},
		{user: "nick", attrs: res("list", "", "configmaps", "", "team-a", "")},
		// Paths: exact, or a prefix ending in "*".
		{user: "nobody", groups: list(user.AllAuthenticated), attrs: path("get", "/healthz"), allow: true},
		{user: "nobody", groups: list(user.AllAuthenticated), attrs: path("get", "/logs/kube-apiserver.log"), allow: true},
		{user: "nobody", groups: list(user.AllAuthenticated), attrs: path("get", "/logs")},
		{user: "nobody", groups: list(user.AllAuthenticated), attrs: path("get", "/healthz/etcd")},
		{user: "nobody", groups: list(user.AllAuthenticated), attrs: path("post", "/healthz")},
		{user: "nobody", attrs: path("get", "/healthz")},
		// Wildcards everywhere.
		{user: "root", attrs: res("deletecollection", "example.com", "widgets", "", "any", ""), allow: true},
		{user: "root", attrs: res("patch", "", "nodes", "status", "", "n1"), allow: true},
		{user: "root", attrs: path("put", "/anything/at/all"), allow: true},
		// An aggregated role grants what it holds.
		{user: "jo", attrs: res("list", "batch", "jobs", "", "team-a", ""), allow: true},
		// A binding to a missing role grants nothing, and says so.
		{user: "carol", attrs: res("get", "", "pods", "", "team-a", ""),
			reason: `RBAC: role.rbac.authorization.k8s.io "missing" not found`},
	}
	for _, tc := range cases {
		tc.attrs.User = &user.DefaultInfo{Name: tc.user, Groups: tc.groups}
		decision, reason, err := a.Authorize(context.Background(), tc.attrs)
		if err != nil {
			t.Errorf("%s %+v: %v", tc.user, tc.attrs, err)
		}
		want := authorizer.DecisionNoOpinion
		if tc.allow {
			want = authorizer.DecisionAllow
		}
		if decision != want || (tc.reason != "" && reason != tc.reason) {
			t.Errorf("%s %v %s %s/%s %q in %q (path %q): %v %q, want %v %q", tc.user, tc.groups, tc.attrs.Verb, tc.attrs.Resource,
				tc.attrs.Subresource, tc.attrs.Name, tc.attrs.Namespace, tc.attrs.Path, decision, reason, want, tc.reason)
		}
	}
}

// TestRulesFor: what kubectl auth can-i --list shows, cluster-wide bindings and the namespace's.
func TestRulesFor(t *testing.T) {
	a := New(world(t))
	alice := &user.DefaultInfo{Name: "alice", Groups: list(user.AllAuthenticated)}
	resources, paths, incomplete, err := a.RulesFor(context.Background(), alice, "team-a")
	if err != nil || incomplete {
		t.Fatalf("RulesFor: %v %v", incomplete, err)
	}
	if len(resources) != 1 || !slices.Equal(resources[0].GetResources(), list("pods", "configmaps")) ||
		!slices.Equal(resources[0].GetVerbs(), list("get", "list", "watch")) {
		t.Errorf("resource rules of alice in team-a: %+v", resources)
	}
	if len(paths) != 1 || !slices.Equal(paths[0].GetNonResourceURLs(), list("/healthz", "/logs/*")) {
		t.Errorf("path rules of alice: %+v", paths)
	}
	if resources, _, _, _ := a.RulesFor(context.Background(), alice, "team-b"); len(resources) != 0 {
		t.Errorf("alice in team-b: %+v", resources)
	}
	// carol's binding names a missing role: the error is reported, the rest still listed.
	carol := &user.DefaultInfo{Name: "carol", Groups: list(user.AllAuthenticated)}
	_, paths, _, err = a.RulesFor(context.Background(), carol, "team-a")
	if err == nil || !strings.Contains(err.Error(), `"missing" not found`) || len(paths) != 1 {
		t.Errorf("carol: %v %+v", err, paths)
	}
}
