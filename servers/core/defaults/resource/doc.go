// Package resource holds kube-apiserver's defaults for resource.k8s.io/v1, dynamic resource
// allocation: how many devices a request asks for, and when a device taint was added;
// zz_generated.defaults.go (defaulter-gen, see package core) applies them, and the `+default=`
// markers of k8s.io/api (a toleration's operator is Equal).
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/resource/v1
package resource
