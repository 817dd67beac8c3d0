// Package apps holds kube-apiserver's defaults for apps/v1 Deployments, StatefulSets,
// DaemonSets and ReplicaSets. zz_generated.defaults.go (defaulter-gen, see package core) calls
// them and then defaults each pod template with package core's functions.
//
// StatefulSet's rollingUpdate.maxUnavailable is defaulted: MaxUnavailableStatefulSet is beta,
// and on, in v1.37.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/apps/v1
package apps
