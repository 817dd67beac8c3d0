// Package networking holds kube-apiserver's defaults for networking.k8s.io/v1 NetworkPolicies
// and IngressClasses (Ingresses have none); zz_generated.defaults.go (defaulter-gen, see package
// core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/networking/v1
package networking
