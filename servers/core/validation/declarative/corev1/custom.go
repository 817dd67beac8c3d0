package corev1

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The two rules below are the +k8s:customValidation tags of EvictionResponder: the generator
// calls them by name after the field's own tags (required, format, minimum, maximum).

// ValidateCustom_EvictionResponder_Name keeps the Kubernetes domains for Kubernetes: a responder
// name whose prefix is k8s.io, kubernetes.io or a subdomain of either is rejected.
func ValidateCustom_EvictionResponder_Name(_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *string) field.ErrorList {
	if value == nil {
		return nil
	}
	domain, _, _ := strings.Cut(*value, "/")
	domain = strings.TrimRight(strings.ToLower(strings.TrimSpace(domain)), ".")
	for _, reserved := range []string{"k8s.io", "kubernetes.io"} {
		if domain == reserved || strings.HasSuffix(domain, "."+reserved) {
			return field.ErrorList{field.Invalid(fldPath, *value, "domain names *.k8s.io, *.kubernetes.io are reserved")}
		}
	}
	return nil
}

// ValidateCustom_EvictionResponder_Priority keeps priorities below 1000 for responders of the
// Kubernetes domains, which users cannot name (see above).
func ValidateCustom_EvictionResponder_Priority(_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *int32) field.ErrorList {
	if value != nil && *value >= 0 && *value < 1000 {
		return field.ErrorList{field.Invalid(fldPath, *value, "priorities 0-999 are reserved for responders with *.k8s.io suffix")}
	}
	return nil
}
