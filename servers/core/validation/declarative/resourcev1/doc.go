// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/resource/v1

// Package resourcev1 holds the declarative validation of resource/v1, generated from k8s.io/api's tags.
package resourcev1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
