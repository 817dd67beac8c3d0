package validation

// Tests for admissionregistration.k8s.io validation. Like upstream's
// pkg/apis/admissionregistration/validation/validation_test.go, each case expects its errors,
// aggregated, to contain a string (the expected strings are upstream's, CEL compilation
// errors included), or no error at all.

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults"
)

// expectContains checks the aggregated errors as upstream's tests do.
func expectContains(t *testing.T, name string, errs field.ErrorList, want string) {
	t.Helper()
	switch {
	case want == "" && len(errs) != 0:
		t.Errorf("%s: unexpected errors: %v", name, errs.ToAggregate())
	case want != "" && len(errs) == 0:
		t.Errorf("%s: no errors, want %q", name, want)
	case want != "" && !strings.Contains(errs.ToAggregate().Error(), want):
		t.Errorf("%s: errors %q do not contain %q", name, errs.ToAggregate().Error(), want)
	}
}

func validatingWebhookConfiguration(mutate func(*admissionregistrationv1.ValidatingWebhook)) *admissionregistrationv1.ValidatingWebhookConfiguration {
	hook := admissionregistrationv1.ValidatingWebhook{
		Name:                    "webhook.k8s.io",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://example.com")},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
	}
	mutate(&hook)
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{hook}}
	defaults.SetObjectDefaults_ValidatingWebhookConfiguration(c)
	return c
}

func TestValidateWebhookConfigurations(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*admissionregistrationv1.ValidatingWebhook)
		want   string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingWebhook) {}, ""},
		{"valid service", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("/v")}}
		}, ""},
		{"no review versions", func(h *admissionregistrationv1.ValidatingWebhook) { h.AdmissionReviewVersions = nil },
			`webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1`},
		{"bad review version", func(h *admissionregistrationv1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"0v"} }, `Invalid value: "0v": a DNS-1035 label`},
		{"unknown review version", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.AdmissionReviewVersions = []string{"invalidVersion"}
		}, `Invalid value: ["invalidVersion"]`},
		{"short name", func(h *admissionregistrationv1.ValidatingWebhook) { h.Name = "k8s.io" },
			`webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots`},
		{"no operations", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Operations = nil }, `webhooks[0].rules[0].operations: Required value`},
		{"patch operation", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.Rules[0].Operations = []admissionregistrationv1.OperationType{"PATCH"}
		}, `Unsupported value: "PATCH"`},
		{"wildcard and resources", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*", "a"} },
			`if '*' is present, must not specify other resources without subresources`},
		{"subresource under wildcard", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"a/*", "a/x"} },
			`webhooks[0].rules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x`},
		{"double wildcard", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*/*", "a"} },
			`webhooks[0].rules[0].resources: Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources`},
		{"bad failure policy", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.FailurePolicy = ptr.To(admissionregistrationv1.FailurePolicyType("other"))
		},
			`webhooks[0].failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"`},
		{"no side effects", func(h *admissionregistrationv1.ValidatingWebhook) { h.SideEffects = nil },
			`webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`},
		{"side effects", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassSome)
		},
			`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`},
		{"no client config", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{}
		},
			`[0].clientConfig: Required value: exactly one of url or service is required`},
		{"url with query", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig.URL = ptr.To("https://example.com/?arg=value")
		},
			`"arg=value": query parameters are not permitted`},
		{"service path", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("foo/")}}
		}, `clientConfig.service.path: Invalid value: "foo/": must start with a '/'`},
		{"timeout", func(h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](31) },
			`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`},
		{"match condition syntax", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "object.x in [1, 2,"}}
		}, `webhooks[0].matchConditions[0].expression: Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'`},
		{"match condition type", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "6"}}
		}, `webhooks[0].matchConditions[0].expression: Invalid value: "6": must evaluate to bool`},
		{"match condition params", func(h *admissionregistrationv1.ValidatingWebhook) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "params.x == 1"}}
		}, `undeclared reference to 'params'`},
	}
	for _, tc := range cases {
		expectContains(t, tc.name, ValidateValidatingWebhookConfiguration(validatingWebhookConfiguration(tc.mutate)), tc.want)
	}

	duplicate := validatingWebhookConfiguration(func(*admissionregistrationv1.ValidatingWebhook) {})
	duplicate.Webhooks = append(duplicate.Webhooks, duplicate.Webhooks[0])
	expectContains(t, "duplicate names", ValidateValidatingWebhookConfiguration(duplicate), `webhooks[1].name: Duplicate value: "webhook.k8s.io"`)
	// stored configurations keep what they already had
	expectContains(t, "stored duplicate names", ValidateValidatingWebhookConfigurationUpdate(duplicate, duplicate), "")
	static := validatingWebhookConfiguration(func(*admissionregistrationv1.ValidatingWebhook) {})
	static.Name = "x.static.k8s.io"
	expectContains(t, "static suffix", ValidateValidatingWebhookConfiguration(static),
		`metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`)

	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "webhook.k8s.io", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://example.com")},
		SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy: ptr.To(admissionregistrationv1.ReinvocationPolicyType("Always")),
	}}}
	defaults.SetObjectDefaults_MutatingWebhookConfiguration(mutating)
	expectContains(t, "reinvocation policy", ValidateMutatingWebhookConfiguration(mutating),
		`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`)
}

func validatingAdmissionPolicy(mutate func(*admissionregistrationv1.ValidatingAdmissionPolicy)) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "config"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			Validations: []admissionregistrationv1.Validation{{Expression: "object.x < 100"}},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"a"}, APIVersions: []string{"a"}, Resources: []string{"a"}}}}}},
		},
	}
	mutate(p)
	defaults.SetObjectDefaults_ValidatingAdmissionPolicy(p)
	return p
}

func TestValidateValidatingAdmissionPolicy(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*admissionregistrationv1.ValidatingAdmissionPolicy)
		want   string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingAdmissionPolicy) {}, ""},
		{"valid variables", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "replicas", Expression: "object.spec.replicas"}}
			p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "variables.replicas < 10", MessageExpression: "'too many: ' + string(variables.replicas)"}}
		}, ""},
		{"bad paramKind version", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "test.example.com", Kind: "Param"}
		}, `spec.paramKind.apiVersion: Invalid value: "test.example.com"`},
		{"no paramKind kind", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "test.example.com/v1"}
		}, `spec.paramKind.kind: Required value`},
		{"no validations", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.Validations = nil },
			`spec.validations: Required value: validations or auditAnnotations must contain at least one item`},
		{"empty expression", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Expression = "" },
			`spec.validations[0].expression: Required value: expression is not specified`},
		{"expression syntax", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0].Expression = "object.x in [1, 2, "
		},
			`spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>`},
		{"message expression type", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0].MessageExpression = "0 == 0"
		},
			`spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string`},
		{"audit annotation type", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "true"}}
		}, `spec.auditAnnotations[0].valueExpression: Invalid value: "true": must evaluate to one of [string null_type]`},
		{"variable name", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "4ever", Expression: "true"}}
		}, `spec.variables[0].name: Invalid value: "4ever": must be a valid CEL identifier`},
		{"variable type", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "foo", Expression: "114 + '514'"}}
		}, `spec.variables[0].expression: Invalid value: "114 + '514'": compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(int, string)`},
		{"undefined variable", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "foo", Expression: "1"}}
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: "variables.replicas == 2"})
		}, `spec.validations[1].expression: Invalid value: "variables.replicas == 2": compilation failed: ERROR: <input>:1:10: undefined field 'replicas'`},
		{"bad failure policy", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.FailurePolicyType("other"))
		}, `spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"`},
		{"no resource rules", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules = nil
		},
			`spec.matchConstraints.resourceRules: Required value`},
	}
	for _, tc := range cases {
		expectContains(t, tc.name, ValidateValidatingAdmissionPolicy(validatingAdmissionPolicy(tc.mutate)), tc.want)
	}
	// a stored expression that no longer compiles is checked no more when unchanged
	old := validatingAdmissionPolicy(func(*admissionregistrationv1.ValidatingAdmissionPolicy) {})
	expectContains(t, "update", ValidateValidatingAdmissionPolicyUpdate(old.DeepCopy(), old), "")
}

func TestValidateAdmissionPolicyBindings(t *testing.T) {
	binding := func(mutate func(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "binding"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "policy",
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
		mutate(b)
		defaults.SetObjectDefaults_ValidatingAdmissionPolicyBinding(b)
		return b
	}
	expectErrors(t, "valid", ValidateValidatingAdmissionPolicyBinding(binding(func(*admissionregistrationv1.ValidatingAdmissionPolicyBinding) {})), nil)
	// declarative errors: the handwritten "required" messages are replaced
	empty := binding(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
		b.Spec.PolicyName, b.Spec.ValidationActions = "", nil
	})
	expectErrors(t, "required", withDeclarative(t, empty, nil, ValidateValidatingAdmissionPolicyBinding(empty)),
		[]string{`spec.policyName: Required value`, `spec.validationActions: Required value`})
	expectErrors(t, "duplicate action", ValidateValidatingAdmissionPolicyBinding(binding(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
		b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Deny}
	})), []string{`spec.validationActions[1]: Duplicate value: "Deny"`})
	expectErrors(t, "deny and warn", ValidateValidatingAdmissionPolicyBinding(binding(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
		b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Warn}
	})), []string{`spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`})
	expectErrors(t, "param ref", ValidateValidatingAdmissionPolicyBinding(binding(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{}
	})), []string{`spec.paramRef: Required value: one of name or selector must be specified`, `spec.paramRef.parameterNotFoundAction: Required value`})

	mb := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "binding"}}
	expectErrors(t, "mutating binding", ValidateMutatingAdmissionPolicyBinding(mb), []string{`spec.policyName: Required value`})
}

func TestValidateMutatingAdmissionPolicy(t *testing.T) {
	policy := func(mutate func(*admissionregistrationv1.MutatingAdmissionPolicy)) *admissionregistrationv1.MutatingAdmissionPolicy {
		p := &admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "config"},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
				Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"a": "b"}}}`}}},
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
			},
		}
		mutate(p)
		defaults.SetObjectDefaults_MutatingAdmissionPolicy(p)
		return p
	}
	cases := []struct {
		name   string
		mutate func(*admissionregistrationv1.MutatingAdmissionPolicy)
		want   string
	}{
		{"valid", func(*admissionregistrationv1.MutatingAdmissionPolicy) {}, ""},
		{"apply configuration type", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0].ApplyConfiguration.Expression = "1 < 2"
		}, `spec.mutations[0].applyConfiguration.expression: Invalid value: "1 < 2": must evaluate to Object`},
		{"json patch missing expression", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0] = admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{}}
		}, `spec.mutations[0].jsonPatch.expression: Required value`},
		{"delete cannot be mutated", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionregistrationv1.OperationType{"DELETE"}
		}, `spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`},
		{"no reinvocation policy", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "" },
			`spec.reinvocationPolicy: Required value`},
		{"no mutations", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.Mutations = nil },
			`spec.mutations: Required value: mutations must contain at least one item`},
	}
	for _, tc := range cases {
		expectContains(t, tc.name, ValidateMutatingAdmissionPolicy(policy(tc.mutate)), tc.want)
	}
}
