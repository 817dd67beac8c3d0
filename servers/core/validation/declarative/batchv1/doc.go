// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/batch/v1

// Package batchv1 holds the declarative validation of batch/v1, generated from k8s.io/api's tags.
package batchv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
