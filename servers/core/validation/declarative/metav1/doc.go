// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/apimachinery/pkg/apis/meta/v1
// +k8s:validation-gen-scheme-registry=nil

// Package metav1 holds the declarative validation of the meta/v1 types every object embeds
// (ObjectMeta, OwnerReference, Condition...), generated from k8s.io/apimachinery's tags. The
// group packages beside it call these functions; nothing here is registered on a scheme.
package metav1
