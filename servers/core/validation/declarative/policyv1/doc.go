// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/policy/v1

// Package policyv1 holds the declarative validation of policy/v1, generated from k8s.io/api's tags.
package policyv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
