package scheduling

import (
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"PriorityClass": vt.Of(ValidatePriorityClass, ValidatePriorityClassUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 9, nil) }

func TestAccepted(t *testing.T) { vt.Accepted(t, "priorityclass.json", kinds["PriorityClass"]) }

func priorityClass(t *testing.T, doc string) *schedulingv1.PriorityClass {
	pc := &schedulingv1.PriorityClass{}
	vt.Decode(t, pc, "{metadata: {name: tier, resourceVersion: '1'}, value: 100}", doc)
	return pc
}

func TestPriorityClass(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", `{}`, nil},
		{"a system class as it is", `{metadata: {name: system-node-critical}, value: 2000001000}`, nil},
		{"namespaced", `{metadata: {namespace: ns}}`, []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"unknown system class", `{metadata: {name: system-mine}}`,
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"}},
		{"system class, other value", `{metadata: {name: system-cluster-critical}}`,
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000"}},
		{"system class as default", `{metadata: {name: system-cluster-critical}, value: 2000000000, globalDefault: true}`,
			[]string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"}},
		{"too high", `{value: 1000000001}`, []string{"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}},
		{"preemption policy", `{preemptionPolicy: Sometimes}`,
			[]string{`preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`}},
	} {
		vt.Expect(t, tc.name, ValidatePriorityClass(priorityClass(t, tc.doc)), tc.want...)
	}
	for _, pc := range SystemClasses() {
		vt.Expect(t, pc.Name, ValidatePriorityClass(pc))
	}
}

func TestPriorityClassUpdate(t *testing.T) {
	old := priorityClass(t, `{}`)
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"description and default may change", `{description: x, globalDefault: true}`, nil},
		{"value", `{value: 101}`, []string{"value: Forbidden: may not be changed in an update."}},
		{"preemption policy", `{preemptionPolicy: Never}`, []string{`preemptionPolicy: Invalid value: "Never": field is immutable`}},
		{"name", `{metadata: {name: other}}`, []string{`metadata.name: Invalid value: "other": field is immutable`}},
	} {
		vt.Expect(t, tc.name, ValidatePriorityClassUpdate(priorityClass(t, tc.doc), old), tc.want...)
	}
}
