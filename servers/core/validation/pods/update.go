package pods

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// updatable is kube-apiserver's own list, in its message, of what a pod update may change.
// (Scheduling gates may be removed too, and, while a pod is gated, node selectors and required
// node affinity may be narrowed.) Everything else about a running pod is fixed: to change it,
// make a new pod.
const updatable = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// podSpecUpdate: the rules of each field that may change, then the rule for all others: the
// new spec, with those fields put back to their stored values, is the stored spec.
func podSpecUpdate(path *field.Path, spec, old *corev1.PodSpec) field.ErrorList {
	for _, list := range []struct {
		name     string
		new, old []corev1.Container
	}{{"containers", spec.Containers, old.Containers}, {"initContainers", spec.InitContainers, old.InitContainers}} {
		if len(list.new) != len(list.old) {
			return field.ErrorList{field.Forbidden(path.Child(list.name), "pod updates may not add or remove containers")}
		}
	}
	gated := len(old.SchedulingGates) > 0
	errs := validation.Join(
		activeDeadlineUpdate(path.Child("activeDeadlineSeconds"), spec.ActiveDeadlineSeconds, old.ActiveDeadlineSeconds),
		tolerationsKept(path.Child("tolerations"), spec.Tolerations, old.Tolerations),
		schedulingGatesRemovedOnly(path.Child("schedulingGates"), spec.SchedulingGates, old.SchedulingGates),
	)
	unchanged := spec.DeepCopy()
	for i := range unchanged.Containers {
		unchanged.Containers[i].Image = old.Containers[i].Image
	}
	for i := range unchanged.InitContainers {
		unchanged.InitContainers[i].Image = old.InitContainers[i].Image
	}
	unchanged.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	unchanged.Tolerations = old.Tolerations
	unchanged.SchedulingGates = old.SchedulingGates
	if grace, oldGrace := spec.TerminationGracePeriodSeconds, old.TerminationGracePeriodSeconds; grace != nil && *grace == 1 && oldGrace != nil && *oldGrace < 0 {
		unchanged.TerminationGracePeriodSeconds = oldGrace
	}
	if gated {
		errs = append(errs, nodeSelectorNarrowed(path, spec, old)...)
		unchanged.NodeSelector = old.NodeSelector
		if unchanged.Affinity != nil || old.Affinity != nil {
			unchanged.Affinity = withNodeAffinity(unchanged.Affinity, old.Affinity)
		}
	}
	if !equality.Semantic.DeepEqual(unchanged, old) {
		// The message shows what else changed, as JSON of kube-apiserver's internal type.
		errs = append(errs, field.Forbidden(path, "pod updates may not change fields other than "+updatable+"\n"+
			diff.Diff(validation.Internal(*old), validation.Internal(*unchanged))))
	}
	return errs
}

// activeDeadlineUpdate: a deadline may be set, or shortened, never lifted.
func activeDeadlineUpdate(path *field.Path, deadline, old *int64) field.ErrorList {
	switch {
	case old == nil:
		return nil
	case deadline == nil:
		return field.ErrorList{field.Invalid(path, nil, "must not update from a positive integer to nil value")}
	case *deadline > *old:
		return field.ErrorList{field.Invalid(path, *deadline, "must be less than or equal to previous value")}
	}
	return nil
}

// tolerationsKept: tolerations may be added; existing ones stay, but for their tolerationSeconds.
func tolerationsKept(path *field.Path, tolerations, old []corev1.Toleration) field.ErrorList {
	// A toleration is what it tolerates; how long it does may change.
	what := func(t corev1.Toleration) corev1.Toleration { t.TolerationSeconds = nil; return t }
	present := map[corev1.Toleration]bool{}
	for _, t := range tolerations {
		present[what(t)] = true
	}
	for _, o := range old {
		if !present[what(o)] {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// schedulingGatesRemovedOnly: whoever gated the pod lifts the gates one by one; no new ones.
func schedulingGatesRemovedOnly(path *field.Path, gates, old []corev1.PodSchedulingGate) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		if !contains(old, g) {
			errs = append(errs, field.Forbidden(path.Index(i).Child("name"), "only deletion is allowed, but found new scheduling gate '"+g.Name+"'"))
		}
	}
	return errs
}

// nodeSelectorNarrowed: while a pod is gated, its node selector and required node affinity may
// get more restrictive (entries added), not different.
func nodeSelectorNarrowed(path *field.Path, spec, old *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	for k, v := range old.NodeSelector {
		if nv, ok := spec.NodeSelector[k]; !ok || nv != v {
			errs = append(errs, field.Invalid(path.Child("nodeSelector"), spec.NodeSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
			break
		}
	}
	oldTerms, terms := requiredTerms(old.Affinity), requiredTerms(spec.Affinity)
	if len(oldTerms) == 0 {
		return errs
	}
	termsPath := path.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	if len(terms) != len(oldTerms) {
		return append(errs, field.Invalid(termsPath, terms, "no additions/deletions to non-empty NodeSelectorTerms list are allowed"))
	}
	for i := range terms {
		if !hasPrefix(terms[i].MatchExpressions, oldTerms[i].MatchExpressions) || !hasPrefix(terms[i].MatchFields, oldTerms[i].MatchFields) {
			errs = append(errs, field.Invalid(termsPath.Index(i), terms[i], "only additions are allowed (no mutations or deletions)"))
		}
	}
	return errs
}

func requiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

func hasPrefix(list, prefix []corev1.NodeSelectorRequirement) bool {
	return len(list) >= len(prefix) && equality.Semantic.DeepEqual(list[:len(prefix)], prefix)
}

// withNodeAffinity returns a with old's node affinity, for comparing the rest of it.
func withNodeAffinity(a, old *corev1.Affinity) *corev1.Affinity {
	out := &corev1.Affinity{}
	if a != nil {
		out = a.DeepCopy()
	}
	out.NodeAffinity = nil
	if old != nil {
		out.NodeAffinity = old.NodeAffinity
	}
	if equality.Semantic.DeepEqual(out, &corev1.Affinity{}) && old == nil {
		return nil
	}
	return out
}
