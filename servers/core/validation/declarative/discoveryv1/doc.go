// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/discovery/v1

// Package discoveryv1 holds the declarative validation of discovery/v1, generated from k8s.io/api's tags.
package discoveryv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
