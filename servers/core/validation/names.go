package validation

// Name validation functions, as declared in kubernetes v1.37.2
// pkg/apis/core/validation/validation.go, pkg/apis/discovery/validation and
// pkg/apis/coordination/validation.

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateNameFunc validates that the provided name is valid for a given resource type.
// Prefix is true if the name will have a value appended to it.
type ValidateNameFunc apimachineryvalidation.ValidateNameFunc

// ValidateServiceName can be used to check whether the given service name is valid.
// Note: in v1.37 RelaxedServiceNameValidation is GA, so ValidateService actually
// checks new names with apimachineryvalidation.NameIsDNSLabel, as upstream does.
var ValidateServiceName = apimachineryvalidation.NameIsDNS1035Label

// ValidateNodeName can be used to check whether the given node name is valid.
var ValidateNodeName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateNamespaceName can be used to check whether the given namespace name is valid.
var ValidateNamespaceName = apimachineryvalidation.ValidateNamespaceName

// ValidateLimitRangeName can be used to check whether the given limit range name is valid.
var ValidateLimitRangeName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateResourceQuotaName can be used to check whether the given resource quota name is valid.
var ValidateResourceQuotaName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateSecretName can be used to check whether the given secret name is valid.
var ValidateSecretName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateServiceAccountName can be used to check whether the given service account name is valid.
var ValidateServiceAccountName = apimachineryvalidation.ValidateServiceAccountName

// ValidateEndpointsName can be used to check whether the given endpoints name is valid.
var ValidateEndpointsName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateConfigMapName can be used to check whether the given ConfigMap name is valid.
var ValidateConfigMapName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateClassName can be used to check whether the given class name is valid.
var ValidateClassName = apimachineryvalidation.NameIsDNSSubdomain

// ValidatePriorityClassName can be used to check whether the given priority class name is valid.
var ValidatePriorityClassName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateResourceClaimName can be used to check whether the given name for a ResourceClaim is valid.
var ValidateResourceClaimName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateResourceClaimTemplateName can be used to check whether the given name for a ResourceClaimTemplate is valid.
var ValidateResourceClaimTemplateName = apimachineryvalidation.NameIsDNSSubdomain

// ValidatePodGroupName can be used to check whether the given name for a PodGroup is valid.
var ValidatePodGroupName = apimachineryvalidation.NameIsDNSSubdomain

// ValidatePersistentVolumeName can be used to check whether the given PersistentVolume name is valid.
var ValidatePersistentVolumeName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateEndpointSliceName can be used to check whether the given endpoint slice name is valid.
var ValidateEndpointSliceName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateLeaseName is the name check upstream's ValidateLease uses.
var ValidateLeaseName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateRuntimeClassName can be used to check whether the given RuntimeClass name is valid.
func ValidateRuntimeClassName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}
