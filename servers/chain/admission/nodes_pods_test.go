package admission

// Ported from kubernetes v1.37.2 plugin/pkg/admission/defaulttolerationseconds/admission_test.go
// and plugin/pkg/admission/nodetaint/admission_test.go, on the v1 types.

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

func TestDefaultTolerationSeconds(t *testing.T) {
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	foo := corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpEqual, Value: "bar", Effect: corev1.TaintEffectNoSchedule}
	ownNotReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](700)}
	ownUnreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](700)}
	unreachableAnyEffect := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](700)}
	wildcard := corev1.Toleration{Operator: corev1.TolerationOpExists}
	cases := []struct {
		description string
		have, want  []corev1.Toleration
	}{
		{"pod has no tolerations, expect add tolerations for `not-ready:NoExecute` and `unreachable:NoExecute`", nil, []corev1.Toleration{notReady, unreachable}},
		{"pod has tolerations, but none is for taint `not-ready:NoExecute` or `unreachable:NoExecute`", []corev1.Toleration{foo}, []corev1.Toleration{foo, notReady, unreachable}},
		{"pod specified a toleration for taint `not-ready:NoExecute`, expect add toleration for `unreachable:NoExecute`", []corev1.Toleration{ownNotReady}, []corev1.Toleration{ownNotReady, unreachable}},
		{"pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for `not-ready:NoExecute`", []corev1.Toleration{ownUnreachable}, []corev1.Toleration{ownUnreachable, notReady}},
		{"pod specified tolerations for both, expect no change", []corev1.Toleration{ownNotReady, ownUnreachable}, []corev1.Toleration{ownNotReady, ownUnreachable}},
		{"pod specified toleration for taint `unreachable`, expect add toleration for `not-ready:NoExecute`", []corev1.Toleration{unreachableAnyEffect}, []corev1.Toleration{unreachableAnyEffect, notReady}},
		{"pod has wildcard toleration for all kind of taints, expect no change", []corev1.Toleration{wildcard}, []corev1.Toleration{wildcard}},
	}
	p := NewDefaultTolerationSeconds()
	for _, tc := range cases {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Tolerations: tc.have}}
		if err := admit(t, p, attrs(pod, nil, corev1.Resource("pods"), "Pod", "ns", "p", "", admission.Create, nil)); err != nil {
			t.Fatalf("%s: %v", tc.description, err)
		}
		if !reflect.DeepEqual(pod.Spec.Tolerations, tc.want) {
			t.Errorf("%s:\n got  %v\n want %v", tc.description, pod.Spec.Tolerations, tc.want)
		}
	}
	// Other resources and subresources are left alone.
	pod := &corev1.Pod{}
	if err := admit(t, p, attrs(pod, nil, corev1.Resource("pods"), "Pod", "ns", "p", "status", admission.Update, nil)); err != nil || pod.Spec.Tolerations != nil {
		t.Errorf("subresource: %v %v", err, pod.Spec.Tolerations)
	}
}

func TestTaintNodesByCondition(t *testing.T) {
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name       string
		node       *corev1.Node
		wantTaints []corev1.Taint
	}{
		{"notReady taint is added on creation", &corev1.Node{}, []corev1.Taint{notReady}},
		{"already tainted node is not tainted again", &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{notReady}}}, []corev1.Taint{notReady}},
		{"NotReady taint is added to an unready node as well", &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}},
			[]corev1.Taint{notReady}},
	}
	p := NewTaintNodesByCondition()
	for _, tc := range cases {
		if err := admit(t, p, attrs(tc.node, nil, corev1.Resource("nodes"), "Node", "", "n", "", admission.Create, nil)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(tc.node.Spec.Taints, tc.wantTaints) {
			t.Errorf("%s: taints %v, want %v", tc.name, tc.node.Spec.Taints, tc.wantTaints)
		}
	}
	if p.Handles(admission.Update) {
		t.Errorf("TaintNodesByCondition handles updates; upstream only taints on create")
	}
}
