// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/certificates/v1

// Package certificatesv1 holds the declarative validation of certificates/v1, generated from k8s.io/api's tags.
package certificatesv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
