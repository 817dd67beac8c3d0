package daemonset

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// templateGenerationAnnotation is where the API server keeps a DaemonSet's template generation
// (what extensions/v1beta1 had as spec.templateGeneration); daemon pods carry it as the
// pod-template-generation label.
const (
	templateGenerationAnnotation = "deprecated.daemonset.template.generation"
	templateGenerationLabel      = "pod-template-generation"
)

// daemonTolerations are the tolerations every daemon pod gets, so that it runs where a daemon
// must: on nodes not ready or unreachable (it is not evicted), under pressure, cordoned; a
// host-network pod also where the pod network is not up yet.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	t := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		t = append(t, corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return t
}

// tolerations are the template's tolerations and the daemon ones it does not have already.
func tolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := slices.Clone(spec.Tolerations)
	for _, t := range daemonTolerations(spec.HostNetwork) {
		if !slices.ContainsFunc(out, func(have corev1.Toleration) bool { return have.MatchToleration(&t) }) {
			out = append(out, t)
		}
	}
	return out
}

// placement says whether the daemon pod (spec, with its tolerations) belongs on node, and
// whether one already there may stay. It belongs where the template's nodeName (if any), its
// nodeSelector and its required node affinity match the node, and it tolerates every NoSchedule
// and NoExecute taint of the node: what the scheduler checks before it binds the pod. A pod may
// stay on a node tainted NoSchedule after it came; a NoExecute taint evicts it.
func placement(spec *corev1.PodSpec, tolerations []corev1.Toleration, node *corev1.Node) (belongs, stays bool) {
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return false, false
	}
	if ok, err := nodeaffinity.NewRequiredNodeAffinity(spec.NodeSelector, spec.Affinity).Match(node); !ok || err != nil {
		return false, false
	}
	untolerated := func(effects ...corev1.TaintEffect) bool {
		_, found := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, tolerations,
			func(t *corev1.Taint) bool { return slices.Contains(effects, t.Effect) }, false)
		return found
	}
	if !untolerated(corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute) {
		return true, true
	}
	return false, !untolerated(corev1.TaintEffectNoExecute)
}

// newPod is the daemon pod for node: the template at revision hash, with the daemon
// tolerations, and a required node affinity that only node satisfies (it replaces the
// template's, which node matches already), for the scheduler to bind it there.
func newPod(o *workload.Owner, ds *appsv1.DaemonSet, hash, node string) *corev1.Pod {
	p := workload.NewPod(o, &ds.Spec.Template)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[appsv1.ControllerRevisionHashLabelKey] = hash
	if g, ok := ds.Annotations[templateGenerationAnnotation]; ok {
		p.Labels[templateGenerationLabel] = g
	}
	p.Spec.Tolerations = tolerations(&p.Spec)
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}},
		}}},
	}
	return p
}

// targetNode is the node a daemon pod is for: the one it is bound to, or the one its node
// affinity names while it waits for the scheduler; "" for a pod that names none.
func targetNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 {
		return ""
	}
	r := terms[0].MatchFields[0]
	if r.Key != metav1.ObjectNameField || r.Operator != corev1.NodeSelectorOpIn || len(r.Values) != 1 {
		return ""
	}
	return r.Values[0]
}
