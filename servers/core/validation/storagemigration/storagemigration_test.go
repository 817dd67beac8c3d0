package storagemigration

import (
	"testing"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"StorageVersionMigration": vt.Of(ValidateStorageVersionMigration, ValidateStorageVersionMigrationUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 3, nil) }

func TestAccepted(t *testing.T) {
	vt.Accepted(t, "storageversionmigration.json", kinds["StorageVersionMigration"])
}

func TestStorageVersionMigration(t *testing.T) {
	vt.Cases{
		{"core resource", `{spec: {resource: {resource: configmaps}}}`, nil},
		{"grouped resource", `{spec: {resource: {group: apps, resource: deployments}}}`, nil},
		{"no resource", `{spec: {resource: {group: apps, resource: ""}}}`, []string{"spec.resource.resource: Required value: resource is required to be set"}},
		{"bad group", `{spec: {resource: {group: Apps_, resource: deployments}}}`, []string{`spec.resource.group: Invalid value: "Apps_": a lowercase RFC 1123 subdomain`}},
		{"bad name", `{metadata: {name: a_b}}`, []string{`metadata.name: Invalid value: "a_b"`}},
	}.Run(t, kinds["StorageVersionMigration"], `{metadata: {name: m}, spec: {resource: {resource: configmaps}}}`, nil)
}

func TestStatusUpdate(t *testing.T) {
	decode := func(doc string) *svm {
		m := &svm{}
		vt.Decode(t, m, `{metadata: {name: m, resourceVersion: "1"}, spec: {resource: {resource: configmaps}}}`, doc)
		return m
	}
	running := `{status: {resourceVersion: "42", conditions: [{type: Running, status: "True", reason: Go, lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`
	succeeded := `{status: {resourceVersion: "42", conditions: [{type: Succeeded, status: "True", reason: Done, lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`
	for _, tc := range []struct {
		name, old, doc string
		want           []string
	}{
		{"migrating", `{}`, running, nil},
		{"done", running, succeeded, nil},
		{"not a resource version", `{}`, `{status: {resourceVersion: "x1"}}`, []string{`status.resourceVersion: Invalid value: "x1"`}},
		{"resource version changes", running, `{status: {resourceVersion: "43"}}`, []string{`status.resourceVersion: Invalid value: "43": field is immutable`}},
		{"both", `{}`, `{status: {conditions: [{type: Succeeded, status: "True", reason: A, lastTransitionTime: "2026-01-01T00:00:00Z"},
			{type: Failed, status: "True", reason: B, lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`,
			[]string{"status.conditions: Invalid value: "}},
		{"success undone", succeeded, running, []string{"status.conditions: Invalid value: "}},
		{"condition without reason", `{}`, `{status: {conditions: [{type: Running, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`,
			[]string{"status.conditions[0].reason: Required value"}},
	} {
		m, old := decode(tc.doc), decode(tc.old)
		vt.Expect(t, tc.name, ValidateStorageVersionMigrationStatusUpdate(m, old), tc.want...)
	}
}
