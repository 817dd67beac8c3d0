// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/apps/v1

// Package appsv1 holds the declarative validation of apps/v1, generated from k8s.io/api's tags.
package appsv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
