package validation

// Name validation functions, as declared in kubernetes v1.37.2
// pkg/apis/core/validation/validation.go, pkg/apis/discovery/validation and
// pkg/apis/coordination/validation.

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
)

// ValidateNameFunc validates that the provided name is valid for a given resource type.
// Prefix is true if the name will have a value appended to it.
type ValidateNameFunc apimachineryvalidation.ValidateNameFunc

// ValidateServiceName can be used to check whether the given service name is valid.
// Note: in v1.37 RelaxedServiceNameValidation is GA, so ValidateService actually
// checks new names with apimachineryvalidation.NameIsDNSLabel, as upstream does.
var ValidateServiceName = apimachineryvalidation.NameIsDNS1035Label

// ValidateNamespaceName can be used to check whether the given namespace name is valid.
var ValidateNamespaceName = apimachineryvalidation.ValidateNamespaceName

// ValidateLimitRangeName can be used to check whether the given limit range name is valid.
var ValidateLimitRangeName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateResourceQuotaName can be used to check whether the given resource quota name is valid.
var ValidateResourceQuotaName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateServiceAccountName can be used to check whether the given service account name is valid.
var ValidateServiceAccountName = apimachineryvalidation.ValidateServiceAccountName

// ValidateEndpointsName can be used to check whether the given endpoints name is valid.
var ValidateEndpointsName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateEndpointSliceName can be used to check whether the given endpoint slice name is valid.
var ValidateEndpointSliceName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateLeaseName is the name check upstream's ValidateLease uses.
var ValidateLeaseName = apimachineryvalidation.NameIsDNSSubdomain
