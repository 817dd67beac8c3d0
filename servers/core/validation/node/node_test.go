package node

import (
	"testing"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{"RuntimeClass": vt.Of(ValidateRuntimeClass, ValidateRuntimeClassUpdate)}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 5, nil) }

func TestAccepted(t *testing.T) { vt.Accepted(t, "runtimeclass.json", kinds["RuntimeClass"]) }

const runtimeClass = `{metadata: {name: gvisor, resourceVersion: "1"}, handler: runsc}`

func TestRuntimeClass(t *testing.T) {
	vt.Cases{
		{"valid", `{overhead: {podFixed: {cpu: 100m, memory: 64Mi}}, scheduling: {nodeSelector: {runtime: runsc}, tolerations: [{key: runtime, operator: Exists, effect: NoSchedule}]}}`, nil},
		// The generated rules report the handler, with their own messages.
		{"no handler", `{handler: ""}`, []string{"handler: Required value"}},
		{"handler", `{handler: Run_SC}`, []string{`handler: Invalid value: "Run_SC": a lowercase RFC 1123 label must consist of`}},
		{"overhead, reported as limits", `{overhead: {podFixed: {cpu: -1, nvidia.com/gpu: 500m}}}`, []string{
			`overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
			`overhead.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer`}},
		{"scheduling", `{scheduling: {nodeSelector: {"bad key": x}, tolerations: [{key: k, operator: Exists}, {key: k, operator: Exists}, {operator: Equal, value: v}]}}`, []string{
			`scheduling.nodeSelector: Invalid value: "bad key": name part must consist of`,
			"scheduling.tolerations[2].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty",
			`scheduling.tolerations[1]: Duplicate value: {"Key":"k","Operator":"Exists","Value":"","Effect":"","TolerationSeconds":null}`}},
	}.Run(t, kinds["RuntimeClass"], runtimeClass, nil)
}

func TestRuntimeClassUpdate(t *testing.T) {
	old := kinds["RuntimeClass"].New()
	vt.Decode(t, old, runtimeClass)
	vt.Cases{
		{"the overhead may change", `{overhead: {podFixed: {cpu: 1}}}`, nil},
		{"the handler stays", `{handler: runc}`, []string{"handler: Invalid value: null: field is immutable"}},
	}.Run(t, kinds["RuntimeClass"], runtimeClass, old)
}
