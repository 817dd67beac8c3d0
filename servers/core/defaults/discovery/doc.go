// Package discovery holds kube-apiserver's defaults for discovery.k8s.io/v1 EndpointSlices;
// zz_generated.defaults.go (defaulter-gen, see package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/discovery/v1
package discovery
