package flowcontrol

import (
	"encoding/json"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"FlowSchema":                 vt.Of(ValidateFlowSchema, ValidateFlowSchemaUpdate),
	"PriorityLevelConfiguration": vt.Of(ValidatePriorityLevelConfiguration, ValidatePriorityLevelConfigurationUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 10, nil) }

func TestAccepted(t *testing.T) {
	vt.Accepted(t, "flowschema.json", kinds["FlowSchema"])
	vt.Accepted(t, "prioritylevelconfiguration.json", kinds["PriorityLevelConfiguration"])
}

// TestBootstrapConfigurationIsValid checks every FlowSchema and PriorityLevelConfiguration
// kube-apiserver creates on a fresh etcd, the mandatory ones with their fixed specs included.
func TestBootstrapConfigurationIsValid(t *testing.T) {
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(vt.ReadReference(t, "bootstrap-flowcontrol.json"), &list); err != nil {
		t.Fatal(err)
	}
	for _, raw := range list.Items {
		var kind struct{ Kind string }
		if err := json.Unmarshal(raw, &kind); err != nil {
			t.Fatal(err)
		}
		obj := kinds[kind.Kind].New()
		vt.Decode(t, obj, string(raw))
		vt.Expect(t, string(raw)[:80], vt.Merged(t, obj, nil, kinds[kind.Kind].Create(obj)))
	}
	if len(list.Items) != 19 {
		t.Errorf("%d bootstrap objects, want 19", len(list.Items))
	}
}

const flowSchema = `{metadata: {name: fs, resourceVersion: "1"}, spec: {priorityLevelConfiguration: {name: global-default}, matchingPrecedence: 500,
  rules: [{subjects: [{kind: Group, group: {name: "system:authenticated"}}], resourceRules: [{verbs: [get], apiGroups: [""], resources: [pods], namespaces: ["*"]}]}]}}`

func TestFlowSchema(t *testing.T) {
	rules := func(r string) string { return `{spec: {rules: [` + r + `]}}` }
	vt.Cases{
		{"valid", `{spec: {distinguisherMethod: {type: ByNamespace}}}`, nil},
		{"precedence", `{spec: {matchingPrecedence: 1}}`, []string{"spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"}},
		{"negative precedence", `{spec: {matchingPrecedence: -1}}`, []string{"spec.matchingPrecedence: Invalid value: -1: must be a positive value"}},
		{"distinguisher, shown whole", `{spec: {distinguisherMethod: {type: ByGroup}}}`,
			[]string{`spec.distinguisherMethod.type: Unsupported value: {"Type":"ByGroup"}: supported values: "ByNamespace", "ByUser"`}},
		{"level", `{spec: {priorityLevelConfiguration: {name: Bad_Level}}}`,
			[]string{`spec.priorityLevelConfiguration.name: Invalid value: "Bad_Level": a lowercase RFC 1123 subdomain`}},
		{"subjects", rules(`{subjects: [{kind: User}, {kind: Group, group: {name: g}, user: {name: u}}, {kind: ServiceAccount, serviceAccount: {name: "*"}}, {kind: Robot}], nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]}`), []string{
			"spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
			"spec.rules[0].subjects[1].user: Forbidden: user is forbidden when subject kind is not 'User'",
			"spec.rules[0].subjects[2].serviceAccount.namespace: Required value: must specify namespace for service account",
			`spec.rules[0].subjects[3].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"`}},
		{"no subjects and no rules", rules(`{}`), []string{
			"spec.rules[0].subjects: Required value: subjects must contain at least one value",
			"spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty"}},
		{"resource rule", rules(`{subjects: [{kind: Group, group: {name: g}}], resourceRules: [{verbs: [get, fly], apiGroups: ["*", apps], resources: []}, {verbs: ["*", get], apiGroups: [""], resources: [pods], namespaces: [Bad_NS]}]}`), []string{
			`spec.rules[0].resourceRules[0].verbs: Unsupported value: ["get","fly"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`,
			`spec.rules[0].resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups`,
			"spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource",
			"spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
			`spec.rules[0].resourceRules[1].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs`,
			`spec.rules[0].resourceRules[1].namespaces[0]: Invalid value: "Bad_NS": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label`}},
		{"non-resource rule", rules(`{subjects: [{kind: Group, group: {name: g}}], nonResourceRules: [{verbs: [get], nonResourceURLs: [healthz, "/a//b", "/a/*/b", "/metrics/*"]}]}`), []string{
			`spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`,
			`spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a//b": must not contain double slash`,
			`spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a/*/b": wildcard can only do suffix matching`}},
		{"status conditions", `{status: {conditions: [{type: Dangling}, {type: Dangling}, {type: ""}]}}`, []string{
			`status.conditions[1].type: Duplicate value: "Dangling"`, "status.conditions[2].type: Required value: must not be empty"}},
	}.Run(t, kinds["FlowSchema"], flowSchema, nil)
}

func TestMandatoryFlowSchemasAreFixed(t *testing.T) {
	catchAll := &flowcontrolv1.FlowSchema{}
	vt.Decode(t, catchAll, flowSchema, `{metadata: {name: catch-all}}`)
	errs := ValidateFlowSchema(catchAll)
	if len(errs) != 1 || errs[0].Field != "spec" || errs[0].Detail != "spec of 'catch-all' must equal the fixed value" {
		t.Errorf("a changed catch-all schema: %v", errs)
	}
}

const priorityLevel = `{metadata: {name: pl, resourceVersion: "1"}, spec: {type: Limited, limited: {limitResponse: {type: Queue, queuing: {}}}}}`

func TestPriorityLevelConfiguration(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"a jail: no shares", `{spec: {limited: {nominalConcurrencyShares: 0, limitResponse: {type: Reject, queuing: null}}}}`, nil},
		{"exempt is for the exempt level", `{spec: {type: Exempt, limited: null, exempt: {}}}`,
			[]string{"spec.type: Invalid value: \"Exempt\": must be 'Exempt' if and only if `name` is 'exempt'"}},
		{"numbers", `{spec: {limited: {nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -1}}}`, []string{
			"spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
			"spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
			"spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer"}},
		// The generated rules report what the type lets or makes a level set.
		{"rejecting needs no queues", `{spec: {limited: {limitResponse: {type: Reject}}}}`, []string{"spec.limited.limitResponse.queuing: Forbidden"}},
		{"queuing needs queues", `{spec: {limited: {limitResponse: {queuing: null}}}}`, []string{"spec.limited.limitResponse.queuing: Required value"}},
		{"limited needs limits", `{spec: {limited: null}}`, []string{"spec.limited: Required value"}},
		{"unknown response", `{spec: {limited: {limitResponse: {type: Drop, queuing: null}}}}`,
			[]string{`spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"`}},
		{"queues", `{spec: {limited: {limitResponse: {queuing: {queues: 16, handSize: 32, queueLengthLimit: -1}}}}}`, []string{
			"spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive",
			"spec.limited.limitResponse.queuing.handSize: Invalid value: 32: should not be greater than queues (16)"}},
		{"hand too big for the hash", `{spec: {limited: {limitResponse: {queuing: {queues: 10000000, handSize: 20}}}}}`,
			[]string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 20: required entropy bits of deckSize 10000000 and handSize 20 should not be greater than 60"}},
		{"too many queues", `{spec: {limited: {limitResponse: {queuing: {queues: 10000001, handSize: 1}}}}}`,
			[]string{"spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000"}},
	}.Run(t, kinds["PriorityLevelConfiguration"], priorityLevel, nil)
}

func TestMandatoryPriorityLevels(t *testing.T) {
	exempt := `{metadata: {name: exempt}, spec: {type: Exempt, limited: null, exempt: {nominalConcurrencyShares: 10, lendablePercent: 50}}}`
	vt.Cases{
		{"the exempt level may lend", exempt, nil},
		{"the catch-all level may not change", `{metadata: {name: catch-all}}`, []string{"spec: Invalid value: "}},
	}.Run(t, kinds["PriorityLevelConfiguration"], priorityLevel, nil)
}
