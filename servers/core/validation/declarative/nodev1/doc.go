// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/node/v1

// Package nodev1 holds the declarative validation of node/v1, generated from k8s.io/api's tags.
package nodev1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
