// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/storagemigration/v1

// Package storagemigrationv1 holds the declarative validation of storagemigration/v1, generated from k8s.io/api's tags.
package storagemigrationv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
