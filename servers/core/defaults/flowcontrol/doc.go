// Package flowcontrol holds kube-apiserver's defaults for flowcontrol.apiserver.k8s.io/v1
// FlowSchemas and PriorityLevelConfigurations (API Priority and Fairness);
// zz_generated.defaults.go (defaulter-gen, see package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/flowcontrol/v1
package flowcontrol
