// Package scheduling validates the scheduling.k8s.io kind of the Core server: PriorityClass.
//
// It sits in the Core server of the chain: the PriorityClass Definition
// (servers/core/registry/scheduling) calls these functions as its Validate hooks, after the
// request is decoded and defaulted and before the object is stored; a non-empty error list
// becomes kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver
// v1.37.2's, as observed. Nothing is left out; no declarative rule of PriorityClass is enforced.
package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

const (
	// HighestUserPriority is the largest value a class of one's own may have; what lies above
	// is kept for the system classes.
	HighestUserPriority = 1_000_000_000
	// systemPrefix starts the names only the system classes may have.
	systemPrefix = "system-"
)

// SystemClasses are the two classes kube-apiserver creates at start (and the only ones whose
// name may start with "system-"): a new copy on every call.
func SystemClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2*HighestUserPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: 2 * HighestUserPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// ValidatePriorityClass is the rule list of a new PriorityClass.
func ValidatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	return validation.Join(
		validation.Meta(&pc.ObjectMeta, false, validation.SubdomainName, field.NewPath("metadata")),
		value(pc),
		validation.IfSet(field.NewPath("preemptionPolicy"), pc.PreemptionPolicy, func(p *field.Path, v corev1.PreemptionPolicy) field.ErrorList {
			return validation.OneOf(p, v, corev1.PreemptLowerPriority, corev1.PreemptNever)
		}),
	)
}

// value: a "system-" class must be one of SystemClasses exactly; any other stays at or below
// HighestUserPriority.
func value(pc *schedulingv1.PriorityClass) field.ErrorList {
	if !strings.HasPrefix(pc.Name, systemPrefix) {
		return validation.When(pc.Value > HighestUserPriority, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %d", HighestUserPriority)))
	}
	why := pc.Name + " is not a known system priority class"
	for _, sys := range SystemClasses() {
		switch {
		case sys.Name != pc.Name:
			continue
		case sys.Value != pc.Value:
			why = fmt.Sprintf("value of %s PriorityClass must be %d", sys.Name, sys.Value)
		case sys.GlobalDefault != pc.GlobalDefault:
			why = fmt.Sprintf("globalDefault of %s PriorityClass must be %t", sys.Name, sys.GlobalDefault)
		default:
			return nil
		}
	}
	return field.ErrorList{validation.Forbiddenf(field.NewPath("metadata", "name"),
		"priority class names with '%s' prefix are reserved for system use only. error: %s", systemPrefix, why)}
}

// ValidatePriorityClassUpdate is the rule list of an update: the value a class gives its pods
// and whether they preempt others cannot change.
func ValidatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&pc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")),
		validation.When(pc.Value != old.Value, field.Forbidden(field.NewPath("value"), "may not be changed in an update.")),
		validation.Immutable(field.NewPath("preemptionPolicy"), pc.PreemptionPolicy, old.PreemptionPolicy),
	)
}
