package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func readyNode(name string, mods ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, m := range mods {
		m(n)
	}
	return n
}

func podWith(mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	for _, m := range mods {
		m(p)
	}
	return p
}

func requesting(cpu, memory string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
}

func tolerating(key string, effect corev1.TaintEffect) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
}

func TestFilter(t *testing.T) {
	cordoned := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	tainted := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	}
	preferNot := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}
	}
	notReady := func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }
	noConditions := func(n *corev1.Node) { n.Status.Conditions = nil }
	ssd := func(n *corev1.Node) { n.Labels["disktype"] = "ssd" }
	wantsSSD := func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disktype": "ssd"} }
	affinity := func(op corev1.NodeSelectorOperator, values ...string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disktype", Operator: op, Values: values}}}}}}}
		}
	}
	onNode := func(name string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{name}}}}}}}}
		}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		node *corev1.Node
		load nodeLoad
		want []string
	}{
		{"fits", podWith(), readyNode("n"), nodeLoad{}, nil},
		{"cordoned", podWith(), readyNode("n", cordoned), nodeLoad{}, []string{reasonUnschedulable}},
		{"cordoned, tolerated", podWith(tolerating(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)), readyNode("n", cordoned), nodeLoad{}, nil},
		{"tainted", podWith(), readyNode("n", tainted), nodeLoad{}, []string{reasonTaints}},
		{"tainted, tolerated", podWith(tolerating("dedicated", "")), readyNode("n", tainted), nodeLoad{}, nil},
		{"tainted, other effect tolerated", podWith(tolerating("dedicated", corev1.TaintEffectNoExecute)), readyNode("n", tainted), nodeLoad{}, []string{reasonTaints}},
		{"PreferNoSchedule does not filter", podWith(), readyNode("n", preferNot), nodeLoad{}, nil},
		{"not ready", podWith(), readyNode("n", notReady), nodeLoad{}, []string{reasonTaints}},
		{"not ready, tolerated", podWith(tolerating(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule)), readyNode("n", notReady), nodeLoad{}, nil},
		{"no Ready condition is unreachable", podWith(tolerating(corev1.TaintNodeNotReady, "")), readyNode("n", noConditions), nodeLoad{}, []string{reasonTaints}},
		{"selector", podWith(wantsSSD), readyNode("n"), nodeLoad{}, []string{reasonSelector}},
		{"selector matches", podWith(wantsSSD), readyNode("n", ssd), nodeLoad{}, nil},
		{"affinity In", podWith(affinity(corev1.NodeSelectorOpIn, "ssd", "nvme")), readyNode("n", ssd), nodeLoad{}, nil},
		{"affinity NotIn", podWith(affinity(corev1.NodeSelectorOpNotIn, "ssd")), readyNode("n", ssd), nodeLoad{}, []string{reasonSelector}},
		{"affinity DoesNotExist", podWith(affinity(corev1.NodeSelectorOpDoesNotExist)), readyNode("n"), nodeLoad{}, nil},
		{"affinity on a field", podWith(onNode("other")), readyNode("n"), nodeLoad{}, []string{reasonSelector}},
		{"affinity on a field matches", podWith(onNode("n")), readyNode("n"), nodeLoad{}, nil},
		{"too many pods", podWith(), readyNode("n"), nodeLoad{pods: 110}, []string{reasonTooManyPods}},
		{"cpu and memory", podWith(requesting("1500m", "3Gi")), readyNode("n"), nodeLoad{cpu: 1000, memory: 2 << 30}, []string{reasonCPU, reasonMemory}},
		{"exactly full fits", podWith(requesting("1", "2Gi")), readyNode("n"), nodeLoad{cpu: 1000, memory: 2 << 30}, nil},
		{"the first failing filter decides", podWith(wantsSSD, requesting("3", "1Gi")), readyNode("n", tainted), nodeLoad{}, []string{reasonTaints}},
	} {
		if got := filter(tc.pod, tc.node, tc.load); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRequests(t *testing.T) {
	pod := podWith(requesting("100m", "100Mi"), func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{
			{Name: "sidecar", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}}},
			{Name: "migrate", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("10Mi")}}},
		}
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
	})
	// cpu: max(100+50, 50+500) + 10; memory: max(100Mi, 10Mi)
	if cpu, mem := requests(pod); cpu != 560 || mem != 100<<20 {
		t.Errorf("requests = %dm, %d", cpu, mem)
	}
}

func TestFitError(t *testing.T) {
	if got := fitError(0, nil); got != "no nodes available to schedule pods" {
		t.Errorf("no nodes: %q", got)
	}
	got := fitError(5, map[string]int{reasonSelector: 2, reasonCPU: 1, reasonTaints: 2})
	if want := "0/5 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint(s)."; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
