package core

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateResourceQuota is the rule list of a ResourceQuota being created.
func ValidateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	return validation.Join(
		validation.Meta(&q.ObjectMeta, true, validation.SubdomainName, metadata),
		quotaSpec(field.NewPath("spec"), &q.Spec),
		quotaStatus(field.NewPath("status"), &q.Status),
	)
}

// ValidateResourceQuotaUpdate: a valid spec with the same scopes (in any order): the quota
// controller has counted usage for them.
func ValidateResourceQuotaUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	scopes, oldScopes := slices.Clone(q.Spec.Scopes), slices.Clone(old.Spec.Scopes)
	slices.Sort(scopes)
	slices.Sort(oldScopes)
	return validation.Join(
		validation.MetaUpdate(&q.ObjectMeta, &old.ObjectMeta, metadata),
		quotaSpec(field.NewPath("spec"), &q.Spec),
		validation.When(!slices.Equal(slices.Compact(scopes), slices.Compact(oldScopes)),
			field.Invalid(field.NewPath("spec", "scopes"), q.Spec.Scopes, "field is immutable")),
	)
}

// ValidateResourceQuotaStatusUpdate: the usage the quota controller records.
func ValidateResourceQuotaStatusUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&q.ObjectMeta, &old.ObjectMeta, metadata),
		validation.When(q.ResourceVersion == "", field.Required(field.NewPath("resourceVersion"), "")),
		quotaStatus(field.NewPath("status"), &q.Status),
	)
}

func quotaSpec(path *field.Path, spec *corev1.ResourceQuotaSpec) field.ErrorList {
	return validation.Join(
		quotaList(path.Child("hard"), spec.Hard),
		quotaScopes(path.Child("scopes"), spec),
		scopeSelector(path.Child("scopeSelector", "matchExpressions"), spec),
	)
}

func quotaStatus(path *field.Path, status *corev1.ResourceQuotaStatus) field.ErrorList {
	return validation.Join(quotaList(path.Child("hard"), status.Hard), quotaList(path.Child("used"), status.Used))
}

func quotaList(path *field.Path, list corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(list) {
		p := path.Key(string(name))
		errs = append(errs, quotaResourceName(p, name)...)
		errs = append(errs, quantity(p, name, list[name])...)
	}
	return errs
}

// scopeResources says which of the resources a quota caps each scope applies to: the pod
// scopes to pod counts and compute resources (BestEffort pods ask for none: only their count),
// VolumeAttributesClass to claims. nil: a scope Kubernetes does not define.
func scopeResources(scope corev1.ResourceQuotaScope) []corev1.ResourceName {
	switch scope {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return []corev1.ResourceName{corev1.ResourcePods, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceLimitsCPU,
			corev1.ResourceLimitsMemory, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory}
	case corev1.ResourceQuotaScopeBestEffort:
		return []corev1.ResourceName{corev1.ResourcePods}
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return []corev1.ResourceName{corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage}
	}
	return nil
}

// misapplied: the quota caps a resource Kubernetes defines that scope does not apply to.
func misapplied(scope corev1.ResourceQuotaScope, hard corev1.ResourceList) bool {
	applies := scopeResources(scope)
	for name := range hard {
		if applies != nil && (slices.Contains(quotaResources, name) || quotaHugePages(name)) && !slices.Contains(applies, name) {
			return true
		}
	}
	return false
}

// conflicting: scopes that no pod matches together.
func conflicting(scopes []corev1.ResourceQuotaScope) bool {
	has := func(s corev1.ResourceQuotaScope) bool { return slices.Contains(scopes, s) }
	return has(corev1.ResourceQuotaScopeBestEffort) && has(corev1.ResourceQuotaScopeNotBestEffort) ||
		has(corev1.ResourceQuotaScopeTerminating) && has(corev1.ResourceQuotaScopeNotTerminating)
}

// quotaScopes: known scopes that apply to what the quota caps, and do not conflict. Every
// error is at spec.scopes, with the whole list.
func quotaScopes(path *field.Path, spec *corev1.ResourceQuotaSpec) field.ErrorList {
	var errs field.ErrorList
	for _, scope := range spec.Scopes {
		errs = append(errs, validation.Join(
			validation.When(scopeResources(scope) == nil, field.Invalid(path, spec.Scopes, "unsupported scope")),
			validation.When(misapplied(scope, spec.Hard), field.Invalid(path, spec.Scopes, "unsupported scope applied to resource")),
		)...)
	}
	return append(errs, validation.When(conflicting(spec.Scopes), field.Invalid(path, spec.Scopes, "conflicting scopes"))...)
}

// onOffScopes are true or false of a pod; the others (PriorityClass, VolumeAttributesClass)
// name values.
var onOffScopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeCrossNamespacePodAffinity}

// scopeSelector: the same for scopes chosen by expression, plus the operators: an on-off
// scope only exists, the others take values.
func scopeSelector(path *field.Path, spec *corev1.ResourceQuotaSpec) field.ErrorList {
	if spec.ScopeSelector == nil {
		return nil
	}
	var errs field.ErrorList
	var scopes []corev1.ResourceQuotaScope
	for _, req := range spec.ScopeSelector.MatchExpressions {
		scopes = append(scopes, req.ScopeName)
		onOff := slices.Contains(onOffScopes, req.ScopeName)
		errs = append(errs, validation.Join(
			validation.When(scopeResources(req.ScopeName) == nil, field.Invalid(path.Child("scopeName"), req.ScopeName, "unsupported scope")),
			validation.When(misapplied(req.ScopeName, spec.Hard),
				field.Invalid(path, validation.Internal(spec.ScopeSelector), "unsupported scope applied to resource")),
			validation.When(onOff && req.Operator != corev1.ScopeSelectorOpExists, field.Invalid(path.Child("operator"), req.Operator,
				"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity")),
		)...)
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			errs = append(errs, validation.When(len(req.Values) == 0, field.Required(path.Child("values"),
				"must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))...)
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			errs = append(errs, validation.When(len(req.Values) > 0, field.Invalid(path.Child("values"), req.Values,
				"must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))...)
		default:
			errs = append(errs, field.Invalid(path.Child("operator"), req.Operator, "not a valid selector operator"))
		}
	}
	return append(errs, validation.When(conflicting(scopes), field.Invalid(path, spec.Scopes, "conflicting scopes"))...)
}

// ValidateLimitRange is the rule list of a LimitRange, created or updated: per type of object
// (at most one entry each), known resources whose min <= defaultRequest <= default <= max.
func ValidateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	errs := validation.Meta(&lr.ObjectMeta, true, validation.SubdomainName, metadata)
	seen := map[corev1.LimitType]bool{}
	for i := range lr.Spec.Limits {
		l, p := &lr.Spec.Limits[i], field.NewPath("spec", "limits").Index(i)
		errs = append(errs, limitType(p.Child("type"), l.Type)...)
		errs = append(errs, validation.When(seen[l.Type], field.Duplicate(p.Child("type"), l.Type))...)
		seen[l.Type] = true
		errs = append(errs, limitItem(p, l)...)
	}
	return errs
}

// ValidateLimitRangeUpdate: any valid LimitRange.
func ValidateLimitRangeUpdate(lr, old *corev1.LimitRange) field.ErrorList {
	return ValidateLimitRange(lr)
}

func limitType(path *field.Path, t corev1.LimitType) field.ErrorList {
	if errs := validation.QualifiedName(path, string(t)); len(errs) > 0 {
		return errs
	}
	known := t == corev1.LimitTypePod || t == corev1.LimitTypeContainer || t == corev1.LimitTypePersistentVolumeClaim
	return validation.When(!known && !strings.Contains(string(t), "/"), field.Invalid(path, t, "must be a standard limit type or fully qualified"))
}

func limitItem(path *field.Path, l *corev1.LimitRangeItem) field.ErrorList {
	nameRule := resourceName
	if l.Type == corev1.LimitTypePod || l.Type == corev1.LimitTypeContainer {
		nameRule = containerResourceName
	}
	names := func(child string, list corev1.ResourceList) field.ErrorList {
		var errs field.ErrorList
		for _, n := range sortedKeys(list) {
			errs = append(errs, nameRule(path.Child(child).Key(string(n)), n)...)
		}
		return errs
	}
	defaults := validation.Join(names("default", l.Default), names("defaultRequest", l.DefaultRequest))
	if l.Type == corev1.LimitTypePod { // a pod's containers have defaults, not the pod
		defaults = validation.Join(
			validation.When(len(l.Default) > 0, field.Forbidden(path.Child("default"), "may not be specified when `type` is 'Pod'")),
			validation.When(len(l.DefaultRequest) > 0, field.Forbidden(path.Child("defaultRequest"), "may not be specified when `type` is 'Pod'")),
		)
		l = &corev1.LimitRangeItem{Type: l.Type, Max: l.Max, Min: l.Min, MaxLimitRequestRatio: l.MaxLimitRequestRatio}
	}
	_, hasMin := l.Min[corev1.ResourceStorage]
	_, hasMax := l.Max[corev1.ResourceStorage]
	errs := validation.Join(
		names("max", l.Max), names("min", l.Min), defaults,
		validation.When(l.Type == corev1.LimitTypePersistentVolumeClaim && !hasMin && !hasMax,
			field.Required(path.Child("limits"), "either minimum or maximum storage value is required, but neither was provided")),
		names("maxLimitRequestRatio", l.MaxLimitRequestRatio),
	)
	all := corev1.ResourceList{}
	for _, list := range []corev1.ResourceList{l.Max, l.Min, l.Default, l.DefaultRequest, l.MaxLimitRequestRatio} {
		for n, q := range list {
			all[n] = q
		}
	}
	for _, n := range sortedKeys(all) {
		errs = append(errs, limitOrder(path, n, l)...)
	}
	return errs
}

// limitOrder: for one resource, min <= defaultRequest <= default <= max, and a limit may be at
// most maxLimitRequestRatio times the request (at least 1, at most what max and min allow).
func limitOrder(path *field.Path, name corev1.ResourceName, l *corev1.LimitRangeItem) field.ErrorList {
	key := string(name)
	min, hasMin := l.Min[name]
	max, hasMax := l.Max[name]
	def, hasDef := l.Default[name]
	req, hasReq := l.DefaultRequest[name]
	ratio, hasRatio := l.MaxLimitRequestRatio[name]
	greater := func(a, b resource.Quantity) bool { return a.Cmp(b) > 0 }
	at := func(child string) *field.Path { return path.Child(child).Key(key) }
	errs := validation.Join(
		validation.When(hasMin && hasMax && greater(min, max),
			field.Invalid(at("min"), min, fmt.Sprintf("min value %s is greater than max value %s", min.String(), max.String()))),
		validation.When(hasReq && hasMin && greater(min, req),
			field.Invalid(at("defaultRequest"), req, fmt.Sprintf("min value %s is greater than default request value %s", min.String(), req.String()))),
		validation.When(hasReq && hasMax && greater(req, max),
			field.Invalid(at("defaultRequest"), req, fmt.Sprintf("default request value %s is greater than max value %s", req.String(), max.String()))),
		validation.When(hasReq && hasDef && greater(req, def),
			field.Invalid(at("defaultRequest"), req, fmt.Sprintf("default request value %s is greater than default limit value %s", req.String(), def.String()))),
		// sic: these two report the min and the max as the value.
		validation.When(hasDef && hasMin && greater(min, def),
			field.Invalid(at("default"), min, fmt.Sprintf("min value %s is greater than default value %s", min.String(), def.String()))),
		validation.When(hasDef && hasMax && greater(def, max),
			field.Invalid(at("default"), max, fmt.Sprintf("default value %s is greater than max value %s", def.String(), max.String()))),
		validation.When(hasRatio && ratio.Cmp(resource.MustParse("1")) < 0,
			field.Invalid(at("maxLimitRequestRatio"), ratio, fmt.Sprintf("ratio %s is less than 1", ratio.String()))),
	)
	if hasRatio && hasMin && hasMax {
		if allowed := max.AsApproximateFloat64() / min.AsApproximateFloat64(); ratio.AsApproximateFloat64() > allowed {
			errs = append(errs, field.Invalid(at("maxLimitRequestRatio"), ratio, fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), allowed)))
		}
	}
	// Huge pages and devices are not overcommitted: a container gets what it asks for.
	return append(errs, validation.When(!overcommittable(name) && hasDef && hasReq && def.Cmp(req) != 0,
		field.Invalid(at("defaultRequest"), req, fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), req.String(), key)))...)
}
