// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/autoscaling/v2

// Package autoscalingv2 holds the declarative validation of autoscaling/v2, generated from k8s.io/api's tags.
package autoscalingv2

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
