package validation

// ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings,
// ported from kubernetes v1.37.2
// pkg/apis/admissionregistration/validation/validation.go. CEL expressions are
// compiled with k8s.io/apiserver's admission CEL compiler (plugin/cel, with the
// expression accessors of plugin/policy/{validating,mutating/patch} and
// plugin/webhook/matchconditions), as upstream does: an expression that does not
// compile is an Invalid error with the compiler's message. The errors marked
// covered are reported by the generated declarative rules (+k8s:beta: binding
// policyName and validationActions required).

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	validatingadmissionpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/util/jsonpath"
)

const (
	maxAuditAnnotations = 20
	// 5kb limit for an audit annotation's value expression
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

var supportedValidationPolicyReason = sets.NewString(
	string(metav1.StatusReasonForbidden),
	string(metav1.StatusReasonInvalid),
	string(metav1.StatusReasonRequestEntityTooLarge),
)

var supportedPatchType = sets.NewString(
	string(admissionregistrationv1.PatchTypeApplyConfiguration),
	string(admissionregistrationv1.PatchTypeJSONPatch),
)

// MutatingAdmissionPolicy does not support DELETE.
var supportedMutatingOperations = sets.NewString(
	string(admissionregistrationv1.OperationAll),
	string(admissionregistrationv1.Create),
	string(admissionregistrationv1.Update),
	string(admissionregistrationv1.Connect),
)

// preexistingExpressions are the expressions the stored object already has: they compile in
// the environment for stored expressions (which tolerates newer CEL libraries).
type preexistingExpressions struct {
	matchConditionExpressions        sets.Set[string]
	validationExpressions            sets.Set[string]
	validationMessageExpressions     sets.Set[string]
	auditAnnotationValuesExpressions sets.Set[string]
	applyConfigurationExpressions    sets.Set[string]
	jsonPatchExpressions             sets.Set[string]
}

func newPreexistingExpressions() preexistingExpressions {
	return preexistingExpressions{
		matchConditionExpressions:        sets.New[string](),
		validationExpressions:            sets.New[string](),
		validationMessageExpressions:     sets.New[string](),
		auditAnnotationValuesExpressions: sets.New[string](),
		applyConfigurationExpressions:    sets.New[string](),
		jsonPatchExpressions:             sets.New[string](),
	}
}

func (p preexistingExpressions) has(set func(preexistingExpressions) sets.Set[string], expression string) environment.Type {
	if s := set(p); s != nil && s.Has(expression) {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// ValidateValidatingAdmissionPolicy validates a ValidatingAdmissionPolicy on create.
func ValidateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	errs := validateValidatingAdmissionPolicy(p, admissionValidationOptions{})
	return append(errs, ValidateStaticSuffix(p.Name, field.NewPath("metadata", "name"))...)
}

// ValidateValidatingAdmissionPolicyUpdate validates an update of a ValidatingAdmissionPolicy.
func ValidateValidatingAdmissionPolicyUpdate(newC, oldC *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	pre := newPreexistingExpressions()
	for _, mc := range oldC.Spec.MatchConditions {
		pre.matchConditionExpressions.Insert(mc.Expression)
	}
	for _, v := range oldC.Spec.Validations {
		pre.validationExpressions.Insert(v.Expression)
		if len(v.MessageExpression) > 0 {
			pre.validationMessageExpressions.Insert(v.MessageExpression)
		}
	}
	for _, a := range oldC.Spec.AuditAnnotations {
		pre.auditAnnotationValuesExpressions.Insert(a.ValueExpression)
	}
	return validateValidatingAdmissionPolicy(newC, admissionValidationOptions{
		ignoreMatchConditions: equality.Semantic.DeepEqual(newC.Spec.ParamKind, oldC.Spec.ParamKind) &&
			equality.Semantic.DeepEqual(newC.Spec.MatchConditions, oldC.Spec.MatchConditions),
		preexistingExpressions: pre,
	})
}

// ValidateValidatingAdmissionPolicyStatusUpdate validates an update of /status.
func ValidateValidatingAdmissionPolicyStatusUpdate(newC, oldC *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	var allErrors field.ErrorList
	fldPath := field.NewPath("status")
	if tc := newC.Status.TypeChecking; tc != nil {
		for i, warning := range tc.ExpressionWarnings {
			wPath := fldPath.Child("typeChecking", "expressionWarnings").Index(i)
			if warning.Warning == "" {
				allErrors = append(allErrors, field.Required(wPath.Child("warning"), ""))
			}
			allErrors = append(allErrors, validateExpressionWarningFieldRef(warning.FieldRef, wPath.Child("fieldRef"))...)
		}
	}
	return append(allErrors, metav1validation.ValidateConditions(newC.Status.Conditions, fldPath.Child("conditions"))...)
}

func validateExpressionWarningFieldRef(fieldRef string, fldPath *field.Path) field.ErrorList {
	fieldRef = strings.TrimSpace(fieldRef)
	if fieldRef == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	jsonPath := jsonpath.New("spec")
	if err := jsonPath.Parse(fmt.Sprintf("{%s}", fieldRef)); err != nil {
		return field.ErrorList{field.Invalid(fldPath, fieldRef, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}

func validateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy, opts admissionValidationOptions) field.ErrorList {
	allErrors := genericvalidation.ValidateObjectMeta(&p.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrors, validateValidatingAdmissionPolicySpec(p.ObjectMeta, &p.Spec, opts, field.NewPath("spec"))...)
}

func validateValidatingAdmissionPolicySpec(meta metav1.ObjectMeta, spec *admissionregistrationv1.ValidatingAdmissionPolicySpec, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	var compiler plugincel.Compiler // composition compiler is stateful, create one lazily per policy
	getCompiler := func() plugincel.Compiler {
		if compiler == nil {
			compiler = createAdmissionCELCompiler(len(spec.Variables) > 0)
		}
		return compiler
	}
	if spec.FailurePolicy == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("failurePolicy"), ""))
	} else if !supportedFailurePolicies.Has(string(*spec.FailurePolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("failurePolicy"), *spec.FailurePolicy, supportedFailurePolicies.List()))
	}
	if spec.ParamKind != nil {
		opts.allowParamsInMatchConditions = true
		allErrors = append(allErrors, validateParamKind(*spec.ParamKind, fldPath.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("matchConstraints"), ""))
	} else {
		allErrors = append(allErrors, validateAdmissionMatchResources(spec.MatchConstraints, fldPath.Child("matchConstraints"))...)
		// at least one resourceRule must be defined to provide type information
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			allErrors = append(allErrors, field.Required(fldPath.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	if !opts.ignoreMatchConditions {
		allErrors = append(allErrors, validateAdmissionMatchConditions(spec.MatchConditions, opts, fldPath.Child("matchConditions"))...)
	}
	for i, variable := range spec.Variables {
		allErrors = append(allErrors, validateAdmissionVariable(getCompiler(), &variable, spec.ParamKind != nil, opts, fldPath.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("validations"), "validations or auditAnnotations must contain at least one item"))
		allErrors = append(allErrors, field.Required(fldPath.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"))
		return allErrors
	}
	for i, validation := range spec.Validations {
		allErrors = append(allErrors, validateAdmissionValidation(getCompiler(), &validation, spec.ParamKind != nil, opts, fldPath.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations != nil {
		keys := sets.NewString()
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		for i, auditAnnotation := range spec.AuditAnnotations {
			allErrors = append(allErrors, validateAuditAnnotation(getCompiler(), meta, &auditAnnotation, spec.ParamKind != nil, opts, fldPath.Child("auditAnnotations").Index(i))...)
			if keys.Has(auditAnnotation.Key) {
				allErrors = append(allErrors, field.Duplicate(fldPath.Child("auditAnnotations").Index(i).Child("key"), auditAnnotation.Key))
			}
			keys.Insert(auditAnnotation.Key)
		}
	}
	return allErrors
}

func validateParamKind(gvk admissionregistrationv1.ParamKind, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(gvk.APIVersion) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("apiVersion"), ""))
	} else if group, version, err := parseParamKindGroupVersion(gvk.APIVersion); err != nil {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("apiVersion"), gvk.APIVersion, err.Error()))
	} else {
		// this matches the APIService group field validation
		if len(group) > 0 {
			if errs := utilvalidation.IsDNS1123Subdomain(group); len(errs) > 0 {
				allErrors = append(allErrors, field.Invalid(fldPath.Child("apiVersion"), group, strings.Join(errs, ",")))
			}
		}
		// this matches the APIService version field validation
		if len(version) == 0 {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("apiVersion"), gvk.APIVersion, "version must be specified"))
		} else if errs := utilvalidation.IsDNS1035Label(version); len(errs) > 0 {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("apiVersion"), version, strings.Join(errs, ",")))
		}
	}
	if len(gvk.Kind) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("kind"), ""))
	} else if errs := utilvalidation.IsDNS1035Label(strings.ToLower(gvk.Kind)); len(errs) > 0 {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("kind"), gvk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	return allErrors
}

// parseGroupVersion turns "group/version" into its parts.
func parseParamKindGroupVersion(gv string) (string, string, error) {
	if len(gv) == 0 || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		i := strings.Index(gv, "/")
		return gv[:i], gv[i+1:], nil
	default:
		return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
	}
}

func validateAdmissionMatchResources(mc *admissionregistrationv1.MatchResources, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if mc == nil {
		return allErrors
	}
	if mc.MatchPolicy == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("matchPolicy"), ""))
	} else if !supportedMatchPolicies.Has(string(*mc.MatchPolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("matchPolicy"), *mc.MatchPolicy, supportedMatchPolicies.List()))
	}
	// selectors are validated strictly: this type was released after issue #99139 was resolved
	if mc.NamespaceSelector == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("namespaceSelector"), ""))
	} else {
		allErrors = append(allErrors, metav1validation.ValidateLabelSelector(mc.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("namespaceSelector"))...)
	}
	if mc.ObjectSelector == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("objectSelector"), ""))
	} else {
		allErrors = append(allErrors, metav1validation.ValidateLabelSelector(mc.ObjectSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("objectSelector"))...)
	}
	for i, rule := range mc.ResourceRules {
		allErrors = append(allErrors, validateNamedRuleWithOperations(&rule, fldPath.Child("resourceRules").Index(i))...)
	}
	for i, rule := range mc.ExcludeResourceRules {
		allErrors = append(allErrors, validateNamedRuleWithOperations(&rule, fldPath.Child("excludeResourceRules").Index(i))...)
	}
	return allErrors
}

var validValidationActions = sets.NewString(
	string(admissionregistrationv1.Deny),
	string(admissionregistrationv1.Warn),
	string(admissionregistrationv1.Audit),
)

func validateValidationActions(va []admissionregistrationv1.ValidationAction, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	actions := sets.NewString()
	for i, action := range va {
		if !validValidationActions.Has(string(action)) {
			allErrors = append(allErrors, field.NotSupported(fldPath.Index(i), action, validValidationActions.List()))
		}
		if actions.Has(string(action)) {
			allErrors = append(allErrors, field.Duplicate(fldPath.Index(i), action))
		}
		actions.Insert(string(action))
	}
	if actions.Has(string(admissionregistrationv1.Deny)) && actions.Has(string(admissionregistrationv1.Warn)) {
		allErrors = append(allErrors, field.Invalid(fldPath, va, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(actions) == 0 {
		allErrors = append(allErrors, field.Required(fldPath, "at least one validation action is required").MarkCoveredByDeclarative())
	}
	return allErrors
}

func validateNamedRuleWithOperations(n *admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	resourceNames := sets.NewString()
	for i, rName := range n.ResourceNames {
		for _, msg := range content.IsPathSegmentName(rName) {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("resourceNames").Index(i), rName, msg))
		}
		if resourceNames.Has(rName) {
			allErrors = append(allErrors, field.Duplicate(fldPath.Child("resourceNames").Index(i), rName))
		} else {
			resourceNames.Insert(rName)
		}
	}
	return append(allErrors, validateAdmissionRuleWithOperations(&n.RuleWithOperations, fldPath)...)
}

func validateAdmissionMatchConditions(m []admissionregistrationv1.MatchCondition, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	conditionNames := sets.NewString()
	if len(m) > 64 {
		allErrors = append(allErrors, field.TooMany(fldPath, len(m), 64))
	}
	for i, matchCondition := range m {
		allErrors = append(allErrors, validateAdmissionMatchCondition(&matchCondition, opts, fldPath.Index(i))...)
		if len(matchCondition.Name) > 0 {
			if conditionNames.Has(matchCondition.Name) {
				allErrors = append(allErrors, field.Duplicate(fldPath.Index(i).Child("name"), matchCondition.Name))
			} else {
				conditionNames.Insert(matchCondition.Name)
			}
		}
	}
	return allErrors
}

func validateAdmissionMatchCondition(v *admissionregistrationv1.MatchCondition, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	trimmedExpression := strings.TrimSpace(v.Expression)
	if len(trimmedExpression) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("expression"), ""))
	} else {
		envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.matchConditionExpressions }, trimmedExpression)
		allErrors = append(allErrors, validateAdmissionCELCondition(getStrictStatelessCELCompiler(), &matchconditions.MatchCondition{Expression: trimmedExpression},
			plugincel.OptionalVariableDeclarations{HasParams: opts.allowParamsInMatchConditions, HasAuthorizer: true}, envType, fldPath.Child("expression"))...)
	}
	if len(v.Name) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("name"), ""))
	} else {
		allErrors = append(allErrors, ValidateQualifiedName(v.Name, fldPath.Child("name"))...)
	}
	return allErrors
}

func validateAdmissionVariable(compiler plugincel.Compiler, v *admissionregistrationv1.Variable, hasParams bool, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(v.Name) == 0 || strings.TrimSpace(v.Name) == "" {
		allErrors = append(allErrors, field.Required(fldPath.Child("name"), "name is not specified"))
	} else if !isCELIdentifier(v.Name) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if len(v.Expression) == 0 || strings.TrimSpace(v.Expression) == "" {
		allErrors = append(allErrors, field.Required(fldPath.Child("expression"), "expression is not specified"))
		return allErrors
	}
	composited, ok := compiler.(*plugincel.CompositedCompiler)
	if !ok {
		return append(allErrors, field.InternalError(fldPath, fmt.Errorf("variable composition is not allowed")))
	}
	envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.validationExpressions }, v.Expression)
	variable := &validatingadmissionpolicy.Variable{Name: v.Name, Expression: v.Expression}
	result := composited.CompileAndStoreVariable(variable, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envType)
	if result.Error != nil {
		allErrors = append(allErrors, convertCELErrorToValidationError(fldPath.Child("expression"), variable, result.Error))
	}
	return allErrors
}

var newlineMatcher = regexp.MustCompile(`[\n\r]+`) // valid newline chars in CEL grammar

func validateAdmissionValidation(compiler plugincel.Compiler, v *admissionregistrationv1.Validation, hasParams bool, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	trimmedExpression := strings.TrimSpace(v.Expression)
	trimmedMsg := strings.TrimSpace(v.Message)
	trimmedMessageExpression := strings.TrimSpace(v.MessageExpression)
	if len(trimmedExpression) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("expression"), "expression is not specified"))
	} else {
		envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.validationExpressions }, v.Expression)
		allErrors = append(allErrors, validateAdmissionCELCondition(compiler, &validatingadmissionpolicy.ValidationCondition{Expression: v.Expression},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envType, fldPath.Child("expression"))...)
	}
	if len(v.MessageExpression) > 0 && len(trimmedMessageExpression) == 0 {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if len(trimmedMessageExpression) != 0 {
		// upstream passes the untrimmed expression so that the compiler shows the right column,
		// and params only where match conditions may use them
		envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.validationMessageExpressions }, v.MessageExpression)
		allErrors = append(allErrors, validateAdmissionCELCondition(compiler, &validatingadmissionpolicy.MessageExpressionCondition{MessageExpression: v.MessageExpression},
			plugincel.OptionalVariableDeclarations{HasParams: opts.allowParamsInMatchConditions, HasAuthorizer: false}, envType, fldPath.Child("messageExpression"))...)
	}
	if len(v.Message) > 0 && len(trimmedMsg) == 0 {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlineMatcher.MatchString(trimmedMsg) {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !supportedValidationPolicyReason.Has(string(*v.Reason)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("reason"), *v.Reason, supportedValidationPolicyReason.List()))
	}
	return allErrors
}

func validateAdmissionCELCondition(compiler plugincel.Compiler, expression plugincel.ExpressionAccessor, variables plugincel.OptionalVariableDeclarations, envType environment.Type, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	result := compiler.CompileCELExpression(expression, variables, envType)
	if result.Error != nil {
		allErrors = append(allErrors, convertCELErrorToValidationError(fldPath, expression, result.Error))
	}
	return allErrors
}

func convertCELErrorToValidationError(fldPath *field.Path, expression plugincel.ExpressionAccessor, err error) *field.Error {
	if celErr, ok := err.(*cel.Error); ok {
		switch celErr.Type {
		case cel.ErrorTypeRequired:
			return field.Required(fldPath, celErr.Detail)
		case cel.ErrorTypeInvalid:
			return field.Invalid(fldPath, expression.GetExpression(), celErr.Detail)
		case cel.ErrorTypeInternal:
			return field.InternalError(fldPath, celErr)
		}
	}
	return field.InternalError(fldPath, fmt.Errorf("unsupported error type: %w", err))
}

func validateAuditAnnotation(compiler plugincel.Compiler, meta metav1.ObjectMeta, v *admissionregistrationv1.AuditAnnotation, hasParams bool, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(meta.GetName()) != 0 {
		allErrors = append(allErrors, ValidateQualifiedName(meta.GetName()+"/"+v.Key, fldPath.Child("key"))...)
	} else {
		allErrors = append(allErrors, field.Invalid(fldPath.Child("key"), v.Key, "requires metadata.name be non-empty"))
	}
	trimmedValueExpression := strings.TrimSpace(v.ValueExpression)
	switch {
	case len(trimmedValueExpression) == 0:
		allErrors = append(allErrors, field.Required(fldPath.Child("valueExpression"), "valueExpression is not specified"))
	case len(trimmedValueExpression) > maxAuditAnnotationValueExpressionLength:
		allErrors = append(allErrors, field.Required(fldPath.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	default:
		envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.auditAnnotationValuesExpressions }, v.ValueExpression)
		result := compiler.CompileCELExpression(&validatingadmissionpolicy.AuditAnnotationCondition{ValueExpression: trimmedValueExpression},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envType)
		if result.Error != nil {
			switch result.Error.Type {
			case cel.ErrorTypeRequired:
				allErrors = append(allErrors, field.Required(fldPath.Child("valueExpression"), result.Error.Detail))
			case cel.ErrorTypeInvalid:
				allErrors = append(allErrors, field.Invalid(fldPath.Child("valueExpression"), v.ValueExpression, result.Error.Detail))
			default:
				allErrors = append(allErrors, field.InternalError(fldPath.Child("valueExpression"), result.Error))
			}
		}
	}
	return allErrors
}

// ValidateValidatingAdmissionPolicyBinding validates a ValidatingAdmissionPolicyBinding on create.
func ValidateValidatingAdmissionPolicyBinding(pb *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return append(validateValidatingAdmissionPolicyBinding(pb), ValidateStaticSuffix(pb.Name, field.NewPath("metadata", "name"))...)
}

// ValidateValidatingAdmissionPolicyBindingUpdate validates an update of a binding.
func ValidateValidatingAdmissionPolicyBindingUpdate(newC, oldC *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return validateValidatingAdmissionPolicyBinding(newC)
}

func validateValidatingAdmissionPolicyBinding(pb *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	allErrors := genericvalidation.ValidateObjectMeta(&pb.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	fldPath := field.NewPath("spec")
	spec := &pb.Spec
	if len(spec.PolicyName) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("policyName"), "").MarkCoveredByDeclarative())
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("policyName"), spec.PolicyName, msg))
		}
	}
	allErrors = append(allErrors, validateAdmissionParamRef(spec.ParamRef, fldPath.Child("paramRef"))...)
	allErrors = append(allErrors, validateAdmissionMatchResources(spec.MatchResources, fldPath.Child("matchResources"))...)
	return append(allErrors, validateValidationActions(spec.ValidationActions, fldPath.Child("validationActions"))...)
}

func validateAdmissionParamRef(pr *admissionregistrationv1.ParamRef, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if pr == nil {
		return allErrors
	}
	if len(pr.Name) > 0 {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			allErrors = append(allErrors, field.Forbidden(fldPath.Child("name"), `name and selector are mutually exclusive`))
		}
	}
	if pr.Selector != nil {
		allErrors = append(allErrors, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
		if len(pr.Name) > 0 {
			allErrors = append(allErrors, field.Forbidden(fldPath.Child("selector"), `name and selector are mutually exclusive`))
		}
	}
	if len(pr.Name) == 0 && pr.Selector == nil {
		allErrors = append(allErrors, field.Required(fldPath, `one of name or selector must be specified`))
	}
	if pr.ParameterNotFoundAction == nil || len(*pr.ParameterNotFoundAction) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("parameterNotFoundAction"), ""))
	} else if *pr.ParameterNotFoundAction != admissionregistrationv1.DenyAction && *pr.ParameterNotFoundAction != admissionregistrationv1.AllowAction {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("parameterNotFoundAction"), pr.ParameterNotFoundAction, []string{string(admissionregistrationv1.DenyAction), string(admissionregistrationv1.AllowAction)}))
	}
	return allErrors
}

// The strict stateless compiler is for expressions without variable composition (match
// conditions); it enforces the strict cost limits.
var getStrictStatelessCELCompiler = sync.OnceValue(func() plugincel.Compiler {
	return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

func createAdmissionCELCompiler(allowComposition bool) plugincel.Compiler {
	if !allowComposition {
		return getStrictStatelessCELCompiler()
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		// should never happen, but cannot panic either.
		utilruntime.HandleError(err)
		return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	}
	return compiler
}

var celIdentRegex = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
var celReserved = sets.NewString("true", "false", "null", "in",
	"as", "break", "const", "continue", "else",
	"for", "function", "if", "import", "let",
	"loop", "package", "namespace", "return",
	"var", "void", "while")

func isCELIdentifier(name string) bool {
	return celIdentRegex.MatchString(name) && !celReserved.Has(name)
}

// ValidateMutatingAdmissionPolicy validates a MutatingAdmissionPolicy on create.
func ValidateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	errs := validateMutatingAdmissionPolicy(p, admissionValidationOptions{})
	return append(errs, ValidateStaticSuffix(p.Name, field.NewPath("metadata", "name"))...)
}

// ValidateMutatingAdmissionPolicyUpdate validates an update of a MutatingAdmissionPolicy.
func ValidateMutatingAdmissionPolicyUpdate(newC, oldC *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	pre := newPreexistingExpressions()
	for _, mc := range oldC.Spec.MatchConditions {
		pre.matchConditionExpressions.Insert(mc.Expression)
	}
	for _, m := range oldC.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			pre.applyConfigurationExpressions.Insert(m.ApplyConfiguration.Expression)
		}
		if m.JSONPatch != nil {
			pre.jsonPatchExpressions.Insert(m.JSONPatch.Expression)
		}
	}
	return validateMutatingAdmissionPolicy(newC, admissionValidationOptions{
		ignoreMatchConditions: equality.Semantic.DeepEqual(newC.Spec.ParamKind, oldC.Spec.ParamKind) &&
			equality.Semantic.DeepEqual(newC.Spec.MatchConditions, oldC.Spec.MatchConditions),
		preexistingExpressions: pre,
	})
}

func validateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, opts admissionValidationOptions) field.ErrorList {
	allErrors := genericvalidation.ValidateObjectMeta(&p.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrors, validateMutatingAdmissionPolicySpec(&p.Spec, opts, field.NewPath("spec"))...)
}

func validateMutatingAdmissionPolicySpec(spec *admissionregistrationv1.MutatingAdmissionPolicySpec, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	compiler := createAdmissionCELCompiler(true)
	if spec.FailurePolicy == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("failurePolicy"), ""))
	} else if !supportedFailurePolicies.Has(string(*spec.FailurePolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("failurePolicy"), *spec.FailurePolicy, supportedFailurePolicies.List()))
	}
	if spec.ParamKind != nil {
		opts.allowParamsInMatchConditions = true
		allErrors = append(allErrors, validateParamKind(*spec.ParamKind, fldPath.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		allErrors = append(allErrors, field.Required(fldPath.Child("matchConstraints"), ""))
	} else {
		allErrors = append(allErrors, validateAdmissionMatchResources(spec.MatchConstraints, fldPath.Child("matchConstraints"))...)
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			allErrors = append(allErrors, field.Required(fldPath.Child("matchConstraints", "resourceRules"), ""))
		}
		allErrors = append(allErrors, validateMutatingOperations(spec.MatchConstraints.ResourceRules, fldPath.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	if !opts.ignoreMatchConditions {
		allErrors = append(allErrors, validateAdmissionMatchConditions(spec.MatchConditions, opts, fldPath.Child("matchConditions"))...)
	}
	for i, variable := range spec.Variables {
		allErrors = append(allErrors, validateAdmissionVariable(compiler, &variable, spec.ParamKind != nil, opts, fldPath.Child("variables").Index(i))...)
	}
	if len(spec.Mutations) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("mutations"), "mutations must contain at least one item"))
	} else {
		for i, mutation := range spec.Mutations {
			allErrors = append(allErrors, validateAdmissionMutation(compiler, &mutation, spec.ParamKind != nil, opts, fldPath.Child("mutations").Index(i))...)
		}
	}
	if len(spec.ReinvocationPolicy) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("reinvocationPolicy"), ""))
	} else if !supportedReinvocationPolicies.Has(string(spec.ReinvocationPolicy)) {
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocationPolicies.List()))
	}
	return allErrors
}

// validateMutatingOperations: it is only possible to mutate create and update requests.
func validateMutatingOperations(rules []admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	for _, rule := range rules {
		for _, op := range rule.Operations {
			if !supportedMutatingOperations.Has(string(op)) {
				allErrors = append(allErrors, field.NotSupported(fldPath, op, supportedMutatingOperations.List()))
			}
		}
	}
	return allErrors
}

func validateAdmissionMutation(compiler plugincel.Compiler, m *admissionregistrationv1.Mutation, hasParams bool, opts admissionValidationOptions, fldPath *field.Path) (allErrors field.ErrorList) {
	if len(m.PatchType) == 0 {
		return append(allErrors, field.Required(fldPath.Child("patchType"), ""))
	}
	switch m.PatchType {
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			allErrors = append(allErrors, field.Required(fldPath.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			// upstream looks JSON patch expressions up among the stored apply configurations
			allErrors = append(allErrors, validatePatchExpression(compiler, &patch.JSONPatchCondition{Expression: strings.TrimSpace(m.JSONPatch.Expression)},
				m.JSONPatch.Expression, hasParams, opts, fldPath.Child("jsonPatch"))...)
		}
		if m.ApplyConfiguration != nil {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			allErrors = append(allErrors, field.Required(fldPath.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			allErrors = append(allErrors, validatePatchExpression(compiler, &patch.ApplyConfigurationCondition{Expression: strings.TrimSpace(m.ApplyConfiguration.Expression)},
				m.ApplyConfiguration.Expression, hasParams, opts, fldPath.Child("applyConfiguration"))...)
		}
		if m.JSONPatch != nil {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		allErrors = append(allErrors, field.NotSupported(fldPath.Child("patchType"), m.PatchType, supportedPatchType.List()))
	}
	return allErrors
}

// validatePatchExpression is upstream's validateApplyConfiguration and validateJSONPatch.
func validatePatchExpression(compiler plugincel.Compiler, accessor plugincel.ExpressionAccessor, expression string, hasParams bool, opts admissionValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrors field.ErrorList
	if len(accessor.GetExpression()) == 0 {
		return append(allErrors, field.Required(fldPath.Child("expression"), ""))
	}
	envType := opts.preexistingExpressions.has(func(p preexistingExpressions) sets.Set[string] { return p.applyConfigurationExpressions }, expression)
	result := compiler.CompileCELExpression(accessor, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true, HasPatchTypes: true}, envType)
	if result.Error != nil {
		allErrors = append(allErrors, convertCELErrorToValidationError(fldPath.Child("expression"), accessor, result.Error))
	}
	return allErrors
}

// ValidateMutatingAdmissionPolicyBinding validates a MutatingAdmissionPolicyBinding on create.
func ValidateMutatingAdmissionPolicyBinding(pb *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return append(validateMutatingAdmissionPolicyBinding(pb), ValidateStaticSuffix(pb.Name, field.NewPath("metadata", "name"))...)
}

func validateMutatingAdmissionPolicyBinding(pb *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	allErrors := genericvalidation.ValidateObjectMeta(&pb.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	fldPath := field.NewPath("spec")
	spec := &pb.Spec
	if len(spec.PolicyName) == 0 {
		allErrors = append(allErrors, field.Required(fldPath.Child("policyName"), ""))
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			allErrors = append(allErrors, field.Invalid(fldPath.Child("policyName"), spec.PolicyName, msg))
		}
	}
	allErrors = append(allErrors, validateAdmissionParamRef(spec.ParamRef, fldPath.Child("paramRef"))...)
	allErrors = append(allErrors, validateAdmissionMatchResources(spec.MatchResources, fldPath.Child("matchResources"))...)
	if spec.MatchResources != nil {
		allErrors = append(allErrors, validateMutatingOperations(spec.MatchResources.ResourceRules, fldPath.Child("matchResources", "resourceRules", "operations"))...)
	}
	return allErrors
}

// ValidateMutatingAdmissionPolicyBindingUpdate validates an update of a binding.
func ValidateMutatingAdmissionPolicyBindingUpdate(newC, oldC *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return validateMutatingAdmissionPolicyBinding(newC)
}
