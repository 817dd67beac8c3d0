// Package declarative is the root of Core's declarative validation: the rules k8s.io/api and
// k8s.io/apimachinery write as `+k8s:` tags on their types (+k8s:required, +k8s:format,
// +k8s:immutable, +k8s:maxItems, unions, ...), turned into Go by validation-gen from
// k8s.io/code-generator, one package per group version (corev1, appsv1, ...), as kube-apiserver
// generates them into k8s.io/kubernetes/pkg/apis/<group>/<version>.
//
// Each group package's RegisterValidations puts its functions on Core's scheme
// (servers/core/scheme.go); k8s.io/apiserver runs them on every create and update and merges
// them with the handwritten rules of servers/core/validation (see that package's doc).
// metav1 and schedulingv1alpha3 are only called by the others: the first for the metadata every
// object has, the second for the scheduling policy a batch/v1 Job embeds.
//
// The few `+k8s:customValidation` tags name a function the generator cannot write; those are
// ours, in custom.go beside the generated file. Regenerate after a k8s.io/api upgrade or after
// adding a group (a package here with a doc.go like corev1's, and its path below); a test fails
// while a generated file is stale:
//
//	go generate ./servers/core/validation/declarative
package declarative

//go:generate go tool validation-gen --output-file zz_generated.validations.go --go-header-file ../../../../hack/boilerplate.go.txt --readonly-pkg k8s.io/apimachinery/pkg/types --readonly-pkg k8s.io/apimachinery/pkg/api/resource --readonly-pkg k8s.io/apimachinery/pkg/util/intstr --readonly-pkg k8s.io/apimachinery/pkg/runtime --readonly-pkg time ./metav1 ./corev1 ./admissionregistrationv1 ./appsv1 ./autoscalingv1 ./autoscalingv2 ./batchv1 ./certificatesv1 ./coordinationv1 ./discoveryv1 ./eventsv1 ./networkingv1 ./policyv1 ./rbacv1 ./schedulingv1 ./schedulingv1alpha3 ./storagev1

import "k8s.io/apimachinery/pkg/runtime"

// Discard is the localSchemeBuilder of every generated package. The generated code registers
// itself from an init(), as upstream's does into its package's global scheme builder; Core has no
// global scheme, so that registration goes nowhere, and servers/core/scheme.go calls each
// package's RegisterValidations on the scheme it builds.
type Discard struct{}

// Register drops the generated init()'s registration.
func (Discard) Register(...func(*runtime.Scheme) error) {}
