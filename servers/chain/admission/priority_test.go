package admission

// Ported from kubernetes v1.37.2 plugin/pkg/admission/priority/admission_test.go
// (TestPriorityClassAdmission, TestPodAdmission), on the v1 types.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

var (
	defaultClass1    = &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "default1"}, Value: 1000, GlobalDefault: true}
	defaultClass2    = &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "default2"}, Value: 2000, GlobalDefault: true}
	nondefaultClass1 = &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "nondefault1"}, Value: 2000}
	systemClass      = &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: 2000000000}
	neverClass       = &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "never"}, Value: 500, PreemptionPolicy: ptr.To(corev1.PreemptNever)}
)

func newPriority(classes ...*schedulingv1.PriorityClass) *Priority {
	p := NewPriority()
	f := newInformers()
	p.SetExternalKubeInformerFactory(f)
	for _, c := range classes {
		if c.PreemptionPolicy == nil {
			c = c.DeepCopy()
			c.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority)
		}
		_ = f.Scheduling().V1().PriorityClasses().Informer().GetStore().Add(c)
	}
	return p
}

func TestPriorityClassAdmission(t *testing.T) {
	cases := []struct {
		name     string
		existing []*schedulingv1.PriorityClass
		class    *schedulingv1.PriorityClass
		op       admission.Operation
		want     string
	}{
		{"create operator with default class", nil, defaultClass1, admission.Create, ""},
		{"create operator with one existing default class", []*schedulingv1.PriorityClass{defaultClass1}, defaultClass2, admission.Create,
			`priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist`},
		{"create operator with system name", nil, systemClass, admission.Create, ""},
		{"update operator with default class", nil, defaultClass1, admission.Update, ""},
		{"update operator with one existing default class", []*schedulingv1.PriorityClass{defaultClass1}, defaultClass2, admission.Update,
			`priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist`},
		{"update the default class itself", []*schedulingv1.PriorityClass{defaultClass1}, defaultClass1, admission.Update, ""},
		{"delete operation with default class", nil, defaultClass1, admission.Delete, ""},
	}
	for _, tc := range cases {
		p := newPriority(tc.existing...)
		err := validate(t, p, attrs(tc.class, nil, schedulingv1.Resource("priorityclasses"), "PriorityClass", "", tc.class.Name, "", tc.op, nil))
		if got := errString(err); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPodAdmission(t *testing.T) {
	pod := func(class string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-w-priorityclass", Namespace: "namespace"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}, PriorityClassName: class}}
		for _, m := range mutate {
			m(p)
		}
		return p
	}
	cases := []struct {
		name         string
		existing     []*schedulingv1.PriorityClass
		pod          *corev1.Pod
		wantPriority int32
		wantClass    string
		wantPolicy   corev1.PreemptionPolicy
		wantErr      string
	}{
		{"Pod with priority class", []*schedulingv1.PriorityClass{defaultClass1, nondefaultClass1}, pod("nondefault1"), 2000, "nondefault1", corev1.PreemptLowerPriority, ""},
		{"Pod without priority class", []*schedulingv1.PriorityClass{defaultClass1}, pod(""), 1000, "default1", corev1.PreemptLowerPriority, ""},
		{"pod without priority class and no existing priority class", nil, pod(""), 0, "", corev1.PreemptLowerPriority, ""},
		{"pod without priority class and no default class", []*schedulingv1.PriorityClass{nondefaultClass1}, pod(""), 0, "", corev1.PreemptLowerPriority, ""},
		{"pod with a system priority class", []*schedulingv1.PriorityClass{systemClass}, pod("system-cluster-critical"), 2000000000, "system-cluster-critical", corev1.PreemptLowerPriority, ""},
		{"pod with a class that never preempts", []*schedulingv1.PriorityClass{neverClass}, pod("never"), 500, "never", corev1.PreemptNever, ""},
		{"pod with an unknown class", nil, pod("foo"), 0, "", "", `pods "pod-w-priorityclass" is forbidden: no PriorityClass with name foo was found`},
		{"pod with integer priority", nil, pod("", func(p *corev1.Pod) { p.Spec.Priority = ptr.To[int32](1000) }), 0, "", "",
			`pods "pod-w-priorityclass" is forbidden: the integer value of priority (1000) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
		{"pod with priority that matches computed priority", []*schedulingv1.PriorityClass{nondefaultClass1}, pod("nondefault1", func(p *corev1.Pod) { p.Spec.Priority = ptr.To[int32](2000) }),
			2000, "nondefault1", corev1.PreemptLowerPriority, ""},
		{"pod with preemption policy that does not match", []*schedulingv1.PriorityClass{neverClass}, pod("never", func(p *corev1.Pod) { p.Spec.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority) }),
			0, "", "", `pods "pod-w-priorityclass" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
	}
	for _, tc := range cases {
		p := newPriority(tc.existing...)
		err := admit(t, p, attrs(tc.pod, nil, corev1.Resource("pods"), "Pod", "namespace", tc.pod.Name, "", admission.Create, nil))
		if got := errString(err); got != tc.wantErr {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if tc.pod.Spec.Priority == nil || *tc.pod.Spec.Priority != tc.wantPriority || tc.pod.Spec.PriorityClassName != tc.wantClass ||
			tc.pod.Spec.PreemptionPolicy == nil || *tc.pod.Spec.PreemptionPolicy != tc.wantPolicy {
			t.Errorf("%s: priority %v class %q policy %v; want %d %q %s", tc.name, tc.pod.Spec.Priority, tc.pod.Spec.PriorityClassName, tc.pod.Spec.PreemptionPolicy, tc.wantPriority, tc.wantClass, tc.wantPolicy)
		}
	}

	// On update the priority set on create is kept.
	old := pod("", func(p *corev1.Pod) {
		p.Spec.Priority = ptr.To[int32](7)
		p.Spec.PreemptionPolicy = ptr.To(corev1.PreemptNever)
	})
	updated := pod("")
	if err := admit(t, newPriority(), attrs(updated, old, corev1.Resource("pods"), "Pod", "namespace", updated.Name, "", admission.Update, nil)); err != nil {
		t.Fatal(err)
	}
	if *updated.Spec.Priority != 7 || *updated.Spec.PreemptionPolicy != corev1.PreemptNever {
		t.Errorf("update did not keep the priority: %v %v", *updated.Spec.Priority, *updated.Spec.PreemptionPolicy)
	}
	// Subresources are left alone.
	binding := pod("foo")
	if err := admit(t, newPriority(), attrs(binding, nil, corev1.Resource("pods"), "Pod", "namespace", binding.Name, "binding", admission.Create, nil)); err != nil {
		t.Errorf("subresource: %v", err)
	}
}
