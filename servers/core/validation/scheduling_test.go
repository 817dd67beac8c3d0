package validation

// Table tests for PriorityClass validation; cases and messages follow kubernetes v1.37.2
// pkg/apis/scheduling/validation/validation_test.go (TestValidatePriorityClass,
// TestValidatePriorityClassUpdate).

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults"
)

func priorityClass(name string, value int32, mutate ...func(*schedulingv1.PriorityClass)) *schedulingv1.PriorityClass {
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"}, Value: value}
	for _, m := range mutate {
		m(pc)
	}
	defaults.SetObjectDefaults_PriorityClass(pc)
	return pc
}

func TestValidatePriorityClass(t *testing.T) {
	cases := []struct {
		name string
		pc   *schedulingv1.PriorityClass
		want []string
	}{
		{"valid", priorityClass("tier1", 100), nil},
		{"valid system class", priorityClass(SystemNodeCritical, SystemCriticalPriority+1000), nil},
		{"preempt never", priorityClass("tier1", 100, func(pc *schedulingv1.PriorityClass) { pc.PreemptionPolicy = ptr.To(v1.PreemptNever) }), nil},
		{"invalid name", priorityClass("Bad_Name", 100), []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"namespace set", priorityClass("tier1", 100, func(pc *schedulingv1.PriorityClass) { pc.Namespace = "foo" }), []string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"reserved prefix", priorityClass("system-foo", 100), []string{`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class`}},
		{"system class with wrong value", priorityClass(SystemClusterCritical, 100), []string{`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000`}},
		{"system class made default", priorityClass(SystemClusterCritical, SystemCriticalPriority, func(pc *schedulingv1.PriorityClass) { pc.GlobalDefault = true }),
			[]string{`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false`}},
		{"too high", priorityClass("tier1", HighestUserDefinablePriority+1), []string{`value: Forbidden: maximum allowed value of a user defined priority is 1000000000`}},
		{"bad preemption policy", priorityClass("tier1", 100, func(pc *schedulingv1.PriorityClass) { pc.PreemptionPolicy = ptr.To(v1.PreemptionPolicy("Sometimes")) }),
			[]string{`preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidatePriorityClass(tc.pc), tc.want)
	}
}

func TestValidatePriorityClassUpdate(t *testing.T) {
	old := priorityClass("tier1", 100)
	cases := []struct {
		name   string
		mutate func(*schedulingv1.PriorityClass)
		want   []string
	}{
		{"description and default may change", func(pc *schedulingv1.PriorityClass) { pc.Description = "x"; pc.GlobalDefault = true }, nil},
		{"value is immutable", func(pc *schedulingv1.PriorityClass) { pc.Value = 101 }, []string{`value: Forbidden: may not be changed in an update.`}},
		{"preemption policy is immutable", func(pc *schedulingv1.PriorityClass) { pc.PreemptionPolicy = ptr.To(v1.PreemptNever) },
			[]string{`preemptionPolicy: Invalid value: "Never": field is immutable`}},
		{"name is immutable", func(pc *schedulingv1.PriorityClass) { pc.Name = "tier2" }, []string{`metadata.name: Invalid value: "tier2": field is immutable`}},
	}
	for _, tc := range cases {
		pc := old.DeepCopy()
		tc.mutate(pc)
		expectErrors(t, tc.name, ValidatePriorityClassUpdate(pc, old), tc.want)
	}
}

func TestSystemPriorityClasses(t *testing.T) {
	for _, pc := range SystemPriorityClasses() {
		defaults.SetObjectDefaults_PriorityClass(pc)
		expectErrors(t, pc.Name, ValidatePriorityClass(pc), nil)
	}
	if len(SystemPriorityClasses()) != 2 {
		t.Errorf("want 2 system priority classes")
	}
}
