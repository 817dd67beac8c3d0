// Package admissionregistration validates the admissionregistration.k8s.io kinds Core serves:
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration (webhooks.go),
// ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings (policies.go).
//
// It sits in the Core server of the chain: the Definitions of
// servers/core/registry/admissionregistration call these functions as their Validate hooks,
// after the request is decoded and defaulted and before the object is stored; a non-empty
// error list becomes kube-apiserver's 422 Invalid. What is stored here is what the chain's
// admission plugins (k8s.io/apiserver's, wired in servers/chain) act on, so the rules catch
// what would make them fail later: a webhook that cannot be called, a rule that matches
// nothing, a CEL expression that does not compile. The expressions are compiled with
// k8s.io/apiserver's admission CEL compiler, as the plugins will compile them (cel.go), and
// its message is the error's. The rules, paths and messages are kube-apiserver v1.37.2's, as
// observed.
//
// The generated declarative rules report that a ValidatingAdmissionPolicyBinding's policyName
// and validationActions are required: ours, marked as covered, are dropped in favour of theirs.
//
// An update keeps what the stored object already has: expressions it already holds compile
// in the environment for stored expressions (so a CEL library a later version drops does
// not lock it), and a webhook configuration keeps its side effects, review versions,
// repeated names and invalid selector values. Names ending in ".static.k8s.io" are refused
// on create: they are kept for configurations loaded from manifests. Left out: the
// distinction kube-apiserver makes between the kinds of stored expressions (here one
// expression stored anywhere in the object counts for all).
package admissionregistration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

type operation = admissionregistrationv1.OperationType

var (
	metadata = field.NewPath("metadata")
	spec     = field.NewPath("spec")

	// The values of the enums, sorted as kube-apiserver lists them.
	operations       = []operation{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	mutableOps       = []operation{"*", "CONNECT", "CREATE", "UPDATE"} // a deletion has nothing to patch
	failurePolicies  = []admissionregistrationv1.FailurePolicyType{"Fail", "Ignore"}
	matchPolicies    = []admissionregistrationv1.MatchPolicyType{"Equivalent", "Exact"}
	scopes           = []admissionregistrationv1.ScopeType{"*", "Cluster", "Namespaced"}
	reinvocations    = []admissionregistrationv1.ReinvocationPolicyType{"IfNeeded", "Never"}
	validationAction = []admissionregistrationv1.ValidationAction{"Audit", "Deny", "Warn"}
)

// staticSuffix ends the names of configurations loaded from manifests at start.
const staticSuffix = ".static.k8s.io"

// notStatic: the API may not create a configuration named as a manifest's.
func notStatic(name string) field.ErrorList {
	return validation.When(strings.HasSuffix(name, staticSuffix), field.Invalid(metadata.Child("name"), name,
		fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticSuffix)))
}

// meta is the metadata rule of every kind of the group: cluster-scoped, a DNS subdomain.
func meta(m *metav1.ObjectMeta) field.ErrorList {
	return validation.Meta(m, false, validation.SubdomainName, metadata)
}

// rule: which requests a webhook or policy sees: operations on resources of API groups and
// versions, in a scope. allowed are the operations the kind can act on.
func rule(p *field.Path, r *admissionregistrationv1.RuleWithOperations, allowed []operation) field.ErrorList {
	return validation.Join(
		validation.When(len(r.Operations) == 0, field.Required(p.Child("operations"), "")),
		onlyWildcard(p.Child("operations"), r.Operations, "operations"),
		validation.Each(p.Child("operations"), r.Operations, func(p *field.Path, op *operation) field.ErrorList {
			return validation.Supported(p, *op, allowed...)
		}),
		validation.When(len(r.APIGroups) == 0, field.Required(p.Child("apiGroups"), "")),
		onlyWildcard(p.Child("apiGroups"), r.APIGroups, "API groups"),
		validation.When(len(r.APIVersions) == 0, field.Required(p.Child("apiVersions"), "")),
		onlyWildcard(p.Child("apiVersions"), r.APIVersions, "API versions"),
		validation.Each(p.Child("apiVersions"), r.APIVersions, func(p *field.Path, v *string) field.ErrorList {
			return validation.Required(p, *v)
		}),
		resources(p.Child("resources"), r.Resources),
		validation.IfSet(p.Child("scope"), r.Scope, func(p *field.Path, s admissionregistrationv1.ScopeType) field.ErrorList {
			return validation.Supported(p, s, scopes...)
		}),
	)
}

// onlyWildcard: "*" stands alone in a list.
func onlyWildcard[T ~string](p *field.Path, list []T, what string) field.ErrorList {
	return validation.When(len(list) > 1 && slices.Contains(list, "*"),
		field.Invalid(p, list, "if '*' is present, must not specify other "+what))
}

// resources: "pods", "pods/status", "pods/*", "*/status", "*" or "*/*", without overlaps: a
// wildcard covers what else would be named.
func resources(p *field.Path, list []string) field.ErrorList {
	errs := validation.When(len(list) == 0, field.Required(p, ""))
	anySub, anyRes := map[string]bool{}, map[string]bool{} // "x/*" and "*/x" seen
	plain := ""                                            // the last resource named without subresource
	for i, r := range list {
		res, sub, hasSub := strings.Cut(r, "/")
		switch {
		case r == "":
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		case !hasSub:
			plain = r
			continue
		case anySub[res]:
			errs = append(errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, r)))
		}
		if anyRes[sub] {
			errs = append(errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, r)))
		}
		anySub[res] = anySub[res] || sub == "*"
		anyRes[sub] = anyRes[sub] || res == "*"
	}
	return validation.Join(errs,
		validation.When(len(list) > 1 && slices.Contains(list, "*/*"), field.Invalid(p, list, "if '*/*' is present, must not specify other resources")),
		// As kube-apiserver, only the last resource without subresource is compared.
		validation.When(slices.Contains(list, "*") && plain != "" && plain != "*",
			field.Invalid(p, list, "if '*' is present, must not specify other resources without subresources")),
	)
}

// matchResources: which requests a policy or binding applies to. Unlike a webhook's, its
// selectors are always checked strictly.
func matchResources(p *field.Path, m *admissionregistrationv1.MatchResources) field.ErrorList {
	if m == nil {
		return nil
	}
	named := func(p *field.Path, r *admissionregistrationv1.NamedRuleWithOperations) field.ErrorList {
		return validation.Join(
			validation.Each(p.Child("resourceNames"), r.ResourceNames, func(p *field.Path, name *string) field.ErrorList {
				return messages(p, *name, content.IsPathSegmentName(*name))
			}),
			validation.Duplicates(p.Child("resourceNames"), r.ResourceNames),
			rule(p, &r.RuleWithOperations, operations),
		)
	}
	return validation.Join(
		required(p.Child("matchPolicy"), m.MatchPolicy, func(p *field.Path, mp admissionregistrationv1.MatchPolicyType) field.ErrorList {
			return validation.Supported(p, mp, matchPolicies...)
		}),
		required(p.Child("namespaceSelector"), m.NamespaceSelector, func(p *field.Path, s metav1.LabelSelector) field.ErrorList {
			return validation.Selector(p, &s)
		}),
		required(p.Child("objectSelector"), m.ObjectSelector, func(p *field.Path, s metav1.LabelSelector) field.ErrorList {
			return validation.Selector(p, &s)
		}),
		validation.Each(p.Child("resourceRules"), m.ResourceRules, named),
		validation.Each(p.Child("excludeResourceRules"), m.ExcludeResourceRules, named),
	)
}

// mutatingOperations: a mutating policy's or binding's rules name only operations it can
// patch. The error has no index: kube-apiserver reports it on the rules' operations as a whole.
func mutatingOperations(p *field.Path, m *admissionregistrationv1.MatchResources) field.ErrorList {
	var errs field.ErrorList
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			errs = append(errs, validation.Supported(p.Child("resourceRules", "operations"), op, mutableOps...)...)
		}
	}
	return errs
}

// paramKind: the kind of the objects a policy's params are, by apiVersion and kind.
func paramKind(p *field.Path, k *admissionregistrationv1.ParamKind) field.ErrorList {
	if k == nil {
		return nil
	}
	var errs field.ErrorList
	av := p.Child("apiVersion")
	if gv, err := schema.ParseGroupVersion(k.APIVersion); k.APIVersion == "" {
		errs = append(errs, field.Required(av, ""))
	} else if err != nil {
		errs = append(errs, field.Invalid(av, k.APIVersion, err.Error()))
	} else {
		if msgs := utilvalidation.IsDNS1123Subdomain(gv.Group); gv.Group != "" && len(msgs) > 0 {
			errs = append(errs, field.Invalid(av, gv.Group, strings.Join(msgs, ",")))
		}
		if gv.Version == "" {
			errs = append(errs, field.Invalid(av, k.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(gv.Version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(av, gv.Version, strings.Join(msgs, ",")))
		}
	}
	if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(k.Kind)); k.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// paramRef: a binding's params: one object by name or those a selector picks, and what to do
// when there is none.
func paramRef(p *field.Path, r *admissionregistrationv1.ParamRef) field.ErrorList {
	if r == nil {
		return nil
	}
	both := r.Name != "" && r.Selector != nil
	const exclusive = "name and selector are mutually exclusive"
	return validation.Join(
		messages(p.Child("name"), r.Name, content.IsPathSegmentName(r.Name)),
		validation.When(both, field.Forbidden(p.Child("name"), exclusive)),
		validation.IfSet(p.Child("selector"), r.Selector, func(p *field.Path, s metav1.LabelSelector) field.ErrorList {
			return validation.Selector(p, &s)
		}),
		validation.When(both, field.Forbidden(p.Child("selector"), exclusive)),
		validation.When(r.Name == "" && r.Selector == nil, field.Required(p, "one of name or selector must be specified")),
		required(p.Child("parameterNotFoundAction"), r.ParameterNotFoundAction, func(p *field.Path, a admissionregistrationv1.ParameterNotFoundActionType) field.ErrorList {
			return validation.OneOf(p, a, admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction)
		}),
	)
}

// required: an optional (pointer) field that must be set, checked with check.
func required[T any](p *field.Path, v *T, check func(*field.Path, T) field.ErrorList) field.ErrorList {
	if v == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	return check(p, *v)
}

func messages(p *field.Path, value string, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}

// selectorCheck: a webhook's selectors may keep invalid label values the stored
// configuration already has.
func selectorCheck(opts metavalidation.LabelSelectorValidationOptions) func(*field.Path, metav1.LabelSelector) field.ErrorList {
	return func(p *field.Path, s metav1.LabelSelector) field.ErrorList {
		return metavalidation.ValidateLabelSelector(&s, opts, p)
	}
}
