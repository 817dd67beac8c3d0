// Package scheduling holds kube-apiserver's defaults for scheduling.k8s.io/v1 PriorityClasses;
// zz_generated.defaults.go (defaulter-gen, see package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/scheduling/v1
package scheduling
