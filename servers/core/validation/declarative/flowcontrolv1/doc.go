// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/flowcontrol/v1

// Package flowcontrolv1 holds the declarative validation of flowcontrol/v1, generated from k8s.io/api's tags.
package flowcontrolv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
