// Package autoscaling holds kube-apiserver's defaults for autoscaling/v2
// HorizontalPodAutoscalers; zz_generated.defaults.go (defaulter-gen, see package core) applies
// them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/autoscaling/v2
package autoscaling
