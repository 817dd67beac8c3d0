package validation

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestRBACValidationMessages checks the exact errors of the rbac validation, handwritten and
// declarative merged as kube-apiserver v1.37.2 merges them (declarative beta errors last,
// replacing the handwritten ones they cover).
func TestRBACValidationMessages(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "r", Namespace: "ns"}
	cmeta := metav1.ObjectMeta{Name: "r"}
	ref := func(kind, name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
	}
	user := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}
	emptyRule := &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{}}}
	addsEmptyRule := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", ResourceVersion: "1"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}}
	noRules := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", ResourceVersion: "1"}}
	cases := []struct {
		name string
		errs field.ErrorList
		want string
	}{
		{"valid role", ValidateRole(&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}), ""},
		{"empty rule", withDeclarative(t, emptyRule, nil, ValidateRole(emptyRule)),
			"[rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource, rules[0].verbs: Required value]"},
		{"namespaced non-resource URL", ValidateRole(&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/foo"}}}}),
			`rules[0].nonResourceURLs: Invalid value: ["/foo"]: namespaced rules cannot apply to non-resource URLs`},
		{"resources and URLs", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: cmeta, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"pods"}, NonResourceURLs: []string{"/foo"}}}}),
			`rules[0].nonResourceURLs: Invalid value: ["/foo"]: rules cannot apply to both regular resources and non-resource URLs`},
		{"cluster role URL", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: cmeta, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/foo"}}}}), ""},
		{"name", ValidateRole(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "..", Namespace: "ns"}}), `metadata.name: Invalid value: "..": may not be '..'`},
		{"slash in name", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "a/b"}}), `metadata.name: Invalid value: "a/b": may not contain '/'`},
		{"colons are fine", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:controller:x"}}), ""},
		{"role needs a namespace", ValidateRole(&rbacv1.Role{ObjectMeta: cmeta}), "metadata.namespace: Required value"},
		{"empty aggregation rule", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: cmeta, AggregationRule: &rbacv1.AggregationRule{}}),
			"aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"},
		{"bad aggregation selector", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: cmeta, AggregationRule: &rbacv1.AggregationRule{
			ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "-bad-"}}}}}),
			`[aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.]`},

		{"valid binding", ValidateRoleBinding(&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref("ClusterRole", "view"), Subjects: []rbacv1.Subject{user}}), ""},
		{"bad roleRef", ValidateRoleBinding(&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: "foo", Kind: "Bad"}}),
			`[roleRef.apiGroup: Unsupported value: "foo": supported values: "rbac.authorization.k8s.io", roleRef.kind: Unsupported value: "Bad": supported values: "Role", "ClusterRole", roleRef.name: Required value]`},
		{"cluster binding to a Role", ValidateClusterRoleBinding(&rbacv1.ClusterRoleBinding{ObjectMeta: cmeta, RoleRef: ref("Role", "r")}),
			`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`},
		{"roleRef name", ValidateClusterRoleBinding(&rbacv1.ClusterRoleBinding{ObjectMeta: cmeta, RoleRef: ref("ClusterRole", "a/b")}),
			`roleRef.name: Invalid value: "a/b": may not contain '/'`},
		{"subjects", ValidateClusterRoleBinding(&rbacv1.ClusterRoleBinding{ObjectMeta: cmeta, RoleRef: ref("ClusterRole", "view"), Subjects: []rbacv1.Subject{
			{Kind: rbacv1.ServiceAccountKind, Name: "default"},
			{Kind: rbacv1.ServiceAccountKind, APIGroup: rbacv1.GroupName, Name: "Bad_Name", Namespace: "ns"},
			{Kind: rbacv1.UserKind, Name: "u"},
			{Kind: "Robot", Name: "r2"},
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName},
		}}),
			`[subjects[0].namespace: Required value, subjects[1].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), subjects[1].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: "", subjects[2].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io", subjects[3].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group", subjects[4].name: Required value]`},
		{"namespaced SA subject needs no namespace", ValidateRoleBinding(&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref("Role", "r"), Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default"}}}), ""},

		{"roleRef is immutable", ValidateRoleBindingUpdate(
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", ResourceVersion: "1"}, RoleRef: ref("ClusterRole", "edit")},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", ResourceVersion: "1"}, RoleRef: ref("ClusterRole", "view")}),
			`roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}: field is immutable`},
		{"cluster roleRef is immutable", ValidateClusterRoleBindingUpdate(
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "r", ResourceVersion: "1"}, RoleRef: ref("ClusterRole", "edit")},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "r", ResourceVersion: "1"}, RoleRef: ref("ClusterRole", "view")}),
			`roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}: field is immutable`},
		{"update adds an empty rule", withDeclarative(t, addsEmptyRule, noRules, ValidateRoleUpdate(addsEmptyRule, noRules)),
			"rules[0].verbs: Required value"},
	}
	for _, tc := range cases {
		got := ""
		if agg := tc.errs.ToAggregate(); agg != nil {
			got = agg.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}
