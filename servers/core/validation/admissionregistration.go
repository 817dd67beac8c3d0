package validation

// ValidatingWebhookConfiguration and MutatingWebhookConfiguration validation,
// and the rules shared with the admission policies, ported from kubernetes
// v1.37.2 pkg/apis/admissionregistration/validation/validation.go. The
// policies (and their CEL compilation) are in admissionregistration_policy.go.
// The declarative rules of pkg/apis/admissionregistration/v1/zz_generated.validations.go
// for webhook configurations cover only ObjectMeta (alpha): nothing is enforced.

import (
	"fmt"
	"reflect"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/utils/ptr"
)

func hasAdmissionWildcard(slice []string) bool {
	for _, s := range slice {
		if s == "*" {
			return true
		}
	}
	return false
}

func validateAdmissionResources(resources []string, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(resources) == 0 {
		allErrors = append(allErrors, field.Required(fldPath, ""))
	}
	// x/*
	resourcesWithWildcardSubresoures := sets.String{}
	// */x
	subResourcesWithWildcardResource := sets.String{}
	hasDoubleWildcard := false
	hasSingleWildcard := false
	hasResourceWithoutSubresource := false

	for i, resSub := range resources {
		if resSub == "" {
			allErrors = append(allErrors, field.Required(fldPath.Index(i), ""))
			continue
		}
		if resSub == "*/*" {
			hasDoubleWildcard = true
		}
		if resSub == "*" {
			hasSingleWildcard = true
		}
		parts := strings.SplitN(resSub, "/", 2)
		if len(parts) == 1 {
			hasResourceWithoutSubresource = resSub != "*"
			continue
		}
		res, sub := parts[0], parts[1]
		if _, ok := resourcesWithWildcardSubresoures[res]; ok {
			allErrors = append(allErrors, field.Invalid(fldPath.Index(i), resSub, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, resSub)))
		}
		if _, ok := subResourcesWithWildcardResource[sub]; ok {
			allErrors = append(allErrors, field.Invalid(fldPath.Index(i), resSub, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, resSub)))
		}
		if sub == "*" {
			resourcesWithWildcardSubresoures[res] = struct{}{}
		}
		if res == "*" {
			subResourcesWithWildcardResource[sub] = struct{}{}
		}
	}
	if len(resources) > 1 && hasDoubleWildcard {
		allErrors = append(allErrors, field.Invalid(fldPath, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasSingleWildcard && hasResourceWithoutSubresource {
		allErrors = append(allErrors, field.Invalid(fldPath, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return allErrors
}

var admissionRuleScopes = sets.NewString(
	string(admissionregistrationv1.ClusterScope),
	string(admissionregistrationv1.NamespacedScope),
	string(admissionregistrationv1.AllScopes),
)

func validateAdmissionRule(rule *admissionregistrationv1.Rule, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(rule.APIGroups) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("apiGroups"), ""))
	}
	if len(rule.APIGroups) > 1 && hasAdmissionWildcard(rule.APIGroups) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	// Note: group could be empty, e.g., the legacy "v1" API
	if len(rule.APIVersions) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("apiVersions"), ""))
	}
	if len(rule.APIVersions) > 1 && hasAdmissionWildcard(rule.APIVersions) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("apiVersions"), rule.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, version := range rule.APIVersions {
		if version == "" {
			allErrors = append(allErrors, field.Required(fldPath.Child("apiVersions").Index(i), ""))
		}
	}
	// every caller in v1.37 allows subresources
	allErrors = append(allErrors, validateAdmissionResources(rule.Resources, fldPath.Child("resources"))...)
	if rule.Scope != nil && !admissionRuleScopes.Has(string(*rule.Scope)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("scope"), *rule.Scope, admissionRuleScopes.List()))
	}
	return allErrors
}

// AcceptedAdmissionReviewVersions are the AdmissionReview versions kube-apiserver sends.
var AcceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

func isAcceptedAdmissionReviewVersion(v string) bool {
	for _, version := range AcceptedAdmissionReviewVersions {
		if v == version {
			return true
		}
	}
	return false
}

func validateAdmissionReviewVersions(versions []string, requireRecognizedAdmissionReviewVersion bool, fldPath *field.Path) field.ErrorList {
	allErrors := field.ErrorList{}
	if len(versions) < 1 {
		allErrors = append(allErrors, field.Required(fldPath, fmt.Sprintf("must specify one of %v", strings.Join(AcceptedAdmissionReviewVersions, ", "))))
		return allErrors
	}
	seen := map[string]bool{}
	hasAcceptedVersion := false
	for i, v := range versions {
		if seen[v] {
			allErrors = append(allErrors, field.Invalid(fldPath.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, errString := range utilvalidation.IsDNS1035Label(v) {
			allErrors = append(allErrors, field.Invalid(fldPath.Index(i), v, errString))
		}
		if isAcceptedAdmissionReviewVersion(v) {
			hasAcceptedVersion = true
		}
	}
	if requireRecognizedAdmissionReviewVersion && !hasAcceptedVersion {
		allErrors = append(allErrors, field.Invalid(fldPath, versions,
			fmt.Sprintf("must include at least one of %v", strings.Join(AcceptedAdmissionReviewVersions, ", "))))
	}
	return allErrors
}

type admissionValidationOptions struct {
	ignoreMatchConditions                   bool
	allowParamsInMatchConditions            bool
	requireNoSideEffects                    bool
	requireRecognizedAdmissionReviewVersion bool
	requireUniqueWebhookNames               bool
	allowInvalidLabelValueInSelector        bool
	preexistingExpressions                  preexistingExpressions
}

var createWebhookOptions = admissionValidationOptions{
	requireNoSideEffects:                    true,
	requireRecognizedAdmissionReviewVersion: true,
	requireUniqueWebhookNames:               true,
}

// ValidateValidatingWebhookConfiguration validates a ValidatingWebhookConfiguration on create.
func ValidateValidatingWebhookConfiguration(e *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	errs := validateValidatingWebhookConfiguration(e, createWebhookOptions)
	return append(errs, ValidateStaticSuffix(e.Name, field.NewPath("metadata", "name"))...)
}

// ValidateMutatingWebhookConfiguration validates a MutatingWebhookConfiguration on create.
func ValidateMutatingWebhookConfiguration(e *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	errs := validateMutatingWebhookConfiguration(e, createWebhookOptions)
	return append(errs, ValidateStaticSuffix(e.Name, field.NewPath("metadata", "name"))...)
}

// StaticConfigSuffix ends the names reserved for admission configurations loaded from
// manifests (pkg/apis/admissionregistration/validation/static_suffix.go).
const StaticConfigSuffix = ".static.k8s.io"

// ValidateStaticSuffix rejects names ending with StaticConfigSuffix: the registry strategies of
// all six admissionregistration kinds add it on create, as ManifestBasedAdmissionControlConfig
// (beta, on in v1.37) asks.
func ValidateStaticSuffix(name string, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if strings.HasSuffix(name, StaticConfigSuffix) {
		allErrors = append(allErrors, field.Invalid(fldPath, name,
			fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticConfigSuffix)))
	}
	return allErrors
}

// webhookView is what the validation of a validating and a mutating webhook have in common.
type webhookView struct {
	name                    string
	clientConfig            admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType // mutating only
	mutating                bool
}

func validatingView(h *admissionregistrationv1.ValidatingWebhook) webhookView {
	return webhookView{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector, h.ObjectSelector,
		h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions, nil, false}
}

func mutatingView(h *admissionregistrationv1.MutatingWebhook) webhookView {
	return webhookView{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector, h.ObjectSelector,
		h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions, h.ReinvocationPolicy, true}
}

func validateWebhookConfiguration(meta *metav1.ObjectMeta, hooks []webhookView, opts admissionValidationOptions) field.ErrorList {
	allErrors := genericvalidation.ValidateObjectMeta(meta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	hookNames := sets.NewString()
	for i := range hooks {
		hook := &hooks[i]
		allErrors = append(allErrors, validateWebhook(hook, opts, field.NewPath("webhooks").Index(i))...)
		allErrors = append(allErrors, validateAdmissionReviewVersions(hook.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, field.NewPath("webhooks").Index(i).Child("admissionReviewVersions"))...)
		if opts.requireUniqueWebhookNames && len(hook.name) > 0 {
			if hookNames.Has(hook.name) {
				allErrors = append(allErrors, field.Duplicate(field.NewPath("webhooks").Index(i).Child("name"), hook.name))
			} else {
				hookNames.Insert(hook.name)
			}
		}
	}
	return allErrors
}

func validateValidatingWebhookConfiguration(e *admissionregistrationv1.ValidatingWebhookConfiguration, opts admissionValidationOptions) field.ErrorList {
	hooks := make([]webhookView, len(e.Webhooks))
	for i := range e.Webhooks {
		hooks[i] = validatingView(&e.Webhooks[i])
	}
	return validateWebhookConfiguration(&e.ObjectMeta, hooks, opts)
}

func validateMutatingWebhookConfiguration(e *admissionregistrationv1.MutatingWebhookConfiguration, opts admissionValidationOptions) field.ErrorList {
	hooks := make([]webhookView, len(e.Webhooks))
	for i := range e.Webhooks {
		hooks[i] = mutatingView(&e.Webhooks[i])
	}
	return validateWebhookConfiguration(&e.ObjectMeta, hooks, opts)
}

// validateWebhook is upstream's validateValidatingWebhook and validateMutatingWebhook, which
// differ only in the reinvocationPolicy check.
func validateWebhook(hook *webhookView, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	// hook.Name must be fully qualified
	allErrors = append(allErrors, utilvalidation.IsFullyQualifiedName(fldPath.Child("name"), hook.name)...)
	lsOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector}

	for i, rule := range hook.rules {
		allErrors = append(allErrors, validateAdmissionRuleWithOperations(&rule, fldPath.Child("rules").Index(i))...)
	}
	if hook.failurePolicy != nil && !supportedFailurePolicies.Has(string(*hook.failurePolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("failurePolicy"), *hook.failurePolicy, supportedFailurePolicies.List()))
	}
	if hook.matchPolicy != nil && !supportedMatchPolicies.Has(string(*hook.matchPolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("matchPolicy"), *hook.matchPolicy, supportedMatchPolicies.List()))
	}
	allowedSideEffects := supportedSideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if hook.sideEffects == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowedSideEffects.List(), ", "))))
	}
	if hook.sideEffects != nil && !allowedSideEffects.Has(string(*hook.sideEffects)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("sideEffects"), *hook.sideEffects, allowedSideEffects.List()))
	}
	if hook.timeoutSeconds != nil && (*hook.timeoutSeconds > 30 || *hook.timeoutSeconds < 1) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("timeoutSeconds"), *hook.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	if hook.namespaceSelector != nil {
		allErrors = append(allErrors, metav1validation.ValidateLabelSelector(hook.namespaceSelector, lsOpts, fldPath.Child("namespaceSelector"))...)
	}
	if hook.objectSelector != nil {
		allErrors = append(allErrors, metav1validation.ValidateLabelSelector(hook.objectSelector, lsOpts, fldPath.Child("objectSelector"))...)
	}
	if hook.mutating && hook.reinvocationPolicy != nil && !supportedReinvocationPolicies.Has(string(*hook.reinvocationPolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("reinvocationPolicy"), *hook.reinvocationPolicy, supportedReinvocationPolicies.List()))
	}
	cc := hook.clientConfig
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		allErrors = append(allErrors, field.Required(fldPath.Child("clientConfig"), "exactly one of url or service is required"))
	case cc.URL != nil:
		allErrors = append(allErrors, webhook.ValidateWebhookURL(fldPath.Child("clientConfig").Child("url"), *cc.URL, true)...)
	case cc.Service != nil:
		allErrors = append(allErrors, webhook.ValidateWebhookService(fldPath.Child("clientConfig").Child("service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, ptr.Deref(cc.Service.Port, 0))...)
	}
	if !opts.ignoreMatchConditions {
		allErrors = append(allErrors, validateAdmissionMatchConditions(hook.matchConditions, opts, fldPath.Child("matchConditions"))...)
	}
	return allErrors
}

var supportedFailurePolicies = sets.NewString(string(admissionregistrationv1.Ignore), string(admissionregistrationv1.Fail))

var supportedMatchPolicies = sets.NewString(string(admissionregistrationv1.Exact), string(admissionregistrationv1.Equivalent))

var supportedSideEffectClasses = sets.NewString(
	string(admissionregistrationv1.SideEffectClassUnknown),
	string(admissionregistrationv1.SideEffectClassNone),
	string(admissionregistrationv1.SideEffectClassSome),
	string(admissionregistrationv1.SideEffectClassNoneOnDryRun),
)

var noSideEffectClasses = sets.NewString(
	string(admissionregistrationv1.SideEffectClassNone),
	string(admissionregistrationv1.SideEffectClassNoneOnDryRun),
)

var supportedOperations = sets.NewString(
	string(admissionregistrationv1.OperationAll),
	string(admissionregistrationv1.Create),
	string(admissionregistrationv1.Update),
	string(admissionregistrationv1.Delete),
	string(admissionregistrationv1.Connect),
)

var supportedReinvocationPolicies = sets.NewString(
	string(admissionregistrationv1.NeverReinvocationPolicy),
	string(admissionregistrationv1.IfNeededReinvocationPolicy),
)

func hasAdmissionWildcardOperation(operations []admissionregistrationv1.OperationType) bool {
	for _, o := range operations {
		if o == admissionregistrationv1.OperationAll {
			return true
		}
	}
	return false
}

func validateAdmissionRuleWithOperations(ruleWithOperations *admissionregistrationv1.RuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(ruleWithOperations.Operations) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("operations"), ""))
	}
	if len(ruleWithOperations.Operations) > 1 && hasAdmissionWildcardOperation(ruleWithOperations.Operations) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("operations"), ruleWithOperations.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, operation := range ruleWithOperations.Operations {
		if !supportedOperations.Has(string(operation)) {
			allErrors = append(allErrors, field.NotSupported(fldPath.Child("operations").Index(i), operation, supportedOperations.List()))
		}
	}
	return append(allErrors, validateAdmissionRule(&ruleWithOperations.Rule, fldPath)...)
}

// webhooksTolerate computes the update tolerances: what the stored configuration already has
// stays allowed.
func webhooksTolerate(newHooks, oldHooks []webhookView) admissionValidationOptions {
	opts := admissionValidationOptions{
		ignoreMatchConditions:                   len(newHooks) == len(oldHooks),
		requireNoSideEffects:                    true,
		requireRecognizedAdmissionReviewVersion: true,
		requireUniqueWebhookNames:               true,
		preexistingExpressions:                  newPreexistingExpressions(),
	}
	names := sets.NewString()
	lsOpts := metav1validation.LabelSelectorValidationOptions{}
	for i, hook := range oldHooks {
		if opts.ignoreMatchConditions && !reflect.DeepEqual(newHooks[i].matchConditions, hook.matchConditions) {
			opts.ignoreMatchConditions = false
		}
		if hook.sideEffects == nil || !noSideEffectClasses.Has(string(*hook.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		hasRecognizedVersion := false
		for _, version := range hook.admissionReviewVersions {
			if isAcceptedAdmissionReviewVersion(version) {
				hasRecognizedVersion = true
				break
			}
		}
		if !hasRecognizedVersion && len(hook.admissionReviewVersions) > 0 {
			opts.requireRecognizedAdmissionReviewVersion = false
		}
		if names.Has(hook.name) {
			opts.requireUniqueWebhookNames = false
		}
		names.Insert(hook.name)
		if (hook.namespaceSelector != nil && len(metav1validation.ValidateLabelSelector(hook.namespaceSelector, lsOpts, nil)) > 0) ||
			(hook.objectSelector != nil && len(metav1validation.ValidateLabelSelector(hook.objectSelector, lsOpts, nil)) > 0) {
			opts.allowInvalidLabelValueInSelector = true
		}
		for _, mc := range hook.matchConditions {
			opts.preexistingExpressions.matchConditionExpressions.Insert(mc.Expression)
		}
	}
	return opts
}

// ValidateValidatingWebhookConfigurationUpdate validates an update of a ValidatingWebhookConfiguration.
func ValidateValidatingWebhookConfigurationUpdate(newC, oldC *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	newHooks, oldHooks := make([]webhookView, len(newC.Webhooks)), make([]webhookView, len(oldC.Webhooks))
	for i := range newC.Webhooks {
		newHooks[i] = validatingView(&newC.Webhooks[i])
	}
	for i := range oldC.Webhooks {
		oldHooks[i] = validatingView(&oldC.Webhooks[i])
	}
	return validateWebhookConfiguration(&newC.ObjectMeta, newHooks, webhooksTolerate(newHooks, oldHooks))
}

// ValidateMutatingWebhookConfigurationUpdate validates an update of a MutatingWebhookConfiguration.
func ValidateMutatingWebhookConfigurationUpdate(newC, oldC *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	newHooks, oldHooks := make([]webhookView, len(newC.Webhooks)), make([]webhookView, len(oldC.Webhooks))
	for i := range newC.Webhooks {
		newHooks[i] = mutatingView(&newC.Webhooks[i])
	}
	for i := range oldC.Webhooks {
		oldHooks[i] = mutatingView(&oldC.Webhooks[i])
	}
	return validateWebhookConfiguration(&newC.ObjectMeta, newHooks, webhooksTolerate(newHooks, oldHooks))
}
