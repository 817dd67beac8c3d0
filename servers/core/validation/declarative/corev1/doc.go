// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/core/v1

// Package corev1 holds the declarative validation of core/v1, generated from k8s.io/api's tags.
package corev1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
