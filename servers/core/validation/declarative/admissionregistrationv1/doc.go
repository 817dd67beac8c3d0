// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/admissionregistration/v1

// Package admissionregistrationv1 holds the declarative validation of admissionregistration/v1, generated from k8s.io/api's tags.
package admissionregistrationv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
