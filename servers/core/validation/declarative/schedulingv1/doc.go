// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/scheduling/v1

// Package schedulingv1 holds the declarative validation of scheduling/v1, generated from k8s.io/api's tags.
package schedulingv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
