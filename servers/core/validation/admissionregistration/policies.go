package admissionregistration

// Admission policies: CEL instead of a webhook. A policy says which requests it matches and
// what it checks (validating) or patches (mutating); a binding puts it in force, with its
// params and, for a validating one, what a failure does (deny, warn, audit).

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/client-go/util/jsonpath"

	"github.com/apichain/apichain/servers/core/validation"
)

const (
	maxAuditAnnotations     = 20
	maxAuditExpressionBytes = 5 * 1024
)

var (
	reasons    = []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge}
	patchTypes = []admissionregistrationv1.PatchType{admissionregistrationv1.PatchTypeApplyConfiguration, admissionregistrationv1.PatchTypeJSONPatch}
)

// ValidateValidatingAdmissionPolicy is the rule list of a new policy.
func ValidateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	return validation.Join(ValidateValidatingAdmissionPolicyUpdate(p, nil), notStatic(p.Name))
}

// ValidateValidatingAdmissionPolicyUpdate is the rule list of an update (old is nil for a
// new policy): as new, but the match conditions are checked only if they or the paramKind
// change.
func ValidateValidatingAdmissionPolicyUpdate(vap, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	s := &vap.Spec
	params := s.ParamKind != nil
	errs, x := validatingView(vap).head(validatingView(old))
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(spec.Child("validations"), msg), field.Required(spec.Child("auditAnnotations"), msg))
	}
	errs = append(errs, validation.Each(spec.Child("validations"), s.Validations, func(p *field.Path, v *admissionregistrationv1.Validation) field.ErrorList {
		return check(p, v, x, params)
	})...)
	if len(s.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(spec.Child("auditAnnotations"), validation.Internal(s.AuditAnnotations),
			fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	return append(errs, validation.Each(spec.Child("auditAnnotations"), s.AuditAnnotations, func(p *field.Path, a *admissionregistrationv1.AuditAnnotation) field.ErrorList {
		repeated := keys[a.Key]
		keys[a.Key] = true
		return validation.Join(
			auditAnnotation(p, a, vap.Name, x, params),
			validation.When(repeated, field.Duplicate(p.Child("key"), a.Key)),
		)
	})...)
}

// policy is what the two kinds of admission policy have in common.
type policy struct {
	meta        *metav1.ObjectMeta
	failure     *admissionregistrationv1.FailurePolicyType
	kind        *admissionregistrationv1.ParamKind
	match       *admissionregistrationv1.MatchResources
	conditions  []admissionregistrationv1.MatchCondition
	variables   []admissionregistrationv1.Variable
	expressions []string // all of its CEL, which an update may keep as it is
	mutating    bool
}

func validatingView(p *admissionregistrationv1.ValidatingAdmissionPolicy) *policy {
	if p == nil {
		return nil
	}
	s := &p.Spec
	v := &policy{meta: &p.ObjectMeta, failure: s.FailurePolicy, kind: s.ParamKind, match: s.MatchConstraints, conditions: s.MatchConditions, variables: s.Variables}
	for _, c := range s.Validations {
		v.expressions = append(v.expressions, c.Expression, c.MessageExpression)
	}
	for _, a := range s.AuditAnnotations {
		v.expressions = append(v.expressions, a.ValueExpression)
	}
	return v
}

func mutatingView(p *admissionregistrationv1.MutatingAdmissionPolicy) *policy {
	if p == nil {
		return nil
	}
	s := &p.Spec
	v := &policy{meta: &p.ObjectMeta, failure: s.FailurePolicy, kind: s.ParamKind, match: s.MatchConstraints, conditions: s.MatchConditions, variables: s.Variables, mutating: true}
	for _, m := range s.Mutations {
		v.expressions = append(v.expressions, patchExpression(&m))
	}
	return v
}

// head is the rule list every policy starts with: a failure policy, the kind of its params,
// the requests it matches (at least one resource rule, which gives its expressions a type),
// its match conditions (on update, only if they or the paramKind change) and its variables.
// It returns the compiler that holds the variables, for the expressions that follow.
func (p *policy) head(old *policy) (field.ErrorList, *expressions) {
	stored := map[string]bool{}
	if old != nil {
		for _, e := range old.expressions {
			stored[e] = true
		}
		for _, c := range old.conditions {
			stored[c.Expression] = true
		}
		for _, v := range old.variables {
			stored[v.Expression] = true
		}
	}
	match := spec.Child("matchConstraints")
	errs := validation.Join(
		meta(p.meta),
		required(spec.Child("failurePolicy"), p.failure, func(p *field.Path, f admissionregistrationv1.FailurePolicyType) field.ErrorList {
			return validation.Supported(p, f, failurePolicies...)
		}),
		paramKind(spec.Child("paramKind"), p.kind),
		validation.When(p.match == nil, field.Required(match, "")),
		matchResources(match, p.match),
		validation.When(p.match != nil && len(p.match.ResourceRules) == 0, field.Required(match.Child("resourceRules"), "")),
	)
	if p.mutating && p.match != nil {
		errs = append(errs, mutatingOperations(match, p.match)...)
	}
	params := p.kind != nil
	if old == nil || !equality.Semantic.DeepEqual(p.kind, old.kind) || !equality.Semantic.DeepEqual(p.conditions, old.conditions) {
		errs = append(errs, matchConditions(spec.Child("matchConditions"), p.conditions, params, stored)...)
	}
	x := newExpressions(p.mutating || len(p.variables) > 0, stored)
	return append(errs, validation.Each(spec.Child("variables"), p.variables, func(path *field.Path, v *admissionregistrationv1.Variable) field.ErrorList {
		return x.variable(path, v, plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true})
	})...), x
}

// check: one validation: a boolean expression, and the message when it is false: fixed (one
// line) or an expression giving a string; and the reason the request is refused with.
func check(p *field.Path, v *admissionregistrationv1.Validation, x *expressions, params bool) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else {
		errs = append(errs, x.compile(p.Child("expression"), &validating.ValidationCondition{Expression: v.Expression}, v.Expression,
			plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true})...)
	}
	if me := v.MessageExpression; me != "" && strings.TrimSpace(me) == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), me, "must be non-empty if specified"))
	} else if me != "" {
		errs = append(errs, x.compile(p.Child("messageExpression"), &validating.MessageExpressionCondition{MessageExpression: me}, me,
			plugincel.OptionalVariableDeclarations{HasParams: params})...)
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must be non-empty if specified"))
	case strings.ContainsAny(msg, "\r\n"):
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	return append(errs, validation.IfSet(p.Child("reason"), v.Reason, func(p *field.Path, r metav1.StatusReason) field.ErrorList {
		return validation.Supported(p, r, reasons...)
	})...)
}

// auditAnnotation: a key that, prefixed with the policy's name, is a qualified name, and an
// expression of at most 5 KiB that gives the value (a string, or null for none).
func auditAnnotation(p *field.Path, a *admissionregistrationv1.AuditAnnotation, policy string, x *expressions, params bool) field.ErrorList {
	var errs field.ErrorList
	if policy == "" {
		errs = append(errs, field.Invalid(p.Child("key"), a.Key, "requires metadata.name be non-empty"))
	} else {
		errs = append(errs, validation.QualifiedName(p.Child("key"), policy+"/"+a.Key)...)
	}
	p = p.Child("valueExpression")
	switch expr := strings.TrimSpace(a.ValueExpression); {
	case expr == "":
		return append(errs, field.Required(p, "valueExpression is not specified"))
	case len(expr) > maxAuditExpressionBytes:
		return append(errs, field.Required(p, fmt.Sprintf("must not exceed %d bytes in length", maxAuditExpressionBytes)))
	default:
		return append(errs, x.compile(p, &validating.AuditAnnotationCondition{ValueExpression: expr}, a.ValueExpression,
			plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true})...)
	}
}

// ValidateValidatingAdmissionPolicyStatusUpdate: the status the type checker writes: each
// warning says what and where (a JSONPath into the policy), and well-formed conditions.
func ValidateValidatingAdmissionPolicyStatusUpdate(p, _ *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	status := field.NewPath("status")
	var errs field.ErrorList
	if tc := p.Status.TypeChecking; tc != nil {
		errs = validation.Each(status.Child("typeChecking", "expressionWarnings"), tc.ExpressionWarnings, func(p *field.Path, w *admissionregistrationv1.ExpressionWarning) field.ErrorList {
			return validation.Join(validation.Required(p.Child("warning"), w.Warning), fieldRef(p.Child("fieldRef"), w.FieldRef))
		})
	}
	return append(errs, metavalidation.ValidateConditions(p.Status.Conditions, status.Child("conditions"))...)
}

func fieldRef(p *field.Path, ref string) field.ErrorList {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if err := jsonpath.New("spec").Parse("{" + ref + "}"); err != nil {
		return field.ErrorList{field.Invalid(p, ref, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}

// ValidateValidatingAdmissionPolicyBinding is the rule list of a new binding.
func ValidateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return validation.Join(ValidateValidatingAdmissionPolicyBindingUpdate(b, nil), notStatic(b.Name))
}

// ValidateValidatingAdmissionPolicyBindingUpdate: an update is checked as new (but for the
// name, which cannot change).
func ValidateValidatingAdmissionPolicyBindingUpdate(b, _ *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	s := &b.Spec
	return validation.Join(
		meta(&b.ObjectMeta),
		policyName(s.PolicyName, true),
		paramRef(spec.Child("paramRef"), s.ParamRef),
		matchResources(spec.Child("matchResources"), s.MatchResources),
		actions(spec.Child("validationActions"), s.ValidationActions),
	)
}

// policyName: the policy bound, by its name. covered: the generated rule reports it missing.
func policyName(name string, covered bool) field.ErrorList {
	p := spec.Child("policyName")
	if name == "" {
		errs := field.ErrorList{field.Required(p, "")}
		if covered {
			errs = validation.Covered("", errs)
		}
		return errs
	}
	return messages(p, name, apivalidation.NameIsDNSSubdomain(name, false))
}

// actions: what a failed validation does: Deny, Warn or Audit, each once, and not both Deny
// and Warn (the client would read the same failure twice).
func actions(p *field.Path, list []admissionregistrationv1.ValidationAction) field.ErrorList {
	return validation.Join(
		validation.Each(p, list, func(p *field.Path, a *admissionregistrationv1.ValidationAction) field.ErrorList {
			return validation.Supported(p, *a, validationAction...)
		}),
		validation.Duplicates(p, list),
		validation.When(slices.Contains(list, admissionregistrationv1.Deny) && slices.Contains(list, admissionregistrationv1.Warn), field.Invalid(p, list,
			"must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)")),
		validation.Covered("", validation.When(len(list) == 0, field.Required(p, "at least one validation action is required"))),
	)
}

// ValidateMutatingAdmissionPolicy is the rule list of a new mutating policy.
func ValidateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	return validation.Join(ValidateMutatingAdmissionPolicyUpdate(p, nil), notStatic(p.Name))
}

// ValidateMutatingAdmissionPolicyUpdate (old is nil for a new policy): as new, but the match
// conditions are checked only if they or the paramKind change.
func ValidateMutatingAdmissionPolicyUpdate(mp, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	s := &mp.Spec
	params := s.ParamKind != nil
	errs, x := mutatingView(mp).head(mutatingView(old))
	if len(s.Mutations) == 0 {
		errs = append(errs, field.Required(spec.Child("mutations"), "mutations must contain at least one item"))
	}
	errs = append(errs, validation.Each(spec.Child("mutations"), s.Mutations, func(p *field.Path, m *admissionregistrationv1.Mutation) field.ErrorList {
		return mutation(p, m, x, params)
	})...)
	return append(errs, validation.OneOf(spec.Child("reinvocationPolicy"), s.ReinvocationPolicy, reinvocations...)...)
}

func patchExpression(m *admissionregistrationv1.Mutation) string {
	switch {
	case m.ApplyConfiguration != nil:
		return m.ApplyConfiguration.Expression
	case m.JSONPatch != nil:
		return m.JSONPatch.Expression
	}
	return ""
}

// mutation: a patch of the type it says, and only that one: an expression giving either an
// apply configuration (Object{...}) or a list of JSON patch operations.
func mutation(p *field.Path, m *admissionregistrationv1.Mutation, x *expressions, params bool) field.ErrorList {
	decls := plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true, HasPatchTypes: true}
	compile := func(p *field.Path, e plugincel.ExpressionAccessor) field.ErrorList {
		if e.GetExpression() == "" {
			return field.ErrorList{field.Required(p.Child("expression"), "")}
		}
		return x.compile(p.Child("expression"), e, e.GetExpression(), decls)
	}
	apply, jsonPatch := p.Child("applyConfiguration"), p.Child("jsonPatch")
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		return field.ErrorList{field.Required(p.Child("patchType"), "")}
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = field.ErrorList{field.Required(jsonPatch, "must be specified when patchType is JSONPatch")}
		} else {
			errs = compile(jsonPatch, &patch.JSONPatchCondition{Expression: strings.TrimSpace(m.JSONPatch.Expression)})
		}
		return append(errs, validation.When(m.ApplyConfiguration != nil,
			field.Invalid(apply, "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))...)
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = field.ErrorList{field.Required(apply, "must be specified when patchType is ApplyConfiguration")}
		} else {
			errs = compile(apply, &patch.ApplyConfigurationCondition{Expression: strings.TrimSpace(m.ApplyConfiguration.Expression)})
		}
		return append(errs, validation.When(m.JSONPatch != nil,
			field.Invalid(jsonPatch, "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))...)
	}
	return validation.Supported(p.Child("patchType"), m.PatchType, patchTypes...)
}

// ValidateMutatingAdmissionPolicyBinding is the rule list of a new binding.
func ValidateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return validation.Join(ValidateMutatingAdmissionPolicyBindingUpdate(b, nil), notStatic(b.Name))
}

// ValidateMutatingAdmissionPolicyBindingUpdate: an update is checked as new.
func ValidateMutatingAdmissionPolicyBindingUpdate(b, _ *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	s := &b.Spec
	errs := validation.Join(
		meta(&b.ObjectMeta),
		policyName(s.PolicyName, false),
		paramRef(spec.Child("paramRef"), s.ParamRef),
		matchResources(spec.Child("matchResources"), s.MatchResources),
	)
	if s.MatchResources != nil {
		errs = append(errs, mutatingOperations(spec.Child("matchResources"), s.MatchResources)...)
	}
	return errs
}
