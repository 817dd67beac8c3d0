// Package admissionregistration holds kube-apiserver's defaults for admissionregistration.k8s.io/v1:
// webhook configurations, admission policies and their bindings. zz_generated.defaults.go
// (defaulter-gen, see package core) applies them to every webhook, rule and match of an object.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/admissionregistration/v1
package admissionregistration
