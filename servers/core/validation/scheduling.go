package validation

// PriorityClass validation, ported from kubernetes v1.37.2
// pkg/apis/scheduling/validation/validation.go (ValidatePriorityClass*), with
// the system classes of pkg/apis/scheduling/v1/helpers.go and the constants of
// pkg/apis/scheduling/types.go. The declarative rules of
// pkg/apis/scheduling/v1/zz_generated.validations.go for PriorityClass cover
// only ObjectMeta, all alpha, so nothing declarative is enforced.

import (
	"fmt"
	"strings"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// DefaultPriorityWhenNoDefaultClassExists is the priority of pods without a class when no
	// class is the global default.
	DefaultPriorityWhenNoDefaultClassExists = 0
	// HighestUserDefinablePriority is the highest priority of a user-defined class; larger values
	// are reserved for Kubernetes system use.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the beginning of the range of priority values for critical
	// system components.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix is reserved for the system priority classes.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical is the cluster-critical system priority class.
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	// SystemNodeCritical is the node-critical system priority class.
	SystemNodeCritical = SystemPriorityClassPrefix + "node-critical"
)

var systemPriorityClasses = []*schedulingv1.PriorityClass{
	{
		ObjectMeta:  metav1.ObjectMeta{Name: SystemNodeCritical},
		Value:       SystemCriticalPriority + 1000,
		Description: "Used for system critical pods that must not be moved from their current node.",
	},
	{
		ObjectMeta:  metav1.ObjectMeta{Name: SystemClusterCritical},
		Value:       SystemCriticalPriority,
		Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
	},
}

// SystemPriorityClasses returns a deep copy of the system priority classes, which
// kube-apiserver creates at start.
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	out := make([]*schedulingv1.PriorityClass, 0, len(systemPriorityClasses))
	for _, c := range systemPriorityClasses {
		out = append(out, c.DeepCopy())
	}
	return out
}

// IsKnownSystemPriorityClass returns true if one of the system priority classes matches name,
// value and globalDefault exactly; otherwise it returns an error saying what differs.
func IsKnownSystemPriorityClass(name string, value int32, globalDefault bool) (bool, error) {
	for _, spc := range systemPriorityClasses {
		if spc.Name == name {
			if spc.Value != value {
				return false, fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
			}
			if spc.GlobalDefault != globalDefault {
				return false, fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
			}
			return true, nil
		}
	}
	return false, fmt.Errorf("%v is not a known system priority class", name)
}

// ValidatePriorityClass validates a PriorityClass on create.
func ValidatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateObjectMeta(&pc.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	// If the priorityClass starts with a system prefix, it must be one of the
	// predefined system priority classes.
	if strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
		if is, err := IsKnownSystemPriorityClass(pc.Name, pc.Value, pc.GlobalDefault); !is {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		// Non-system critical priority classes are not allowed to have a value larger than HighestUserDefinablePriority.
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		allErrs = append(allErrs, validatePreemptionPolicy(pc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return allErrs
}

// ValidatePriorityClassUpdate validates an update: value and preemptionPolicy are immutable.
func ValidatePriorityClassUpdate(pc, oldPc *schedulingv1.PriorityClass) field.ErrorList {
	// name is immutable and is checked by the ObjectMeta validator.
	allErrs := ValidateObjectMetaUpdate(&pc.ObjectMeta, &oldPc.ObjectMeta, field.NewPath("metadata"))
	// value is immutable.
	if pc.Value != oldPc.Value {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	// preemptionPolicy is immutable.
	allErrs = append(allErrs, ValidateImmutableField(pc.PreemptionPolicy, oldPc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	return allErrs
}
