package admissionregistration

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

const (
	match = `matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]}`
	vap   = `{metadata: {name: replicas}, spec: {failurePolicy: Fail, ` + match + `, validations: [{expression: "object.spec.replicas < 100"}]}}`
)

func TestValidatingAdmissionPolicy(t *testing.T) {
	spec := func(s string) []string { return []string{vap, `{spec: {` + s + `}}`} }
	run(t, ValidateValidatingAdmissionPolicy, table{
		{"valid", []string{vap}, nil},
		{"variables", spec(`variables: [{name: replicas, expression: object.spec.replicas}],
  validations: [{expression: "variables.replicas < 10", messageExpression: "'too many: ' + string(variables.replicas)", reason: Invalid}]`), nil},
		{"params", spec(`paramKind: {apiVersion: v1, kind: ConfigMap}, validations: [{expression: "object.spec.replicas < int(params.data.max)"}]`), nil},
		{"params without paramKind", spec(`validations: [{expression: "object.spec.replicas < params.max"}]`),
			[]string{`spec.validations[0].expression: Invalid value: "object.spec.replicas < params.max": compilation failed: ERROR: <input>:1:24: undeclared reference to 'params'`}},
		{"paramKind version", spec(`paramKind: {apiVersion: test.example.com, kind: Param}`),
			[]string{`spec.paramKind.apiVersion: Invalid value: "test.example.com": a DNS-1035 label must consist of`}},
		{"paramKind without kind", spec(`paramKind: {apiVersion: example.com/v1}`), []string{"spec.paramKind.kind: Required value"}},
		{"paramKind kind", spec(`paramKind: {apiVersion: example.com/v1, kind: My_Kind}`),
			[]string{`spec.paramKind.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: a DNS-1035 label`}},
		{"failure policy", spec(`failurePolicy: other`), []string{`spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"`}},
		{"no resource rules", spec(`matchConstraints: {resourceRules: []}`), []string{"spec.matchConstraints.resourceRules: Required value"}},
		{"resource names", spec(`matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments], resourceNames: [a/b, x, x]}]}`),
			[]string{`spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain '/'`,
				`spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"`}},
		{"no validations", spec(`validations: null`), []string{
			"spec.validations: Required value: validations or auditAnnotations must contain at least one item",
			"spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"}},
		{"empty expression", spec(`validations: [{expression: " "}]`), []string{"spec.validations[0].expression: Required value: expression is not specified"}},
		{"syntax", spec(`validations: [{expression: "object.x in [1, 2, "}]`),
			[]string{`spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>'`}},
		{"not a condition", spec(`validations: [{expression: "1"}]`), []string{`spec.validations[0].expression: Invalid value: "1": must evaluate to bool`}},
		{"message expression", spec(`validations: [{expression: "true", messageExpression: "0 == 0"}]`),
			[]string{`spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string`}},
		{"blank message expression", spec(`validations: [{expression: "true", messageExpression: " "}]`),
			[]string{`spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified`}},
		{"message on two lines", spec(`validations: [{expression: "true", message: "a\nb"}]`),
			[]string{`spec.validations[0].message: Invalid value: "a\nb": must not contain line breaks`}},
		{"reason", spec(`validations: [{expression: "true", reason: NotFound}]`),
			[]string{`spec.validations[0].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`}},
		{"audit annotations", spec(`auditAnnotations: [{key: k, valueExpression: "true"}, {key: k, valueExpression: "'x'"}, {key: "a b", valueExpression: " "}]`),
			[]string{`spec.auditAnnotations[0].valueExpression: Invalid value: "true": must evaluate to one of [string null_type]`,
				`spec.auditAnnotations[1].key: Duplicate value: "k"`,
				`spec.auditAnnotations[2].key: Invalid value: "replicas/a b": name part must consist of`,
				"spec.auditAnnotations[2].valueExpression: Required value: valueExpression is not specified"}},
		{"long audit expression", spec(`auditAnnotations: [{key: k, valueExpression: "'` + strings.Repeat("x", 5200) + `'"}]`),
			[]string{"spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length"}},
		{"variable name", spec(`variables: [{name: 4ever, expression: "true"}, {name: in, expression: "true"}]`),
			[]string{`spec.variables[0].name: Invalid value: "4ever": must be a valid CEL identifier`, `spec.variables[1].name: Invalid value: "in": must be a valid CEL identifier`}},
		{"variable type", spec(`variables: [{name: foo, expression: "114 + '514'"}]`),
			[]string{`spec.variables[0].expression: Invalid value: "114 + '514'": compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(int, string)'`}},
		{"undefined variable", spec(`variables: [{name: foo, expression: "1"}], validations: [{expression: "variables.replicas == 2"}]`),
			[]string{`spec.validations[0].expression: Invalid value: "variables.replicas == 2": compilation failed: ERROR: <input>:1:10: undefined field 'replicas'`}},
		{"match conditions", spec(`matchConditions: [{name: c, expression: "params.x"}]`),
			[]string{`spec.matchConditions[0].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`}},
		{"match selector", spec(`matchConstraints: {objectSelector: {matchExpressions: [{key: a, operator: In, values: ["b c"]}]}, resourceRules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]}`),
			[]string{`spec.matchConstraints.objectSelector.matchExpressions[0].values[0]: Invalid value: "b c"`}},
	})
}

func TestValidatingAdmissionPolicyUpdate(t *testing.T) {
	decode := func(docs ...string) *admissionregistrationv1.ValidatingAdmissionPolicy {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		vt.Decode(t, p, docs...)
		return p
	}
	old := decode(vap, `{spec: {matchConditions: [{name: c, expression: "1"}]}}`)
	vt.Expect(t, "stored match conditions", ValidateValidatingAdmissionPolicyUpdate(old.DeepCopy(), old))
	withParams := decode(vap, `{spec: {matchConditions: [{name: c, expression: "1"}], paramKind: {apiVersion: v1, kind: ConfigMap}}}`)
	vt.Expect(t, "paramKind changed", ValidateValidatingAdmissionPolicyUpdate(withParams, old), `spec.matchConditions[0].expression: Invalid value: "1": must evaluate to bool`)
}

func TestValidatingAdmissionPolicyStatus(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	vt.Decode(t, p, vap, `{status: {typeChecking: {expressionWarnings: [{fieldRef: "spec.validations[0].expression", warning: w}, {fieldRef: " "}, {fieldRef: "spec.[", warning: w}]},
  conditions: [{type: Ready, status: "True", reason: R, lastTransitionTime: "2025-01-01T00:00:00Z"}, {type: Ready}]}}`)
	vt.Expect(t, "status", ValidateValidatingAdmissionPolicyStatusUpdate(p, p),
		"status.typeChecking.expressionWarnings[1].warning: Required value",
		"status.typeChecking.expressionWarnings[1].fieldRef: Required value",
		`status.typeChecking.expressionWarnings[2].fieldRef: Invalid value: "spec.[": invalid JSONPath: `,
		`status.conditions[1]: Duplicate value: "Ready"`,
		"status.conditions[1].status: Required value",
		"status.conditions[1].lastTransitionTime: Required value",
		"status.conditions[1].reason: Required value")
}

const binding = `{metadata: {name: b}, spec: {policyName: replicas, validationActions: [Deny]}}`

func TestValidatingAdmissionPolicyBinding(t *testing.T) {
	spec := func(s string) []string { return []string{binding, `{spec: {` + s + `}}`} }
	run(t, ValidateValidatingAdmissionPolicyBinding, table{
		{"valid", []string{binding}, nil},
		{"params by selector", spec(`paramRef: {selector: {}, parameterNotFoundAction: Allow}`), nil},
		{"required", []string{`{metadata: {name: b}}`}, []string{"spec.policyName: Required value", "spec.validationActions: Required value"}},
		{"policy name", spec(`policyName: Replicas`), []string{`spec.policyName: Invalid value: "Replicas": a lowercase RFC 1123 subdomain`}},
		{"action twice", spec(`validationActions: [Deny, Deny]`), []string{`spec.validationActions[1]: Duplicate value: "Deny"`}},
		{"unknown action", spec(`validationActions: [Block]`), []string{`spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"`}},
		{"deny and warn", spec(`validationActions: [Deny, Warn]`),
			[]string{`spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`}},
		{"param ref", spec(`paramRef: {}`), []string{"spec.paramRef: Required value: one of name or selector must be specified", "spec.paramRef.parameterNotFoundAction: Required value"}},
		{"param ref both", spec(`paramRef: {name: p, selector: {}, parameterNotFoundAction: Ignore}`), []string{
			"spec.paramRef.name: Forbidden: name and selector are mutually exclusive", "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
			`spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"`}},
		{"match resources", spec(`matchResources: {matchPolicy: Loose}`), []string{`spec.matchResources.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"`}},
	})
}

const mutating = `{metadata: {name: labels}, spec: {failurePolicy: Fail, reinvocationPolicy: Never, ` + match + `,
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"}}]}}`

func TestMutatingAdmissionPolicy(t *testing.T) {
	spec := func(s string) []string { return []string{mutating, `{spec: {` + s + `}}`} }
	run(t, ValidateMutatingAdmissionPolicy, table{
		{"valid", []string{mutating}, nil},
		{"json patch", spec(`mutations: [{patchType: JSONPatch, jsonPatch: {expression: "[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]"}}]`), nil},
		{"apply configuration type", spec(`mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "1 < 2"}}]`),
			[]string{`spec.mutations[0].applyConfiguration.expression: Invalid value: "1 < 2": must evaluate to Object`}},
		{"json patch without expression", spec(`mutations: [{patchType: JSONPatch, jsonPatch: {}}]`), []string{"spec.mutations[0].jsonPatch.expression: Required value"}},
		{"two patches", spec(`mutations: [{patchType: JSONPatch, applyConfiguration: {expression: x}}]`), []string{
			"spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
			`spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch`}},
		{"patch type", spec(`mutations: [{patchType: Merge}]`), []string{`spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"`}},
		{"no patch type", spec(`mutations: [{}]`), []string{"spec.mutations[0].patchType: Required value"}},
		{"delete cannot be patched", spec(`matchConstraints: {resourceRules: [{operations: [DELETE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]}`),
			[]string{`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`}},
		{"no reinvocation policy", spec(`reinvocationPolicy: ""`), []string{"spec.reinvocationPolicy: Required value"}},
		{"no mutations", spec(`mutations: []`), []string{"spec.mutations: Required value: mutations must contain at least one item"}},
		{"static", []string{mutating, `{metadata: {name: a.static.k8s.io}}`}, []string{`metadata.name: Invalid value: "a.static.k8s.io": names ending with`}},
	})
	run(t, ValidateMutatingAdmissionPolicyBinding, table{
		{"valid", []string{`{metadata: {name: b}, spec: {policyName: labels}}`}, nil},
		{"no policy", []string{`{metadata: {name: b}}`}, []string{"spec.policyName: Required value"}},
		{"delete", []string{`{metadata: {name: b}, spec: {policyName: labels, matchResources: {resourceRules: [{operations: [DELETE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]}}}`},
			[]string{`spec.matchResources.resourceRules.operations: Unsupported value: "DELETE"`}},
	})
}
