// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/storage/v1

// Package storagev1 holds the declarative validation of storage/v1, generated from k8s.io/api's tags.
package storagev1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
