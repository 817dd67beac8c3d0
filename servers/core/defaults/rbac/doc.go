// Package rbac holds kube-apiserver's defaults for rbac.authorization.k8s.io/v1 bindings: the
// API group of a roleRef and of a user or group subject may be left out.
// zz_generated.defaults.go (defaulter-gen, see package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/rbac/v1
package rbac
