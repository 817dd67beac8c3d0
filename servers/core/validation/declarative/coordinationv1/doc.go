// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/coordination/v1

// Package coordinationv1 holds the declarative validation of coordination/v1, generated from k8s.io/api's tags.
package coordinationv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
