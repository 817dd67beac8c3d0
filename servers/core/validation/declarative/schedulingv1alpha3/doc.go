// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-input=k8s.io/api/scheduling/v1alpha3
// +k8s:validation-gen-scheme-registry=nil

// Package schedulingv1alpha3 holds the declarative validation of scheduling/v1alpha3, generated
// from k8s.io/api's tags. Core does not serve the group; batch/v1 Jobs embed its scheduling
// policy, and batchv1 calls these functions.
package schedulingv1alpha3
