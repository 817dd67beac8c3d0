package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"Role":               vt.Of(ValidateRole, ValidateRoleUpdate),
	"ClusterRole":        vt.Of(ValidateClusterRole, ValidateClusterRoleUpdate),
	"RoleBinding":        vt.Of(ValidateRoleBinding, ValidateRoleBindingUpdate),
	"ClusterRoleBinding": vt.Of(ValidateClusterRoleBinding, ValidateClusterRoleBindingUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 24, nil) }

// check decodes doc as kind over base, validates it on create (merged with the declarative
// rules) and compares.
func check(t *testing.T, kind, base, doc string, want ...string) {
	t.Helper()
	k := kinds[kind]
	obj := k.New()
	vt.Decode(t, obj, base, doc)
	vt.Expect(t, kind+" "+doc, vt.Merged(t, obj, nil, k.Create(obj)), want...)
}

func TestRoles(t *testing.T) {
	const role = `{metadata: {name: r, namespace: ns}, rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]}`
	const clusterRole = `{metadata: {name: r}}`
	check(t, "Role", role, `{}`)
	check(t, "Role", role, `{rules: [{}]}`,
		"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
		"rules[0].resources: Required value: resource rules must supply at least one resource",
		"rules[0].verbs: Required value") // declarative, last
	check(t, "Role", role, `{rules: [{verbs: [get], nonResourceURLs: [/healthz]}]}`,
		`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs`)
	check(t, "Role", role, `{metadata: {name: ".."}}`, `metadata.name: Invalid value: "..": may not be '..'`)
	check(t, "Role", role, `{metadata: {namespace: ""}}`, "metadata.namespace: Required value")
	check(t, "ClusterRole", clusterRole, `{metadata: {name: "system:controller:x"}, rules: [{verbs: [get], nonResourceURLs: [/healthz]}]}`)
	check(t, "ClusterRole", clusterRole, `{rules: [{verbs: [get], resources: [pods], nonResourceURLs: [/healthz]}]}`,
		`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs`)
	check(t, "ClusterRole", clusterRole, `{metadata: {name: a/b}}`, `metadata.name: Invalid value: "a/b": may not contain '/'`)
	check(t, "ClusterRole", clusterRole, `{aggregationRule: {}}`,
		"aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil")
	check(t, "ClusterRole", clusterRole, `{aggregationRule: {clusterRoleSelectors: [{matchLabels: {a: -bad-}}]}}`,
		`aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "-bad-": a valid label must be an empty string`,
		"aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.")

	// A stored selector's invalid label value is not reported again, but such a selector
	// still cannot be made.
	k := kinds["ClusterRole"]
	old := k.New().(*rbacv1.ClusterRole)
	vt.Decode(t, old, `{metadata: {name: r, resourceVersion: "1"}, aggregationRule: {clusterRoleSelectors: [{matchExpressions: [{key: a, operator: In, values: [-bad-]}]}]}}`)
	vt.Expect(t, "kept invalid value", ValidateClusterRoleUpdate(old.DeepCopy(), old),
		"aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.")
}

func TestBindings(t *testing.T) {
	const rb = `{metadata: {name: b, namespace: ns}, roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}, subjects: [{kind: User, name: bob}]}`
	const crb = `{metadata: {name: b}, roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}`
	check(t, "RoleBinding", rb, `{}`)
	check(t, "RoleBinding", rb, `{subjects: [{kind: ServiceAccount, name: default}]}`)
	check(t, "RoleBinding", rb, `{roleRef: {apiGroup: example.com, kind: Bad, name: ""}}`,
		`roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"`,
		`roleRef.kind: Unsupported value: "Bad": supported values: "Role", "ClusterRole"`,
		"roleRef.name: Required value")
	check(t, "ClusterRoleBinding", crb, `{roleRef: {kind: Role}}`, `roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`)
	check(t, "ClusterRoleBinding", crb, `{roleRef: {name: a/b}}`, `roleRef.name: Invalid value: "a/b": may not contain '/'`)
	check(t, "ClusterRoleBinding", crb, `{subjects: [
		{kind: ServiceAccount, name: default},
		{kind: ServiceAccount, apiGroup: rbac.authorization.k8s.io, name: Bad_Name, namespace: ns},
		{kind: User, name: u, apiGroup: example.com},
		{kind: Robot, name: r2},
		{kind: Group}]}`,
		"subjects[0].namespace: Required value",
		`subjects[1].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`,
		`subjects[1].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""`,
		`subjects[2].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"`,
		`subjects[3].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
		"subjects[4].name: Required value")

	// What a binding grants cannot change.
	old := &rbacv1.RoleBinding{}
	vt.Decode(t, old, rb)
	old.ResourceVersion = "1"
	edit := old.DeepCopy()
	edit.RoleRef.Name = "edit"
	vt.Expect(t, "roleRef", ValidateRoleBindingUpdate(edit, old),
		`roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: field is immutable`)
	more := old.DeepCopy()
	more.Subjects = append(more.Subjects, rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "devs"})
	vt.Expect(t, "subjects may change", ValidateRoleBindingUpdate(more, old))
}
