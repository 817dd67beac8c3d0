// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/autoscaling/v1

// Package autoscalingv1 holds the declarative validation of autoscaling/v1, generated from k8s.io/api's tags.
package autoscalingv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
