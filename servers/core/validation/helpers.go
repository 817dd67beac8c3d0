package validation

// Shared helpers ported from kubernetes v1.37.2
// pkg/apis/core/validation/validation.go and pkg/apis/core/helper/helpers.go.

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const isNegativeErrorMsg string = apimachineryvalidation.IsNegativeErrorMsg
const isInvalidQuotaResource string = `must be a standard resource for quota`
const fieldImmutableErrorMsg string = apimachineryvalidation.FieldImmutableErrorMsg
const isNotIntegerErrorMsg string = `must be an integer`
const isNotPositiveErrorMsg string = `must be greater than zero`

var pdPartitionErrorMsg string = validation.InclusiveRangeError(1, 255)
var fileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive"
var emptyDirModeErrorMsg = "must be a number between 0 and 01777 (octal), both inclusive"

// strictIPCIDRValidation is the v1.37 default of the StrictIPCIDRValidation gate (beta, on).
const strictIPCIDRValidation = true

// ValidateAnnotations validates that a set of annotations are correctly defined.
func ValidateAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateAnnotations(annotations, fldPath)
}

// ValidateDNS1123Label validates that value is an RFC 1123 label.
func ValidateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, msg := range validation.IsDNS1123Label(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg).WithOrigin("format=k8s-short-name"))
	}
	return allErrs
}

// ValidateQualifiedName validates if name is what Kubernetes calls a "qualified name".
func ValidateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, msg := range validation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg).WithOrigin("format=qualified-name"))
	}
	return allErrs
}

// ValidateDNS1123SubdomainWithUnderScore validates that a name is a proper DNS subdomain but allows for an underscore in the string
func ValidateDNS1123SubdomainWithUnderScore(value string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, msg := range validation.IsDNS1123SubdomainWithUnderscore(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg).WithOrigin("format=k8s-dns-subdomain-with-underscore"))
	}
	return allErrs
}

// ValidateDNS1123Subdomain validates that a name is a proper DNS subdomain.
func ValidateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for _, msg := range validation.IsDNS1123Subdomain(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg).WithOrigin("format=k8s-long-name"))
	}
	return allErrs
}

// ValidateNonnegativeField validates that given value is not negative.
func ValidateNonnegativeField(value int64, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(value, fldPath)
}

// ValidateNonnegativeQuantity validates that a Quantity is not negative.
func ValidateNonnegativeQuantity(value resource.Quantity, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if value.Cmp(resource.Quantity{}) < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, value.String(), isNegativeErrorMsg))
	}
	return allErrs
}

// ValidatePositiveField validates that given value is positive.
func ValidatePositiveField(value int64, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if value <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, value, isNotPositiveErrorMsg).WithOrigin("minimum"))
	}
	return allErrs
}

// ValidateImmutableField validates that newVal equals oldVal.
func ValidateImmutableField(newVal, oldVal interface{}, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateImmutableField(newVal, oldVal, fldPath)
}

// ValidateObjectMeta validates an object's metadata on creation, plus the
// additional finalizer-name check kube's core validation adds.
func ValidateObjectMeta(meta *metav1.ObjectMeta, requiresNamespace bool, nameFn ValidateNameFunc, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(meta, requiresNamespace, apimachineryvalidation.ValidateNameFunc(nameFn), fldPath)
	// run additional checks for the finalizer name
	for i := range meta.Finalizers {
		allErrs = append(allErrs, validateKubeFinalizerName(string(meta.Finalizers[i]), fldPath.Child("finalizers").Index(i))...)
	}
	return allErrs
}

// ValidateObjectMetaUpdate validates an object's metadata when updated.
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(newMeta, oldMeta, fldPath)
	// run additional checks for the finalizer name
	for i := range newMeta.Finalizers {
		allErrs = append(allErrs, validateKubeFinalizerName(string(newMeta.Finalizers[i]), fldPath.Child("finalizers").Index(i))...)
	}
	return allErrs
}

// validateFinalizerName validates a namespace spec finalizer name.
func validateFinalizerName(stringValue string, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateFinalizerName(stringValue, fldPath)
	allErrs = append(allErrs, validateKubeFinalizerName(stringValue, fldPath)...)
	return allErrs
}

var standardFinalizers = sets.New(
	string(v1.FinalizerKubernetes),
	metav1.FinalizerOrphanDependents,
	metav1.FinalizerDeleteDependents,
)

// validateKubeFinalizerName checks for "standard" names of legacy finalizer
func validateKubeFinalizerName(stringValue string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(strings.Split(stringValue, "/")) == 1 {
		if !standardFinalizers.Has(stringValue) {
			return append(allErrs, field.Invalid(fldPath, stringValue, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return allErrs
}

// IsValidIPForLegacyField validates a legacy IP field (StrictIPCIDRValidation on in v1.37).
func IsValidIPForLegacyField(fldPath *field.Path, value string, validOldIPs []string) field.ErrorList {
	return validation.IsValidIPForLegacyField(fldPath, value, strictIPCIDRValidation, validOldIPs)
}

// IsValidCIDRForLegacyField validates a legacy CIDR field (StrictIPCIDRValidation on in v1.37).
func IsValidCIDRForLegacyField(fldPath *field.Path, value string, validOldCIDRs []string) field.ErrorList {
	return validation.IsValidCIDRForLegacyField(fldPath, value, strictIPCIDRValidation, validOldCIDRs)
}

// --- resource name helpers (pkg/apis/core/helper) ---

func isHugePageResourceName(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

func isQuotaHugePageResourceName(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) || strings.HasPrefix(string(name), "requests.hugepages-")
}

func hugePageSizeFromResourceName(name v1.ResourceName) (resource.Quantity, error) {
	if !isHugePageResourceName(name) {
		return resource.Quantity{}, fmt.Errorf("resource name: %s is an invalid hugepage name", name)
	}
	pageSize := strings.TrimPrefix(string(name), v1.ResourceHugePagesPrefix)
	return resource.ParseQuantity(pageSize)
}

func isHugePageResourceValueDivisible(name v1.ResourceName, quantity resource.Quantity) bool {
	pageSize, err := hugePageSizeFromResourceName(name)
	if err != nil {
		return false
	}
	if pageSize.Sign() <= 0 || pageSize.MilliValue()%int64(1000) != int64(0) {
		return false
	}
	return quantity.Value()%pageSize.Value() == 0
}

var standardContainerResources = sets.New(v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage)

func isStandardContainerResourceName(name v1.ResourceName) bool {
	return standardContainerResources.Has(name) || isHugePageResourceName(name)
}

func isExtendedResourceName(name v1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), v1.DefaultResourceRequestsPrefix) {
		return false
	}
	// Ensure it satisfies the rules in IsQualifiedName() after converted into quota resource name
	nameForQuota := fmt.Sprintf("%s%s", v1.DefaultResourceRequestsPrefix, string(name))
	if errs := validation.IsQualifiedName(nameForQuota); len(errs) != 0 {
		return false
	}
	return true
}

func isNativeResource(name v1.ResourceName) bool {
	return !strings.Contains(string(name), "/") ||
		strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
}

func isOvercommitAllowed(name v1.ResourceName) bool {
	return isNativeResource(name) && !isHugePageResourceName(name)
}

var standardResources = sets.New(
	v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage,
	v1.ResourceRequestsCPU, v1.ResourceRequestsMemory, v1.ResourceRequestsEphemeralStorage,
	v1.ResourceLimitsCPU, v1.ResourceLimitsMemory, v1.ResourceLimitsEphemeralStorage,
	v1.ResourcePods, v1.ResourceQuotas, v1.ResourceServices, v1.ResourceReplicationControllers,
	v1.ResourceSecrets, v1.ResourceConfigMaps, v1.ResourcePersistentVolumeClaims,
	v1.ResourceStorage, v1.ResourceRequestsStorage,
	v1.ResourceServicesNodePorts, v1.ResourceServicesLoadBalancers,
)

func isStandardResourceName(name v1.ResourceName) bool {
	return standardResources.Has(name) || isQuotaHugePageResourceName(name)
}

var integerResources = sets.New(
	v1.ResourcePods, v1.ResourceQuotas, v1.ResourceServices, v1.ResourceReplicationControllers,
	v1.ResourceSecrets, v1.ResourceConfigMaps, v1.ResourcePersistentVolumeClaims,
	v1.ResourceServicesNodePorts, v1.ResourceServicesLoadBalancers,
)

func isIntegerResourceName(name v1.ResourceName) bool {
	return integerResources.Has(name) || isExtendedResourceName(name)
}

// ValidateResourceQuantityValue enforces that specified quantity is valid for specified resource
func ValidateResourceQuantityValue(resource v1.ResourceName, value resource.Quantity, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateNonnegativeQuantity(value, fldPath)...)
	if isIntegerResourceName(resource) {
		if value.MilliValue()%int64(1000) != int64(0) {
			allErrs = append(allErrs, field.Invalid(fldPath, value, isNotIntegerErrorMsg))
		}
	}
	return allErrs
}

// --- Leftovers of the replaced core/v1 kinds, still used by the kinds not yet rewritten. ---

// podTemplateValidationOptions is GetValidationOptionsFromPodTemplate: the pod options without
// ResourceIsPod.
func podTemplateValidationOptions(template, oldTemplate *v1.PodTemplateSpec) podValidationOptions {
	var spec, oldSpec *v1.PodSpec
	var meta, oldMeta *metav1.ObjectMeta
	// we have to be careful about nil pointers here
	// replication controller in particular is prone to passing nil
	if template != nil {
		spec, meta = &template.Spec, &template.ObjectMeta
	}
	if oldTemplate != nil {
		oldSpec, oldMeta = &oldTemplate.Spec, &oldTemplate.ObjectMeta
	}
	if spec == nil {
		spec = &v1.PodSpec{}
	}
	opts := podValidationOptionsFor(spec, oldSpec, meta, oldMeta)
	opts.ResourceIsPod = false
	return opts
}

// validatePodTemplateSpec validates the spec of a pod template (upstream's ValidatePodTemplateSpec).
func validatePodTemplateSpec(spec *v1.PodTemplateSpec, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, unversionedvalidation.ValidateLabels(spec.Labels, fldPath.Child("labels"))...)
	allErrs = append(allErrs, ValidateAnnotations(spec.Annotations, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, validatePodSpecificAnnotations(spec.Annotations, &spec.Spec, fldPath.Child("annotations"), opts)...)
	allErrs = append(allErrs, validatePodSpec(&spec.Spec, nil, fldPath.Child("spec"), opts)...)
	allErrs = append(allErrs, validateSeccompAnnotationsAndFields(spec.ObjectMeta, &spec.Spec, fldPath.Child("spec"))...)
	allErrs = append(allErrs, validateAppArmorAnnotationsAndFieldsMatchOnCreate(spec.ObjectMeta, &spec.Spec, fldPath.Child("spec"))...)

	if len(spec.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return allErrs
}

// validateHasLabel requires that metav1.ObjectMeta has a Label with key and expectedValue.
func validateHasLabel(meta metav1.ObjectMeta, fldPath *field.Path, key, expectedValue string) field.ErrorList {
	allErrs := field.ErrorList{}
	actualValue, found := meta.Labels[key]
	if !found {
		allErrs = append(allErrs, field.Required(fldPath.Child("labels").Key(key), ""))
		return allErrs
	}
	if actualValue != expectedValue {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("labels").Key(key), meta.Labels, fmt.Sprintf("must be '%s'", expectedValue)))
	}
	return allErrs
}

// validateImmutableInternal is ValidateImmutableField for struct values, rendered like
// upstream's internal types.
func validateImmutableInternal(newVal, oldVal interface{}, fldPath *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(oldVal, newVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, internal(newVal), "field is immutable").WithOrigin("immutable")}
}

var supportedPortProtocols = sets.New(
	v1.ProtocolTCP,
	v1.ProtocolUDP,
	v1.ProtocolSCTP)

func validateTaintEffect(effect *v1.TaintEffect, allowEmpty bool, fldPath *field.Path) field.ErrorList {
	if !allowEmpty && len(*effect) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}

	allErrors := field.ErrorList{}
	switch *effect {
	// TODO: Replace next line with subsequent commented-out line when implement TaintEffectNoScheduleNoAdmit.
	case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
	default:
		validValues := []v1.TaintEffect{
			v1.TaintEffectNoSchedule,
			v1.TaintEffectPreferNoSchedule,
			v1.TaintEffectNoExecute,
		}
		allErrors = append(allErrors, field.NotSupported(fldPath, *effect, validValues))
	}
	return allErrors
}
