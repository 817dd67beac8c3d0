package validation

// LimitRange and ResourceQuota validation, ported from kubernetes v1.37.2
// pkg/apis/core/validation/validation.go (ValidateLimitRange, ValidateResourceQuota*)
// with the helpers of pkg/apis/core/helper/helpers.go they use. The declarative
// rules for these kinds are alpha (ObjectMeta) or about fields kube-apiserver sets
// itself, so nothing declarative is enforced. (PersistentVolumeClaims are
// validated by the pods package.)

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// --- LimitRange ---

var standardLimitRangeTypes = sets.New(v1.LimitTypePod, v1.LimitTypeContainer, v1.LimitTypePersistentVolumeClaim)

func validateLimitRangeTypeName(value v1.LimitType, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, msg := range validation.IsQualifiedName(string(value)) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	if len(allErrs) != 0 {
		return allErrs
	}
	if len(strings.Split(string(value), "/")) == 1 && !standardLimitRangeTypes.Has(value) {
		return append(allErrs, field.Invalid(fldPath, value, "must be a standard limit type or fully qualified"))
	}
	return allErrs
}

// validateLimitRangeResourceName: limit types other than Pod/Container may name storage.
func validateLimitRangeResourceName(limitType v1.LimitType, value v1.ResourceName, fldPath *field.Path) field.ErrorList {
	switch limitType {
	case v1.LimitTypePod, v1.LimitTypeContainer:
		return ValidateContainerResourceName(value, fldPath)
	default:
		return validateResourceName(value, fldPath)
	}
}

// ValidateLimitRange validates a LimitRange on create and update.
func ValidateLimitRange(limitRange *v1.LimitRange) field.ErrorList {
	allErrs := ValidateObjectMeta(&limitRange.ObjectMeta, true, ValidateLimitRangeName, field.NewPath("metadata"))

	limitTypeSet := map[v1.LimitType]bool{}
	fldPath := field.NewPath("spec", "limits")
	for i := range limitRange.Spec.Limits {
		idxPath := fldPath.Index(i)
		limit := &limitRange.Spec.Limits[i]
		allErrs = append(allErrs, validateLimitRangeTypeName(limit.Type, idxPath.Child("type"))...)
		if limitTypeSet[limit.Type] {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("type"), limit.Type))
		}
		limitTypeSet[limit.Type] = true

		keys := sets.Set[string]{}
		minQ := map[string]resource.Quantity{}
		maxQ := map[string]resource.Quantity{}
		defaults := map[string]resource.Quantity{}
		defaultRequests := map[string]resource.Quantity{}
		maxLimitRequestRatios := map[string]resource.Quantity{}

		for k, q := range limit.Max {
			allErrs = append(allErrs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child("max").Key(string(k)))...)
			keys.Insert(string(k))
			maxQ[string(k)] = q
		}
		for k, q := range limit.Min {
			allErrs = append(allErrs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child("min").Key(string(k)))...)
			keys.Insert(string(k))
			minQ[string(k)] = q
		}
		if limit.Type == v1.LimitTypePod {
			if len(limit.Default) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(limit.DefaultRequest) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			for k, q := range limit.Default {
				allErrs = append(allErrs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child("default").Key(string(k)))...)
				keys.Insert(string(k))
				defaults[string(k)] = q
			}
			for k, q := range limit.DefaultRequest {
				allErrs = append(allErrs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child("defaultRequest").Key(string(k)))...)
				keys.Insert(string(k))
				defaultRequests[string(k)] = q
			}
		}
		if limit.Type == v1.LimitTypePersistentVolumeClaim {
			_, minFound := limit.Min[v1.ResourceStorage]
			_, maxFound := limit.Max[v1.ResourceStorage]
			if !minFound && !maxFound {
				allErrs = append(allErrs, field.Required(idxPath.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		for k, q := range limit.MaxLimitRequestRatio {
			allErrs = append(allErrs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child("maxLimitRequestRatio").Key(string(k)))...)
			keys.Insert(string(k))
			maxLimitRequestRatios[string(k)] = q
		}
		for k := range keys {
			allErrs = append(allErrs, validateLimitRangeKey(idxPath, k, minQ, maxQ, defaults, defaultRequests, maxLimitRequestRatios)...)
		}
	}
	return allErrs
}

func validateLimitRangeKey(idxPath *field.Path, k string, minQ, maxQ, defaults, defaultRequests, ratios map[string]resource.Quantity) field.ErrorList {
	var allErrs field.ErrorList
	minQuantity, minQuantityFound := minQ[k]
	maxQuantity, maxQuantityFound := maxQ[k]
	defaultQuantity, defaultQuantityFound := defaults[k]
	defaultRequestQuantity, defaultRequestQuantityFound := defaultRequests[k]
	maxRatio, maxRatioFound := ratios[k]

	if minQuantityFound && maxQuantityFound && minQuantity.Cmp(maxQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("min").Key(k), minQuantity, fmt.Sprintf("min value %s is greater than max value %s", minQuantity.String(), maxQuantity.String())))
	}
	if defaultRequestQuantityFound && minQuantityFound && minQuantity.Cmp(defaultRequestQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(k), defaultRequestQuantity, fmt.Sprintf("min value %s is greater than default request value %s", minQuantity.String(), defaultRequestQuantity.String())))
	}
	if defaultRequestQuantityFound && maxQuantityFound && defaultRequestQuantity.Cmp(maxQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(k), defaultRequestQuantity, fmt.Sprintf("default request value %s is greater than max value %s", defaultRequestQuantity.String(), maxQuantity.String())))
	}
	if defaultRequestQuantityFound && defaultQuantityFound && defaultRequestQuantity.Cmp(defaultQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(k), defaultRequestQuantity, fmt.Sprintf("default request value %s is greater than default limit value %s", defaultRequestQuantity.String(), defaultQuantity.String())))
	}
	if defaultQuantityFound && minQuantityFound && minQuantity.Cmp(defaultQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("default").Key(k), minQuantity, fmt.Sprintf("min value %s is greater than default value %s", minQuantity.String(), defaultQuantity.String())))
	}
	if defaultQuantityFound && maxQuantityFound && defaultQuantity.Cmp(maxQuantity) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("default").Key(k), maxQuantity, fmt.Sprintf("default value %s is greater than max value %s", defaultQuantity.String(), maxQuantity.String())))
	}
	if maxRatioFound && maxRatio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(k), maxRatio, fmt.Sprintf("ratio %s is less than 1", maxRatio.String())))
	}
	if maxRatioFound && minQuantityFound && maxQuantityFound {
		maxRatioValue := float64(maxRatio.Value())
		minQuantityValue := minQuantity.Value()
		maxQuantityValue := maxQuantity.Value()
		if maxRatio.Value() < resource.MaxMilliValue && minQuantityValue < resource.MaxMilliValue && maxQuantityValue < resource.MaxMilliValue {
			maxRatioValue = float64(maxRatio.MilliValue()) / 1000
			minQuantityValue = minQuantity.MilliValue()
			maxQuantityValue = maxQuantity.MilliValue()
		}
		maxRatioLimit := float64(maxQuantityValue) / float64(minQuantityValue)
		if maxRatioValue > maxRatioLimit {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(k), maxRatio, fmt.Sprintf("ratio %s is greater than max/min = %f", maxRatio.String(), maxRatioLimit)))
		}
	}
	// resources that may not overcommit: default and defaultRequest must match
	if !isOvercommitAllowed(v1.ResourceName(k)) && defaultQuantityFound && defaultRequestQuantityFound && defaultQuantity.Cmp(defaultRequestQuantity) != 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(k), defaultRequestQuantity, fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", defaultQuantity.String(), defaultRequestQuantity.String(), k)))
	}
	return allErrs
}

// ValidateLimitRangeUpdate validates an update: the same checks as on create.
func ValidateLimitRangeUpdate(newLimitRange, oldLimitRange *v1.LimitRange) field.ErrorList {
	return ValidateLimitRange(newLimitRange)
}

// --- ResourceQuota ---

var standardQuotaResources = sets.New(
	v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage,
	v1.ResourceRequestsCPU, v1.ResourceRequestsMemory, v1.ResourceRequestsStorage, v1.ResourceRequestsEphemeralStorage,
	v1.ResourceLimitsCPU, v1.ResourceLimitsMemory, v1.ResourceLimitsEphemeralStorage,
	v1.ResourcePods, v1.ResourceQuotas, v1.ResourceServices, v1.ResourceReplicationControllers,
	v1.ResourceSecrets, v1.ResourcePersistentVolumeClaims, v1.ResourceConfigMaps,
	v1.ResourceServicesNodePorts, v1.ResourceServicesLoadBalancers,
)

func isStandardQuotaResourceName(name v1.ResourceName) bool {
	return standardQuotaResources.Has(name) || isQuotaHugePageResourceName(name)
}

var standardResourceQuotaScopes = sets.New(
	v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating,
	v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort,
	v1.ResourceQuotaScopePriorityClass, v1.ResourceQuotaScopeVolumeAttributesClass,
)

func isStandardResourceQuotaScope(scope v1.ResourceQuotaScope) bool {
	return standardResourceQuotaScopes.Has(scope) || scope == v1.ResourceQuotaScopeCrossNamespacePodAffinity
}

var (
	podObjectCountQuotaResources = sets.New(v1.ResourcePods)
	podComputeQuotaResources     = sets.New(v1.ResourceCPU, v1.ResourceMemory, v1.ResourceLimitsCPU, v1.ResourceLimitsMemory,
		v1.ResourceRequestsCPU, v1.ResourceRequestsMemory)
	pvcObjectCountQuotaResources = sets.New(v1.ResourcePersistentVolumeClaims)
	pvcStorageQuotaResources     = sets.New(v1.ResourceRequestsStorage)
)

func isResourceQuotaScopeValidForResource(scope v1.ResourceQuotaScope, resource v1.ResourceName) bool {
	switch scope {
	case v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating, v1.ResourceQuotaScopeNotBestEffort,
		v1.ResourceQuotaScopePriorityClass, v1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return podObjectCountQuotaResources.Has(resource) || podComputeQuotaResources.Has(resource)
	case v1.ResourceQuotaScopeBestEffort:
		return podObjectCountQuotaResources.Has(resource)
	case v1.ResourceQuotaScopeVolumeAttributesClass:
		return pvcObjectCountQuotaResources.Has(resource) || pvcStorageQuotaResources.Has(resource)
	default:
		return true
	}
}

// ValidateResourceQuotaResourceName validates the resource names a quota may hold.
func ValidateResourceQuotaResourceName(value v1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceName(value, fldPath)
	if len(strings.Split(string(value), "/")) == 1 && !isStandardQuotaResourceName(value) {
		return append(allErrs, field.Invalid(fldPath, value, isInvalidQuotaResource))
	}
	return allErrs
}

var invalidScopePairs = []sets.Set[v1.ResourceQuotaScope]{
	sets.New(v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort),
	sets.New(v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating),
}

func validateResourceQuotaScopes(spec *v1.ResourceQuotaSpec, fld *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(spec.Scopes) == 0 {
		return allErrs
	}
	hardLimits := sets.New[v1.ResourceName]()
	for k := range spec.Hard {
		hardLimits.Insert(k)
	}
	fldPath := fld.Child("scopes")
	scopeSet := sets.New[v1.ResourceQuotaScope]()
	for _, scope := range spec.Scopes {
		if !isStandardResourceQuotaScope(scope) {
			allErrs = append(allErrs, field.Invalid(fldPath, spec.Scopes, "unsupported scope"))
		}
		for _, k := range sets.List(hardLimits) {
			if isStandardQuotaResourceName(k) && !isResourceQuotaScopeValidForResource(scope, k) {
				allErrs = append(allErrs, field.Invalid(fldPath, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
		scopeSet.Insert(scope)
	}
	for _, pair := range invalidScopePairs {
		if scopeSet.HasAll(sets.List(pair)...) {
			allErrs = append(allErrs, field.Invalid(fldPath, spec.Scopes, "conflicting scopes"))
		}
	}
	return allErrs
}

func validateScopedResourceSelectorRequirement(spec *v1.ResourceQuotaSpec, fld *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	hardLimits := sets.New[v1.ResourceName]()
	for k := range spec.Hard {
		hardLimits.Insert(k)
	}
	fldPath := fld.Child("matchExpressions")
	scopeSet := sets.New[v1.ResourceQuotaScope]()
	for _, req := range spec.ScopeSelector.MatchExpressions {
		if !isStandardResourceQuotaScope(req.ScopeName) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		for _, k := range sets.List(hardLimits) {
			if isStandardQuotaResourceName(k) && !isResourceQuotaScopeValidForResource(req.ScopeName, k) {
				allErrs = append(allErrs, field.Invalid(fldPath, spec.ScopeSelector, "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort, v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating, v1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != v1.ScopeSelectorOpExists {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case v1.ScopeSelectorOpIn, v1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case v1.ScopeSelectorOpExists, v1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		scopeSet.Insert(req.ScopeName)
	}
	for _, pair := range invalidScopePairs {
		if scopeSet.HasAll(sets.List(pair)...) {
			allErrs = append(allErrs, field.Invalid(fldPath, spec.Scopes, "conflicting scopes"))
		}
	}
	return allErrs
}

// ValidateResourceQuota validates a ResourceQuota on create.
func ValidateResourceQuota(resourceQuota *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMeta(&resourceQuota.ObjectMeta, true, ValidateResourceQuotaName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceQuotaSpec(&resourceQuota.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateResourceQuotaStatusValues(&resourceQuota.Status, field.NewPath("status"))...)
	return allErrs
}

func validateResourceQuotaStatusValues(status *v1.ResourceQuotaStatus, fld *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, part := range []struct {
		name string
		list v1.ResourceList
	}{{"hard", status.Hard}, {"used", status.Used}} {
		fldPath := fld.Child(part.name)
		for k, v := range part.list {
			resPath := fldPath.Key(string(k))
			allErrs = append(allErrs, ValidateResourceQuotaResourceName(k, resPath)...)
			allErrs = append(allErrs, ValidateResourceQuantityValue(k, v, resPath)...)
		}
	}
	return allErrs
}

func validateResourceQuotaSpec(spec *v1.ResourceQuotaSpec, fld *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	fldPath := fld.Child("hard")
	for k, v := range spec.Hard {
		resPath := fldPath.Key(string(k))
		allErrs = append(allErrs, ValidateResourceQuotaResourceName(k, resPath)...)
		allErrs = append(allErrs, ValidateResourceQuantityValue(k, v, resPath)...)
	}
	allErrs = append(allErrs, validateResourceQuotaScopes(spec, fld)...)
	if spec.ScopeSelector != nil {
		allErrs = append(allErrs, validateScopedResourceSelectorRequirement(spec, fld.Child("scopeSelector"))...)
	}
	return allErrs
}

// ValidateResourceQuotaUpdate validates an update: scopes are immutable.
func ValidateResourceQuotaUpdate(newResourceQuota, oldResourceQuota *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newResourceQuota.ObjectMeta, &oldResourceQuota.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceQuotaSpec(&newResourceQuota.Spec, field.NewPath("spec"))...)
	oldScopes := sets.New[string]()
	newScopes := sets.New[string]()
	for _, scope := range newResourceQuota.Spec.Scopes {
		newScopes.Insert(string(scope))
	}
	for _, scope := range oldResourceQuota.Spec.Scopes {
		oldScopes.Insert(string(scope))
	}
	if !oldScopes.Equal(newScopes) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "scopes"), newResourceQuota.Spec.Scopes, fieldImmutableErrorMsg))
	}
	return allErrs
}

// ValidateResourceQuotaStatusUpdate validates an update of /status.
func ValidateResourceQuotaStatusUpdate(newResourceQuota, oldResourceQuota *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newResourceQuota.ObjectMeta, &oldResourceQuota.ObjectMeta, field.NewPath("metadata"))
	if len(newResourceQuota.ResourceVersion) == 0 {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	return append(allErrs, validateResourceQuotaStatusValues(&newResourceQuota.Status, field.NewPath("status"))...)
}
