// Package authorization validates the questions of the authorization.k8s.io group that Core
// answers: SubjectAccessReview, SelfSubjectAccessReview and LocalSubjectAccessReview.
//
// It sits in the Core server of the chain: the create-only REST of the reviews
// (servers/core/registry/authorization) calls these functions before it puts the question to
// the chain's authorizer; a non-empty error list becomes kube-apiserver's 422 Invalid. A
// review is a question, never stored, so its metadata must be empty (a local review's but for
// its namespace) and the spec must ask about exactly one thing: a resource or a non-resource
// URL. The rules, paths and messages are kube-apiserver v1.37.2's, as observed.
//
// Left out: SelfSubjectRulesReview has no rule list; the registry only refuses one without a
// namespace (400 Bad Request), as kube-apiserver does.
package authorization

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var spec = field.NewPath("spec")

// ValidateSubjectAccessReview is the rule list of "may this user do that?": one kind of
// attributes, and someone to ask about.
func ValidateSubjectAccessReview(sar *authorizationv1.SubjectAccessReview) field.ErrorList {
	return validation.Join(
		question(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes),
		subject(&sar.Spec),
		selectors(sar.Spec.ResourceAttributes),
		emptyMeta(sar.ObjectMeta, false),
	)
}

// ValidateSelfSubjectAccessReview is the rule list of "may I do that?": the subject is the
// requester, so only the question is checked.
func ValidateSelfSubjectAccessReview(sar *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	return validation.Join(
		question(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes),
		selectors(sar.Spec.ResourceAttributes),
		emptyMeta(sar.ObjectMeta, false),
	)
}

// ValidateLocalSubjectAccessReview is a SubjectAccessReview asked inside one namespace: it
// may only be about resources of that namespace.
func ValidateLocalSubjectAccessReview(sar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	ra, nra := sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes
	errs := validation.Join(question(ra, nra), subject(&sar.Spec), selectors(ra), emptyMeta(sar.ObjectMeta, true))
	if ra != nil && ra.Namespace != sar.Namespace {
		errs = append(errs, field.Invalid(spec.Child("resourceAttributes", "namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	return append(errs, validation.When(nra != nil,
		field.Invalid(spec.Child("nonResourceAttributes"), validation.Internal(nra), "disallowed on this kind of request"))...)
}

// question: exactly one of resourceAttributes and nonResourceAttributes.
func question(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) field.ErrorList {
	return validation.When((ra == nil) == (nra == nil), field.Invalid(spec, validation.Internal(nra),
		"exactly one of nonResourceAttributes or resourceAttributes must be specified"))
}

// subject: a user, or at least a group.
func subject(s *authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	return validation.When(s.User == "" && len(s.Groups) == 0,
		field.Invalid(spec.Child("user"), s.User, "at least one of user or group must be specified"))
}

// selectors checks the field and label selectors a list or watch is asked with: either raw
// or as requirements, and requirements well formed (an operator the authorizer does not know
// is allowed: it decides what to make of it).
func selectors(ra *authorizationv1.ResourceAttributes) field.ErrorList {
	if ra == nil {
		return nil
	}
	path := spec.Child("resourceAttributes")
	var errs field.ErrorList
	if fs := ra.FieldSelector; fs != nil {
		p := path.Child("fieldSelector")
		errs = append(errs, rawOrRequirements(p, fs.RawSelector, len(fs.Requirements))...)
		opts := metavalidation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		errs = append(errs, validation.Each(p.Child("requirements"), fs.Requirements, func(p *field.Path, r *metav1.FieldSelectorRequirement) field.ErrorList {
			return metavalidation.ValidateFieldSelectorRequirement(*r, opts, p)
		})...)
	}
	if ls := ra.LabelSelector; ls != nil {
		p := path.Child("labelSelector")
		errs = append(errs, rawOrRequirements(p, ls.RawSelector, len(ls.Requirements))...)
		opts := metavalidation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		errs = append(errs, validation.Each(p.Child("requirements"), ls.Requirements, func(p *field.Path, r *metav1.LabelSelectorRequirement) field.ErrorList {
			return metavalidation.ValidateLabelSelectorRequirement(*r, opts, p)
		})...)
	}
	return errs
}

func rawOrRequirements(path *field.Path, raw string, requirements int) field.ErrorList {
	if raw != "" && requirements > 0 {
		// kube-apiserver's message, its missing word included.
		return field.ErrorList{field.Invalid(path.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	}
	return validation.When(raw == "" && requirements == 0,
		field.Required(path.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", path)))
}

// emptyMeta: a question carries no metadata; a local one only its namespace. Managed fields
// are the apiserver's own bookkeeping and do not count.
func emptyMeta(meta metav1.ObjectMeta, namespaced bool) field.ErrorList {
	meta.ManagedFields = nil
	msg := "must be empty"
	if namespaced {
		meta.Namespace = ""
		msg = "must be empty except for namespace"
	}
	return validation.When(!equality.Semantic.DeepEqual(meta, metav1.ObjectMeta{}), field.Invalid(field.NewPath("metadata"), meta, msg))
}
