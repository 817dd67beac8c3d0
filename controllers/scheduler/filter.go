package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/klog/v2"
)

// Why a node does not fit, in kube-scheduler's words (framework/plugins/*).
const (
	reasonUnschedulable = "node(s) were unschedulable"
	reasonTaints        = "node(s) had untolerated taint(s)"
	reasonSelector      = "node(s) didn't match Pod's node affinity/selector"
	reasonTooManyPods   = "Too many pods"
	reasonCPU           = "Insufficient cpu"
	reasonMemory        = "Insufficient memory"
	noNodes             = "no nodes available to schedule pods"
)

// nodeLoad is what is already placed on a node.
type nodeLoad struct {
	pods        int
	cpu, memory int64 // milli-cores, bytes requested
}

// filter says why pod cannot go to node (nil: it can), checking what kube-scheduler's
// default filters check, in their order: NodeUnschedulable, TaintToleration, NodeAffinity
// (nodeSelector and required node affinity), NodeResourcesFit (pods, cpu, memory). The first
// failing check gives the reasons, as in the scheduling framework.
func filter(pod *corev1.Pod, node *corev1.Node, load nodeLoad) []string {
	if node.Spec.Unschedulable && !tolerates(pod, &corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}) {
		return []string{reasonUnschedulable}
	}
	for _, t := range effectiveTaints(node) {
		if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !tolerates(pod, &t) {
			return []string{reasonTaints}
		}
	}
	if !matchesNode(pod, node) {
		return []string{reasonSelector}
	}
	var reasons []string
	alloc := node.Status.Allocatable
	if q, ok := alloc[corev1.ResourcePods]; ok && int64(load.pods+1) > q.Value() {
		reasons = append(reasons, reasonTooManyPods)
	}
	cpu, memory := requests(pod)
	if q := alloc[corev1.ResourceCPU]; cpu > 0 && load.cpu+cpu > q.MilliValue() {
		reasons = append(reasons, reasonCPU)
	}
	if q := alloc[corev1.ResourceMemory]; memory > 0 && load.memory+memory > q.Value() {
		reasons = append(reasons, reasonMemory)
	}
	return reasons
}

// effectiveTaints are the node's taints plus the not-ready (Ready False) or unreachable (Ready
// Unknown or missing) taint the node lifecycle controller (controllers/nodelifecycle) puts on a
// node that is not Ready. The scheduler reads the condition itself as well, so that it neither
// waits for that controller's update nor depends on it running; a pod that tolerates the taint
// may still go there.
func effectiveTaints(node *corev1.Node) []corev1.Taint {
	taints := slices.Clone(node.Spec.Taints)
	key := corev1.TaintNodeUnreachable
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		switch c.Status {
		case corev1.ConditionTrue:
			return taints
		case corev1.ConditionFalse:
			key = corev1.TaintNodeNotReady
		}
	}
	if !slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Key == key && t.Effect == corev1.TaintEffectNoSchedule }) {
		taints = append(taints, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
	}
	return taints
}

func tolerates(pod *corev1.Pod, taint *corev1.Taint) bool {
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), taint, false) {
			return true
		}
	}
	return false
}

// matchesNode checks the pod's nodeSelector and its required node affinity
// (component-helpers nodeaffinity.GetRequiredNodeAffinity): every selector label, and one of
// the terms, each term all of its expressions and fields.
func matchesNode(pod *corev1.Pod, node *corev1.Node) bool {
	if !labels.SelectorFromSet(pod.Spec.NodeSelector).Matches(labels.Set(node.Labels)) {
		return false
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue // an empty term matches nothing
		}
		if matchesRequirements(term.MatchExpressions, labels.Set(node.Labels)) &&
			matchesRequirements(term.MatchFields, labels.Set{"metadata.name": node.Name}) {
			return true
		}
	}
	return false
}

func matchesRequirements(reqs []corev1.NodeSelectorRequirement, set labels.Set) bool {
	ops := map[corev1.NodeSelectorOperator]selection.Operator{
		corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
		corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
		corev1.NodeSelectorOpGt: selection.GreaterThan, corev1.NodeSelectorOpLt: selection.LessThan,
	}
	for _, r := range reqs {
		op, ok := ops[r.Operator]
		if !ok {
			return false
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil || !req.Matches(set) {
			return false
		}
	}
	return true
}

// requests is what the pod asks of a node (resource helper PodRequests, without pod-level
// resources): its containers and sidecars together, or its largest init container if more,
// plus its overhead.
func requests(pod *corev1.Pod) (cpu, memory int64) {
	sum := func(rl corev1.ResourceList, name corev1.ResourceName) int64 {
		q, ok := rl[name]
		if !ok {
			return 0
		}
		if name == corev1.ResourceCPU {
			return q.MilliValue()
		}
		return q.Value()
	}
	var sidecarCPU, sidecarMem int64
	var initCPU, initMem int64
	for _, ic := range pod.Spec.InitContainers {
		c, m := sum(ic.Resources.Requests, corev1.ResourceCPU), sum(ic.Resources.Requests, corev1.ResourceMemory)
		if ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecarCPU, sidecarMem = sidecarCPU+c, sidecarMem+m // a sidecar keeps running
			c, m = 0, 0
		}
		initCPU, initMem = max(initCPU, sidecarCPU+c), max(initMem, sidecarMem+m)
	}
	for _, c := range pod.Spec.Containers {
		cpu += sum(c.Resources.Requests, corev1.ResourceCPU)
		memory += sum(c.Resources.Requests, corev1.ResourceMemory)
	}
	cpu, memory = max(cpu+sidecarCPU, initCPU), max(memory+sidecarMem, initMem)
	cpu += sum(pod.Spec.Overhead, corev1.ResourceCPU)
	memory += sum(pod.Spec.Overhead, corev1.ResourceMemory)
	return cpu, memory
}

// fitError is kube-scheduler's FitError message: how many nodes failed for each reason.
func fitError(total int, reasons map[string]int) string {
	if total == 0 {
		return noNodes
	}
	var parts []string
	for r, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", total, strings.Join(parts, ", "))
}
