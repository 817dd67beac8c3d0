// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/networking/v1

// Package networkingv1 holds the declarative validation of networking/v1, generated from k8s.io/api's tags.
package networkingv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
