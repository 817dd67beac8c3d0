// Package flowcontrol validates the flowcontrol.apiserver.k8s.io kinds of the Core server:
// FlowSchema and PriorityLevelConfiguration, the configuration of API Priority and Fairness
// (a FlowSchema sorts requests into flows and names the priority level that queues them).
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/flowcontrol
// call these functions as their Validate hooks, after the request is decoded and defaulted and
// before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, paths and messages are kube-apiserver v1.37.2's, as observed, quirks included: an
// unsupported distinguisher is shown as the whole distinguisherMethod. The mandatory objects of
// k8s.io/apiserver's bootstrap configuration (the exempt and catch-all schemas and levels) keep
// their fixed spec; of the exempt level, only spec.exempt may change. The generated declarative
// rules report which of a priority level's limited, exempt and queuing may or must be set for
// its type: ours, marked as covered by them, are dropped in favour of theirs.
//
// As in kube-apiserver, an update is checked as a create (the apiserver itself checks what may
// not change in the metadata), and a status update checks only the conditions.
package flowcontrol

import (
	"fmt"
	"slices"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	"github.com/apichain/apichain/servers/core/defaults/flowcontrol"
	"github.com/apichain/apichain/servers/core/validation"
)

var (
	metadata = field.NewPath("metadata")
	spec     = field.NewPath("spec")
)

// supportedVerbs are the verbs a rule may name, besides "*".
var supportedVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}

// ValidateFlowSchema is the rule list of a new FlowSchema.
func ValidateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := validation.Join(
		validation.Meta(&fs.ObjectMeta, false, validation.SubdomainName, metadata),
		flowSchemaSpec(fs.Name, &fs.Spec),
	)
	if fixed := mandatoryFlowSchema(fs.Name); fixed != nil && !equality.Semantic.DeepEqual(fs.Spec, fixed.Spec) {
		errs = append(errs, field.Invalid(spec, validation.Internal(fs.Spec), fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Name)))
	}
	return append(errs, conditionTypes(fs.Status.Conditions, flowSchemaConditionType)...)
}

// ValidateFlowSchemaUpdate is the rule list of an update: the schema as if new.
func ValidateFlowSchemaUpdate(fs, _ *flowcontrolv1.FlowSchema) field.ErrorList {
	return ValidateFlowSchema(fs)
}

// ValidateFlowSchemaStatusUpdate checks the conditions a status update writes.
func ValidateFlowSchemaStatusUpdate(fs, _ *flowcontrolv1.FlowSchema) field.ErrorList {
	return conditionTypes(fs.Status.Conditions, flowSchemaConditionType)
}

// flowSchemaSpec: a precedence in 1..10000 (1 for the exempt schema alone), a known way to
// tell flows apart, a priority level, and rules.
func flowSchemaSpec(name string, s *flowcontrolv1.FlowSchemaSpec) field.ErrorList {
	precedence, level := spec.Child("matchingPrecedence"), spec.Child("priorityLevelConfiguration", "name")
	errs := validation.Join(
		validation.When(s.MatchingPrecedence <= 0, field.Invalid(precedence, s.MatchingPrecedence, "must be a positive value")),
		validation.When(s.MatchingPrecedence > flowcontrolv1.FlowSchemaMaxMatchingPrecedence, field.Invalid(precedence, s.MatchingPrecedence,
			fmt.Sprintf("must not be greater than %d", flowcontrolv1.FlowSchemaMaxMatchingPrecedence))),
		validation.When(s.MatchingPrecedence == 1 && name != flowcontrolv1.FlowSchemaNameExempt,
			field.Invalid(precedence, s.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1")),
	)
	if dm := s.DistinguisherMethod; dm != nil && dm.Type != flowcontrolv1.FlowDistinguisherMethodByNamespaceType && dm.Type != flowcontrolv1.FlowDistinguisherMethodByUserType {
		errs = append(errs, field.NotSupported(spec.Child("distinguisherMethod", "type"), validation.Internal(*dm),
			[]flowcontrolv1.FlowDistinguisherMethodType{flowcontrolv1.FlowDistinguisherMethodByNamespaceType, flowcontrolv1.FlowDistinguisherMethodByUserType}))
	}
	if s.PriorityLevelConfiguration.Name == "" {
		errs = append(errs, field.Required(level, "must reference a priority level"))
	} else {
		errs = append(errs, validation.DNSSubdomain(level, s.PriorityLevelConfiguration.Name)...)
	}
	return append(errs, validation.Each(spec.Child("rules"), s.Rules, rule)...)
}

// rule: whom the rule matches and on what requests, resource or not.
func rule(p *field.Path, r *flowcontrolv1.PolicyRulesWithSubjects) field.ErrorList {
	return validation.Join(
		validation.When(len(r.Subjects) == 0, field.Required(p.Child("subjects"), "subjects must contain at least one value")),
		validation.Each(p.Child("subjects"), r.Subjects, subject),
		validation.When(len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0,
			field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty")),
		validation.Each(p.Child("resourceRules"), r.ResourceRules, resourceRule),
		validation.Each(p.Child("nonResourceRules"), r.NonResourceRules, nonResourceRule),
	)
}

// subject: a user, a group or a service account, described by the member of its kind only.
func subject(p *field.Path, s *flowcontrolv1.Subject) field.ErrorList {
	forbidden := func(member string, set bool, kind flowcontrolv1.SubjectKind) field.ErrorList {
		return validation.When(set && s.Kind != kind, field.Forbidden(p.Child(member), fmt.Sprintf("%s is forbidden when subject kind is not '%s'", member, kind)))
	}
	var errs field.ErrorList
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		errs = serviceAccount(p.Child("serviceAccount"), s.ServiceAccount)
	case flowcontrolv1.SubjectKindUser:
		errs = named(p.Child("user"), "user", s.Kind, s.User != nil, func() string { return s.User.Name })
	case flowcontrolv1.SubjectKindGroup:
		errs = named(p.Child("group"), "group", s.Kind, s.Group != nil, func() string { return s.Group.Name })
	default:
		return field.ErrorList{field.NotSupported(p.Child("kind"), s.Kind,
			[]flowcontrolv1.SubjectKind{flowcontrolv1.SubjectKindGroup, flowcontrolv1.SubjectKindServiceAccount, flowcontrolv1.SubjectKindUser})}
	}
	return validation.Join(errs,
		forbidden("serviceAccount", s.ServiceAccount != nil, flowcontrolv1.SubjectKindServiceAccount),
		forbidden("user", s.User != nil, flowcontrolv1.SubjectKindUser),
		forbidden("group", s.Group != nil, flowcontrolv1.SubjectKindGroup),
	)
}

// named: a user or group subject has its member, with a name.
func named(p *field.Path, member string, kind flowcontrolv1.SubjectKind, set bool, name func() string) field.ErrorList {
	if !set {
		return field.ErrorList{field.Required(p, fmt.Sprintf("%s is required when subject kind is '%s'", member, kind))}
	}
	return validation.Required(p.Child("name"), name())
}

// serviceAccount: a service account subject names one ("*" for all) in a namespace.
func serviceAccount(p *field.Path, sa *flowcontrolv1.ServiceAccountSubject) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(p, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var errs field.ErrorList
	switch {
	case sa.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case sa.Name != flowcontrolv1.NameAll:
		errs = append(errs, validation.DNSSubdomain(p.Child("name"), sa.Name)...)
	}
	if sa.Namespace == "" {
		return append(errs, field.Required(p.Child("namespace"), "must specify namespace for service account"))
	}
	return append(errs, validation.DNSLabel(p.Child("namespace"), sa.Namespace)...)
}

// resourceRule: verbs, API groups, resources and namespaces (or cluster scope), "*" standing
// alone where it is used.
func resourceRule(p *field.Path, r *flowcontrolv1.ResourcePolicyRule) field.ErrorList {
	errs := validation.Join(
		verbs(p.Child("verbs"), r.Verbs),
		list(p.Child("apiGroups"), r.APIGroups, "resource rules must supply at least one api group", "api groups"),
		list(p.Child("resources"), r.Resources, "resource rules must supply at least one resource", "resources"),
	)
	namespaces := p.Child("namespaces")
	switch {
	case len(r.Namespaces) == 0 && !r.ClusterScope:
		errs = append(errs, field.Required(namespaces, "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(r.Namespaces, flowcontrolv1.NamespaceEvery):
		errs = append(errs, validation.When(len(r.Namespaces) > 1, field.Invalid(namespaces, r.Namespaces, "if '*' is present, must not specify other namespaces"))...)
	default:
		for i, ns := range r.Namespaces {
			for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
				errs = append(errs, field.Invalid(namespaces.Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

// nonResourceRule: verbs and URL paths, "*" alone or as the end of a path.
func nonResourceRule(p *field.Path, r *flowcontrolv1.NonResourcePolicyRule) field.ErrorList {
	urls := p.Child("nonResourceURLs")
	errs := verbs(p.Child("verbs"), r.Verbs)
	switch {
	case len(r.NonResourceURLs) == 0:
		return append(errs, field.Required(urls, "nonResourceURLs must contain at least one value"))
	case slices.Contains(r.NonResourceURLs, flowcontrolv1.NonResourceAll):
		return append(errs, validation.When(len(r.NonResourceURLs) > 1, field.Invalid(urls, r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))...)
	}
	for i, u := range r.NonResourceURLs {
		errs = append(errs, urlPath(urls.Index(i), u)...)
	}
	return errs
}

// verbs: at least one, "*" alone, or known ones.
func verbs(p *field.Path, vs []string) field.ErrorList {
	switch {
	case len(vs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(vs, flowcontrolv1.VerbAll):
		return validation.When(len(vs) > 1, field.Invalid(p, vs, "if '*' is present, must not specify other verbs"))
	}
	for _, v := range vs {
		if !slices.Contains(supportedVerbs, v) {
			return field.ErrorList{field.NotSupported(p, vs, supportedVerbs)}
		}
	}
	return nil
}

// list: at least one entry, and "*" alone.
func list(p *field.Path, entries []string, missing, what string) field.ErrorList {
	if len(entries) == 0 {
		return field.ErrorList{field.Required(p, missing)}
	}
	return validation.When(len(entries) > 1 && slices.Contains(entries, "*"), field.Invalid(p, entries, "if '*' is present, must not specify other "+what))
}

// urlPath: an absolute path without spaces or empty segments; "*" only as its last segment.
func urlPath(p *field.Path, u string) field.ErrorList {
	invalid := func(msg string) field.ErrorList { return field.ErrorList{field.Invalid(p, u, msg)} }
	switch stars := strings.Count(u, "*"); {
	case u == "":
		return invalid("must not be empty")
	case u == "/":
		return nil
	case !strings.HasPrefix(u, "/"):
		return invalid("must start with slash")
	case strings.Contains(u, " "):
		return invalid("must not contain white-space")
	case strings.Contains(u, "//"):
		return invalid("must not contain double slash")
	case stars > 1 || stars == 1 && !strings.HasSuffix(u, "/*"):
		return invalid("wildcard can only do suffix matching")
	}
	return nil
}

// conditionTypes checks the types of a status's conditions (typeOf reads one's type): each
// once, none empty.
func conditionTypes[C any](conditions []C, typeOf func(C) string) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("status", "conditions")
	var seen []string
	for i, c := range conditions {
		t := typeOf(c)
		errs = append(errs, validation.When(slices.Contains(seen, t), field.Duplicate(path.Index(i).Child("type"), t))...)
		errs = append(errs, validation.When(t == "", field.Required(path.Index(i).Child("type"), "must not be empty"))...)
		seen = append(seen, t)
	}
	return errs
}

func flowSchemaConditionType(c flowcontrolv1.FlowSchemaCondition) string { return string(c.Type) }

// mandatoryFlowSchema is the defaulted bootstrap schema of that name that every server must
// have, or nil.
func mandatoryFlowSchema(name string) *flowcontrolv1.FlowSchema {
	for _, fs := range bootstrap.MandatoryFlowSchemas {
		if fs.Name == name {
			fixed := fs.DeepCopy()
			flowcontrol.SetObjectDefaults_FlowSchema(fixed)
			return fixed
		}
	}
	return nil
}
