// Package declarative is the root of Core's declarative validation: the rules k8s.io/api and
// k8s.io/apimachinery write as `+k8s:` tags on their types (+k8s:required, +k8s:format,
// +k8s:immutable, +k8s:maxItems, unions, ...), turned into Go by validation-gen from
// k8s.io/code-generator, one package per group version (corev1, appsv1, ...), as kube-apiserver
// generates them into k8s.io/kubernetes/pkg/apis/<group>/<version>.
//
// AddToScheme puts every group package's functions on Core's scheme (servers/core/scheme.go);
// k8s.io/apiserver runs them on every create and update and merges them with the handwritten
// rules of servers/core/validation (see that package's doc).
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

//go:generate go tool validation-gen --output-file zz_generated.validations.go --go-header-file ../../../../hack/boilerplate.go.txt --readonly-pkg k8s.io/apimachinery/pkg/types --readonly-pkg k8s.io/apimachinery/pkg/api/resource --readonly-pkg k8s.io/apimachinery/pkg/util/intstr --readonly-pkg k8s.io/apimachinery/pkg/runtime --readonly-pkg time ./metav1 ./corev1 ./admissionregistrationv1 ./appsv1 ./autoscalingv1 ./autoscalingv2 ./batchv1 ./certificatesv1 ./coordinationv1 ./discoveryv1 ./eventsv1 ./networkingv1 ./policyv1 ./rbacv1 ./schedulingv1 ./schedulingv1alpha3 ./storagev1 ./flowcontrolv1 ./nodev1 ./resourcev1 ./storagemigrationv1

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/validation/declarative/admissionregistrationv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/appsv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/autoscalingv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/autoscalingv2"
	"github.com/apichain/apichain/servers/core/validation/declarative/batchv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/certificatesv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/coordinationv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/corev1"
	"github.com/apichain/apichain/servers/core/validation/declarative/discoveryv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/eventsv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/flowcontrolv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/networkingv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/nodev1"
	"github.com/apichain/apichain/servers/core/validation/declarative/policyv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/rbacv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/resourcev1"
	"github.com/apichain/apichain/servers/core/validation/declarative/schedulingv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/storagemigrationv1"
	"github.com/apichain/apichain/servers/core/validation/declarative/storagev1"
)

// AddToScheme registers the generated validation of every group version Core serves on
// scheme, where k8s.io/apiserver finds it by the Go type of the object a request converts to.
func AddToScheme(scheme *runtime.Scheme) error {
	for _, register := range []func(*runtime.Scheme) error{
		corev1.RegisterValidations,
		admissionregistrationv1.RegisterValidations,
		appsv1.RegisterValidations,
		autoscalingv1.RegisterValidations,
		autoscalingv2.RegisterValidations,
		batchv1.RegisterValidations,
		certificatesv1.RegisterValidations,
		coordinationv1.RegisterValidations,
		discoveryv1.RegisterValidations,
		eventsv1.RegisterValidations,
		networkingv1.RegisterValidations,
		policyv1.RegisterValidations,
		rbacv1.RegisterValidations,
		schedulingv1.RegisterValidations,
		storagev1.RegisterValidations,
		resourcev1.RegisterValidations,
		storagemigrationv1.RegisterValidations,
		flowcontrolv1.RegisterValidations,
		nodev1.RegisterValidations,
	} {
		if err := register(scheme); err != nil {
			return err
		}
	}
	return nil
}

// Options are the options the generated rules test (+k8s:ifEnabled(X)=..., +k8s:ifDisabled(X)=...):
// kube-apiserver's feature gates of those names, at their v1.37 defaults. A rule that tests an
// option missing here fails as an internal error. kube-apiserver gives each kind only the ones
// its own rules test; giving every kind all of them answers the same.
func Options() map[string]bool {
	return map[string]bool{
		"HPAScaleToZero":  true,  // beta: spec.minReplicas of HorizontalPodAutoscalers may be 0
		"WorkloadWithJob": false, // alpha: Job spec.scheduling (dropped on write while off)
		"InPlacePodVerticalScalingSchedulerPreemption": false, // alpha: Node spec.podPreemptionPolicy (dropped too)
		"DRAPartitionableDevicesType":                  false, // alpha: ResourceSlice spec.partitionTypeAttribute (dropped too)
	}
}
