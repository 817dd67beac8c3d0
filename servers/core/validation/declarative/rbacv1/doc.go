// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/rbac/v1

// Package rbacv1 holds the declarative validation of rbac/v1, generated from k8s.io/api's tags.
package rbacv1

import "github.com/apichain/apichain/servers/core/validation/declarative/discard"

var localSchemeBuilder discard.Builder
