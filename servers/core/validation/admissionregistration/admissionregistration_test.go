package admissionregistration

import (
	"encoding/json"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/yaml"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"ValidatingWebhookConfiguration": vt.Of(ValidateValidatingWebhookConfiguration, ValidateValidatingWebhookConfigurationUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 9, nil) }

type table []struct {
	name string
	docs []string
	want []string
}

// run decodes each case's documents as a new T, validates them with f (merged with the
// generated rules) and compares.
func run[T any, PT interface {
	*T
	kruntime.Object
}](t *testing.T, f func(PT) field.ErrorList, cases table) {
	t.Helper()
	for _, tc := range cases {
		obj := PT(new(T))
		vt.Decode(t, obj, tc.docs...)
		vt.Expect(t, tc.name, vt.Merged(t, obj, nil, f(obj)), tc.want...)
	}
}

const (
	webhookConfig = `{metadata: {name: config}, webhooks: [` + firstHook + `]}`
	firstHook     = `{name: webhook.k8s.io, clientConfig: {url: "https://example.com"}, sideEffects: None, admissionReviewVersions: [v1],
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]}`
)

// with is webhookConfig with fields of its webhook replaced (null removes one).
func with(fields string) []string {
	var h, f map[string]interface{}
	if err := yaml.Unmarshal([]byte(firstHook), &h); err != nil {
		panic(err)
	}
	if err := yaml.Unmarshal([]byte("{"+fields+"}"), &f); err != nil {
		panic(err)
	}
	for k, v := range f {
		h[k] = v
		if v == nil {
			delete(h, k)
		}
	}
	doc, err := json.Marshal(map[string]interface{}{"webhooks": []interface{}{h}})
	if err != nil {
		panic(err)
	}
	return []string{webhookConfig, string(doc)}
}

func TestValidatingWebhookConfiguration(t *testing.T) {
	run(t, ValidateValidatingWebhookConfiguration, table{
		{"valid", []string{webhookConfig}, nil},
		{"service", with(`clientConfig: {service: {namespace: ns, name: svc, path: /v}}`), nil},
		{"no review versions", with(`admissionReviewVersions: []`), []string{"webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"}},
		{"review version", with(`admissionReviewVersions: [0v]`), []string{`webhooks[0].admissionReviewVersions[0]: Invalid value: "0v": a DNS-1035 label`,
			`webhooks[0].admissionReviewVersions: Invalid value: ["0v"]: must include at least one of v1, v1beta1`}},
		{"review version twice", with(`admissionReviewVersions: [v1, v1]`), []string{`webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version`}},
		{"short name", with(`name: k8s.io`), []string{`webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots`}},
		{"no operations", with(`rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods]}]`), []string{"webhooks[0].rules[0].operations: Required value"}},
		{"patch operation", with(`rules: [{operations: [PATCH], apiGroups: [""], apiVersions: [v1], resources: [pods]}]`),
			[]string{`webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`}},
		{"wildcard operation and more", with(`rules: [{operations: ["*", CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]`),
			[]string{`webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`}},
		{"rule without groups and versions", with(`rules: [{operations: [CREATE], resources: [pods]}]`),
			[]string{"webhooks[0].rules[0].apiGroups: Required value", "webhooks[0].rules[0].apiVersions: Required value"}},
		{"empty version", with(`rules: [{operations: [CREATE], apiGroups: ["*", apps], apiVersions: [""], resources: [pods]}]`),
			[]string{`webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`, "webhooks[0].rules[0].apiVersions[0]: Required value"}},
		{"wildcard and resources", with(`rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: ["*", a]}]`),
			[]string{`webhooks[0].rules[0].resources: Invalid value: ["*","a"]: if '*' is present, must not specify other resources without subresources`}},
		{"subresource under wildcard", with(`rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [a/*, a/x, "*/y", b/y]}]`),
			[]string{`webhooks[0].rules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x`,
				`webhooks[0].rules[0].resources[3]: Invalid value: "b/y": if '*/y' is present, must not specify b/y`}},
		{"double wildcard", with(`rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: ["*/*", a]}]`),
			[]string{`webhooks[0].rules[0].resources: Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources`}},
		{"scope", with(`rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Global}]`),
			[]string{`webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`}},
		{"failure policy", with(`failurePolicy: other`), []string{`webhooks[0].failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"`}},
		{"match policy", with(`matchPolicy: Loose`), []string{`webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"`}},
		{"no side effects", with(`sideEffects: null`), []string{"webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"}},
		{"side effects", with(`sideEffects: Some`), []string{`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"timeout", with(`timeoutSeconds: 31`), []string{"webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"}},
		{"selector", with(`objectSelector: {matchLabels: {a: "b c"}}`), []string{`webhooks[0].objectSelector.matchLabels: Invalid value: "b c"`}},
		{"no client config", with(`clientConfig: {}`), []string{"webhooks[0].clientConfig: Required value: exactly one of url or service is required"}},
		{"http", with(`clientConfig: {url: "http://example.com"}`), []string{`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme`}},
		{"url with query", with(`clientConfig: {url: "https://example.com/?arg=value"}`), []string{`webhooks[0].clientConfig.url: Invalid value: "arg=value": query parameters are not permitted in the URL`}},
		{"service path", with(`clientConfig: {service: {namespace: ns, name: svc, path: foo/}}`), []string{`webhooks[0].clientConfig.service.path: Invalid value: "foo/": must start with a '/'`}},
		{"service without name", with(`clientConfig: {service: {namespace: ns}}`), []string{"webhooks[0].clientConfig.service.namespace: Required value"}},
		{"match condition syntax", with(`matchConditions: [{name: c, expression: "object.x in [1, 2,"}]`),
			[]string{`webhooks[0].matchConditions[0].expression: Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'`}},
		{"match condition type", with(`matchConditions: [{name: c, expression: "6"}]`), []string{`webhooks[0].matchConditions[0].expression: Invalid value: "6": must evaluate to bool`}},
		{"match condition params", with(`matchConditions: [{name: c, expression: "params.x == 1"}]`),
			[]string{`webhooks[0].matchConditions[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`}},
		{"match condition authorizer", with(`matchConditions: [{name: c, expression: "authorizer.group('').resource('pods').check('get').allowed()"}]`), nil},
		{"match condition names", with(`matchConditions: [{name: "a b", expression: "true"}, {name: "a b", expression: "true"}, {expression: " "}]`),
			[]string{`webhooks[0].matchConditions[0].name: Invalid value: "a b": name part must consist of`,
				`webhooks[0].matchConditions[1].name: Invalid value: "a b": name part must consist of`,
				`webhooks[0].matchConditions[1].name: Duplicate value: "a b"`,
				"webhooks[0].matchConditions[2].expression: Required value", "webhooks[0].matchConditions[2].name: Required value"}},
		{"names twice", []string{webhookConfig, `{webhooks: [{name: a.k8s.io, clientConfig: {url: "https://x"}, sideEffects: None, admissionReviewVersions: [v1]},
  {name: a.k8s.io, clientConfig: {url: "https://x"}, sideEffects: None, admissionReviewVersions: [v1]}]}`}, []string{`webhooks[1].name: Duplicate value: "a.k8s.io"`}},
		{"static", []string{webhookConfig, `{metadata: {name: x.static.k8s.io}}`},
			[]string{`metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`}},
	})
}

func TestMutatingWebhookConfiguration(t *testing.T) {
	run(t, ValidateMutatingWebhookConfiguration, table{
		{"valid", with(`reinvocationPolicy: IfNeeded`), nil},
		{"reinvocation", with(`reinvocationPolicy: Always`), []string{`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`}},
		{"timeout", with(`timeoutSeconds: 0`), []string{"webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds"}},
	})
}

func TestWebhookConfigurationUpdate(t *testing.T) {
	decode := func(docs ...string) *admissionregistrationv1.ValidatingWebhookConfiguration {
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		vt.Decode(t, c, docs...)
		return c
	}
	// What a stored configuration has, it keeps; a new one may not have it.
	for _, tc := range []struct {
		name, stored string
		want         string
	}{
		{"side effects", `sideEffects: Some`, `webhooks[0].sideEffects: Unsupported value: "Some"`},
		{"review versions", `admissionReviewVersions: [v2]`, `webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`},
		{"selector values", `namespaceSelector: {matchExpressions: [{key: a, operator: In, values: ["b c"]}]}`, `webhooks[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "b c"`},
		{"match conditions", `matchConditions: [{name: c, expression: "6"}]`, `webhooks[0].matchConditions[0].expression: Invalid value: "6": must evaluate to bool`},
	} {
		old := decode(with(tc.stored)...)
		vt.Expect(t, tc.name+" new", ValidateValidatingWebhookConfiguration(old), tc.want)
		vt.Expect(t, tc.name+" kept", ValidateValidatingWebhookConfigurationUpdate(old.DeepCopy(), old))
	}
	mc := decode(with(`matchConditions: [{name: c, expression: "6"}]`)...)
	changed := decode(with(`matchConditions: [{name: c, expression: "6"}, {name: d, expression: "7"}]`)...)
	vt.Expect(t, "changed match conditions", ValidateValidatingWebhookConfigurationUpdate(changed, mc),
		`webhooks[0].matchConditions[0].expression: Invalid value: "6": must evaluate to bool`,
		`webhooks[0].matchConditions[1].expression: Invalid value: "7": must evaluate to bool`)
}
