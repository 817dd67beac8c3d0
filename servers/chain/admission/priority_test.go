package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/utils/ptr"
)

func priorityClass(name string, value int32, globalDefault bool, policy corev1.PreemptionPolicy) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: globalDefault, PreemptionPolicy: &policy}
}

var (
	batchLow    = priorityClass("batch-low", 100, true, corev1.PreemptLowerPriority)
	batchLower  = priorityClass("batch-lower", 50, true, corev1.PreemptLowerPriority) // a second default, by a race
	serving     = priorityClass("serving", 5000, false, corev1.PreemptLowerPriority)
	opportunist = priorityClass("opportunist", 10, false, corev1.PreemptNever)
)

func priorityPlugin(classes ...*schedulingv1.PriorityClass) *Priority {
	return NewPriority(schedulingv1listers.NewPriorityClassLister(indexer(classes...)))
}

// TestPriorityOfNewPods: what a new pod's priority fields become, or why it is refused.
func TestPriorityOfNewPods(t *testing.T) {
	type want struct {
		class    string
		priority int32
		policy   corev1.PreemptionPolicy
	}
	for _, tc := range []struct {
		name    string
		classes []*schedulingv1.PriorityClass
		class   string
		set     func(*corev1.PodSpec)
		want    want
		err     string
	}{
		{name: "named class", classes: []*schedulingv1.PriorityClass{batchLow, serving}, class: "serving",
			want: want{"serving", 5000, corev1.PreemptLowerPriority}},
		{name: "no class: the default", classes: []*schedulingv1.PriorityClass{batchLow, serving},
			want: want{"batch-low", 100, corev1.PreemptLowerPriority}},
		{name: "no class, two defaults: the lower", classes: []*schedulingv1.PriorityClass{batchLow, batchLower},
			want: want{"batch-lower", 50, corev1.PreemptLowerPriority}},
		{name: "no class, no default: zero", classes: []*schedulingv1.PriorityClass{serving},
			want: want{"", 0, corev1.PreemptLowerPriority}},
		{name: "a class that never preempts", classes: []*schedulingv1.PriorityClass{opportunist}, class: "opportunist",
			want: want{"opportunist", 10, corev1.PreemptNever}},
		{name: "the priority the class gives may be set", classes: []*schedulingv1.PriorityClass{serving}, class: "serving",
			set: func(s *corev1.PodSpec) { s.Priority = ptr.To[int32](5000) }, want: want{"serving", 5000, corev1.PreemptLowerPriority}},
		{name: "unknown class", class: "gold",
			err: `pods "api-0" is forbidden: no PriorityClass with name gold was found`},
		{name: "another priority", classes: []*schedulingv1.PriorityClass{serving}, class: "serving",
			set: func(s *corev1.PodSpec) { s.Priority = ptr.To[int32](1) },
			err: `pods "api-0" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 5000 from the given PriorityClass name`},
		{name: "another preemption policy", classes: []*schedulingv1.PriorityClass{opportunist}, class: "opportunist",
			set: func(s *corev1.PodSpec) { s.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority) },
			err: `pods "api-0" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "api-0"}, Spec: corev1.PodSpec{PriorityClassName: tc.class}}
		if tc.set != nil {
			tc.set(&pod.Spec)
		}
		err := admit(t, priorityPlugin(tc.classes...), attrs(pod, nil, corev1.Resource("pods"), "Pod", "prod", "api-0", "", admission.Create, nil))
		if errString(err) != tc.err {
			t.Errorf("%s: error %q, want %q", tc.name, errString(err), tc.err)
			continue
		}
		if err != nil {
			continue
		}
		s := pod.Spec
		if got := (want{s.PriorityClassName, ptr.Deref(s.Priority, -1), ptr.Deref(s.PreemptionPolicy, "")}); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestPriorityOfOtherRequests: updates keep what create set, subresources are left alone.
func TestPriorityOfOtherRequests(t *testing.T) {
	old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-0"}, Spec: corev1.PodSpec{Priority: ptr.To[int32](42), PreemptionPolicy: ptr.To(corev1.PreemptNever)}}
	updated := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-0"}}
	if err := admit(t, priorityPlugin(), attrs(updated, old, corev1.Resource("pods"), "Pod", "prod", "api-0", "", admission.Update, nil)); err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(updated.Spec.Priority, 0) != 42 || ptr.Deref(updated.Spec.PreemptionPolicy, "") != corev1.PreemptNever {
		t.Errorf("update: priority %v, policy %v; want those of the stored pod", updated.Spec.Priority, updated.Spec.PreemptionPolicy)
	}
	status := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-0"}, Spec: corev1.PodSpec{PriorityClassName: "gold"}}
	if err := admit(t, priorityPlugin(), attrs(status, nil, corev1.Resource("pods"), "Pod", "prod", "api-0", "status", admission.Create, nil)); err != nil || status.Spec.Priority != nil {
		t.Errorf("a subresource: %v, priority %v", err, status.Spec.Priority)
	}
}

// TestOneGlobalDefault: only one PriorityClass may be the global default.
func TestOneGlobalDefault(t *testing.T) {
	const taken = `priorityclasses.scheduling.k8s.io "batch-lower" is forbidden: PriorityClass batch-low is already marked as default. Only one default can exist`
	for _, tc := range []struct {
		name     string
		existing []*schedulingv1.PriorityClass
		class    *schedulingv1.PriorityClass
		op       admission.Operation
		want     string
	}{
		{"first default", []*schedulingv1.PriorityClass{serving}, batchLower, admission.Create, ""},
		{"second default", []*schedulingv1.PriorityClass{batchLow}, batchLower, admission.Create, taken},
		{"another class made default", []*schedulingv1.PriorityClass{batchLow}, batchLower, admission.Update, taken},
		{"the default updated", []*schedulingv1.PriorityClass{batchLow}, batchLow, admission.Update, ""},
		{"not a default", []*schedulingv1.PriorityClass{batchLow}, serving, admission.Create, ""},
	} {
		err := validate(t, priorityPlugin(tc.existing...), attrs(tc.class, nil, schedulingv1.Resource("priorityclasses"), "PriorityClass", "", tc.class.Name, "", tc.op, nil))
		if errString(err) != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, errString(err), tc.want)
		}
	}
}
