package admissionregistration

// Webhook configurations: each webhook names where the apiserver calls it (a URL or a
// Service), which requests it sees, what happens when it fails, and which AdmissionReview
// versions it understands.

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation"
)

type hook = admissionregistrationv1.ValidatingWebhook

var (
	// reviewVersions are the AdmissionReview versions the apiserver can send.
	reviewVersions = []string{"v1", "v1beta1"}
	// Side effects: a new webhook must have none (or none on a dry run), so that dry runs
	// can call it.
	noSideEffects  = []admissionregistrationv1.SideEffectClass{"None", "NoneOnDryRun"}
	anySideEffects = []admissionregistrationv1.SideEffectClass{"None", "NoneOnDryRun", "Some", "Unknown"}
)

// kept is what an update of a webhook configuration may keep of the stored one.
type kept struct {
	sideEffects       []admissionregistrationv1.SideEffectClass
	anyReviewVersions bool // a webhook without a version the apiserver sends
	repeatedNames     bool
	selectors         metavalidation.LabelSelectorValidationOptions
	sameConditions    bool // every webhook's match conditions as stored: not checked again
	expressions       map[string]bool
}

// ValidateValidatingWebhookConfiguration is the rule list of a new configuration.
func ValidateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	return validation.Join(webhooks(&c.ObjectMeta, c.Webhooks, nil, created()), notStatic(c.Name))
}

// ValidateValidatingWebhookConfigurationUpdate is the rule list of an update.
func ValidateValidatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	return webhooks(&c.ObjectMeta, c.Webhooks, nil, keeping(c.Webhooks, old.Webhooks))
}

// ValidateMutatingWebhookConfiguration is the rule list of a new configuration: each webhook
// is checked as a validating one with the same fields, and its reinvocation policy.
func ValidateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	hooks, reinvocation := asValidating(c.Webhooks)
	return validation.Join(webhooks(&c.ObjectMeta, hooks, reinvocation, created()), notStatic(c.Name))
}

// ValidateMutatingWebhookConfigurationUpdate is the rule list of an update.
func ValidateMutatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	hooks, reinvocation := asValidating(c.Webhooks)
	oldHooks, _ := asValidating(old.Webhooks)
	return webhooks(&c.ObjectMeta, hooks, reinvocation, keeping(hooks, oldHooks))
}

func asValidating(ms []admissionregistrationv1.MutatingWebhook) ([]hook, []*admissionregistrationv1.ReinvocationPolicyType) {
	hooks := make([]hook, len(ms))
	reinvocation := make([]*admissionregistrationv1.ReinvocationPolicyType, len(ms))
	for i, m := range ms {
		hooks[i] = hook{Name: m.Name, ClientConfig: m.ClientConfig, Rules: m.Rules, FailurePolicy: m.FailurePolicy,
			MatchPolicy: m.MatchPolicy, NamespaceSelector: m.NamespaceSelector, ObjectSelector: m.ObjectSelector,
			SideEffects: m.SideEffects, TimeoutSeconds: m.TimeoutSeconds, AdmissionReviewVersions: m.AdmissionReviewVersions,
			MatchConditions: m.MatchConditions}
		reinvocation[i] = m.ReinvocationPolicy
	}
	return hooks, reinvocation
}

// created: a new configuration keeps nothing.
func created() kept { return kept{sideEffects: noSideEffects} }

// keeping: what the stored webhooks already have stays allowed.
func keeping(hooks, old []hook) kept {
	s := kept{sideEffects: noSideEffects, sameConditions: len(hooks) == len(old), expressions: map[string]bool{}}
	names := map[string]bool{}
	for i, h := range old {
		s.sameConditions = s.sameConditions && equality.Semantic.DeepEqual(hooks[i].MatchConditions, h.MatchConditions)
		if h.SideEffects == nil || !slices.Contains(noSideEffects, *h.SideEffects) {
			s.sideEffects = anySideEffects
		}
		if len(h.AdmissionReviewVersions) > 0 && !slices.ContainsFunc(h.AdmissionReviewVersions, known) {
			s.anyReviewVersions = true
		}
		s.repeatedNames = s.repeatedNames || names[h.Name]
		names[h.Name] = true
		for _, sel := range []*metav1.LabelSelector{h.NamespaceSelector, h.ObjectSelector} {
			if sel != nil && len(validation.Selector(nil, sel)) > 0 {
				s.selectors.AllowInvalidLabelValueInSelector = true
			}
		}
		for _, mc := range h.MatchConditions {
			s.expressions[mc.Expression] = true
		}
	}
	return s
}

func known(v string) bool { return slices.Contains(reviewVersions, v) }

// webhooks is the rule list of a configuration: its metadata, then each webhook.
func webhooks(m *metav1.ObjectMeta, hooks []hook, reinvocation []*admissionregistrationv1.ReinvocationPolicyType, s kept) field.ErrorList {
	errs := meta(m)
	names := map[string]bool{}
	for i := range hooks {
		p := field.NewPath("webhooks").Index(i)
		h := &hooks[i]
		errs = append(errs, webhookRules(p, h, s)...)
		if reinvocation != nil {
			errs = append(errs, validation.IfSet(p.Child("reinvocationPolicy"), reinvocation[i], func(p *field.Path, r admissionregistrationv1.ReinvocationPolicyType) field.ErrorList {
				return validation.Supported(p, r, reinvocations...)
			})...)
		}
		errs = append(errs, clientConfig(p.Child("clientConfig"), &h.ClientConfig)...)
		if !s.sameConditions {
			errs = append(errs, matchConditions(p.Child("matchConditions"), h.MatchConditions, false, s.expressions)...)
		}
		errs = append(errs, admissionReviewVersions(p.Child("admissionReviewVersions"), h.AdmissionReviewVersions, s.anyReviewVersions)...)
		if h.Name != "" && !s.repeatedNames && names[h.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), h.Name))
		}
		names[h.Name] = true
	}
	return errs
}

// webhookRules: a fully qualified name, the requests it sees, the enums, a timeout the
// apiserver will wait, and well-formed selectors.
func webhookRules(p *field.Path, h *hook, s kept) field.ErrorList {
	selector := selectorCheck(s.selectors)
	return validation.Join(
		utilvalidation.IsFullyQualifiedName(p.Child("name"), h.Name),
		validation.Each(p.Child("rules"), h.Rules, func(p *field.Path, r *admissionregistrationv1.RuleWithOperations) field.ErrorList {
			return rule(p, r, operations)
		}),
		validation.IfSet(p.Child("failurePolicy"), h.FailurePolicy, func(p *field.Path, f admissionregistrationv1.FailurePolicyType) field.ErrorList {
			return validation.Supported(p, f, failurePolicies...)
		}),
		validation.IfSet(p.Child("matchPolicy"), h.MatchPolicy, func(p *field.Path, m admissionregistrationv1.MatchPolicyType) field.ErrorList {
			return validation.Supported(p, m, matchPolicies...)
		}),
		sideEffects(p.Child("sideEffects"), h.SideEffects, s.sideEffects),
		validation.IfSet(p.Child("timeoutSeconds"), h.TimeoutSeconds, func(p *field.Path, t int32) field.ErrorList {
			return validation.When(t < 1 || t > 30, field.Invalid(p, t, "the timeout value must be between 1 and 30 seconds"))
		}),
		validation.IfSet(p.Child("namespaceSelector"), h.NamespaceSelector, selector),
		validation.IfSet(p.Child("objectSelector"), h.ObjectSelector, selector),
	)
}

func sideEffects(p *field.Path, se *admissionregistrationv1.SideEffectClass, allowed []admissionregistrationv1.SideEffectClass) field.ErrorList {
	if se == nil {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		return field.ErrorList{field.Required(p, "must specify one of "+strings.Join(names, ", "))}
	}
	return validation.Supported(p, *se, allowed...)
}

// clientConfig: an https URL without user, query or fragment, or a Service (and path) in
// the cluster.
func clientConfig(p *field.Path, cc *admissionregistrationv1.WebhookClientConfig) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return webhook.ValidateWebhookURL(p.Child("url"), *cc.URL, true)
	}
	svc := cc.Service
	// Name and namespace in this order, as kube-apiserver passes them: a missing name is
	// reported on service.namespace, and the other way round.
	return webhook.ValidateWebhookService(p.Child("service"), svc.Name, svc.Namespace, svc.Path, ptr.Deref(svc.Port, 0))
}

// admissionReviewVersions: versions the webhook understands, in order of preference,
// without repeats, and (unless the stored configuration had none) one the apiserver sends.
func admissionReviewVersions(p *field.Path, versions []string, anyVersions bool) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+strings.Join(reviewVersions, ", "))}
	}
	var errs field.ErrorList
	for i, v := range versions {
		if slices.Contains(versions[:i], v) {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		errs = append(errs, messages(p.Index(i), v, utilvalidation.IsDNS1035Label(v))...)
	}
	return append(errs, validation.When(!anyVersions && !slices.ContainsFunc(versions, known),
		field.Invalid(p, versions, "must include at least one of "+strings.Join(reviewVersions, ", ")))...)
}

// matchConditions: at most 64 named CEL conditions that decide, request by request, whether
// the webhook or policy is called. params are in scope for a policy with a paramKind.
func matchConditions(p *field.Path, conditions []admissionregistrationv1.MatchCondition, params bool, stored map[string]bool) field.ErrorList {
	if len(conditions) == 0 {
		return nil
	}
	x := newExpressions(false, stored)
	errs := validation.When(len(conditions) > 64, field.TooMany(p, len(conditions), 64))
	names := map[string]bool{}
	for i, mc := range conditions {
		p := p.Index(i)
		if expr := strings.TrimSpace(mc.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("expression"), ""))
		} else {
			errs = append(errs, x.compile(p.Child("expression"), &matchconditions.MatchCondition{Expression: expr}, expr,
				plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true})...)
		}
		if mc.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			errs = append(errs, validation.QualifiedName(p.Child("name"), mc.Name)...)
			errs = append(errs, validation.When(names[mc.Name], field.Duplicate(p.Child("name"), mc.Name))...)
			names[mc.Name] = true
		}
	}
	return errs
}
