// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/events/v1

// Package eventsv1 holds the declarative validation of events/v1, generated from k8s.io/api's tags.
package eventsv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
