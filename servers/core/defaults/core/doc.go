// Package core holds kube-apiserver's defaults for core/v1: one SetDefaults_<Type> function for
// each type that has defaults of its own (Pod, PodSpec, Container, Service, volumes, ...).
//
// zz_generated.defaults.go is written by defaulter-gen (`go generate ./servers/core/defaults`):
// for every top-level kind it walks down to the nested types, calls the functions here where they
// apply, and fills the fields that k8s.io/api marks `+default=` (the RBD pool "rbd", the iSCSI
// interface "default", a ReplicationController's replicas 1, ...). Package defaults registers
// the result on Core's scheme, so that every object decoded from a request is defaulted before
// it is validated and stored.
//
// Defaults that kube-apiserver guards with a feature gate follow v1.37's gates: image volumes
// (ImageVolume) and the HTTP/1.1 protocol of HTTP probes (H2CContainerProbe) are defaulted; the
// pod-level resources (PodLevelResourcesFixDefaulting) are not defaulted here, kube-apiserver
// moved them to the pod strategy.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/core/v1
package core
