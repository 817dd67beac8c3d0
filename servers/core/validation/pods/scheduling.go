package pods

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// affinity: node affinity (node labels and fields) and pod (anti-)affinity (the labels of
// other pods, in a topology domain).
func (s *podSpec) affinity(path *field.Path) field.ErrorList {
	a := s.Affinity
	if a == nil {
		return nil
	}
	old := &corev1.Affinity{}
	if s.old != nil && s.old.Affinity != nil {
		old = s.old.Affinity
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := path.Child("nodeAffinity")
		errs = append(errs, validation.IfSet(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), na.RequiredDuringSchedulingIgnoredDuringExecution, nodeSelector)...)
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, weight(tp.Child("weight"), t.Weight)...)
			errs = append(errs, nodeSelectorTerm(tp.Child("preference"), t.Preference)...)
		}
	}
	// Anti-affinity has the same terms as affinity, with the opposite meaning.
	errs = append(errs, podTerms(path.Child("podAffinity"), a.PodAffinity, old.PodAffinity)...)
	errs = append(errs, podTerms(path.Child("podAntiAffinity"), (*corev1.PodAffinity)(a.PodAntiAffinity), (*corev1.PodAffinity)(old.PodAntiAffinity))...)
	return errs
}

// podTerms: the required and the weighted terms of pod affinity or anti-affinity; the stored
// object's terms are matched by position.
func podTerms(path *field.Path, pa, old *corev1.PodAffinity) field.ErrorList {
	if pa == nil {
		return nil
	}
	if old == nil {
		old = &corev1.PodAffinity{}
	}
	var errs field.ErrorList
	for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
		errs = append(errs, podAffinityTerm(path.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i),
			&pa.RequiredDuringSchedulingIgnoredDuringExecution[i], at(old.RequiredDuringSchedulingIgnoredDuringExecution, i))...)
	}
	for i, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
		p := path.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		var oldTerm *corev1.PodAffinityTerm
		if ow := at(old.PreferredDuringSchedulingIgnoredDuringExecution, i); ow != nil {
			oldTerm = &ow.PodAffinityTerm
		}
		errs = append(errs, weight(p.Child("weight"), w.Weight)...)
		errs = append(errs, podAffinityTerm(p.Child("podAffinityTerm"), &w.PodAffinityTerm, oldTerm)...)
	}
	return errs
}

// at returns &list[i], or nil past its end.
func at[T any](list []T, i int) *T {
	if i < len(list) {
		return &list[i]
	}
	return nil
}

func weight(path *field.Path, w int32) field.ErrorList {
	return validation.When(w < 1 || w > 100, field.Invalid(path, w, "must be in the range 1-100"))
}

// NodeSelector is nodeSelector for the other kinds that say which nodes something is on (a
// ResourceSlice's devices, a ResourceClaim's allocation).
func NodeSelector(path *field.Path, sel corev1.NodeSelector) field.ErrorList {
	return nodeSelector(path, sel)
}

// nodeSelector: required node affinity is a list of terms, any of which a node must match.
func nodeSelector(path *field.Path, sel corev1.NodeSelector) field.ErrorList {
	terms := path.Child("nodeSelectorTerms")
	if len(sel.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range sel.NodeSelectorTerms {
		errs = append(errs, nodeSelectorTerm(terms.Index(i), t)...)
	}
	return errs
}

// nodeSelectorTerm: expressions on node labels, and on node fields (only metadata.name).
func nodeSelectorTerm(path *field.Path, t corev1.NodeSelectorTerm) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		p := path.Child("matchExpressions").Index(i)
		errs = append(errs, selectorOperator(p, r.Operator, r.Values)...)
		errs = append(errs, validation.QualifiedName(p.Child("key"), r.Key)...)
		for j, v := range r.Values {
			errs = append(errs, invalid(p.Child("values").Index(j), v, utilvalidation.IsValidLabelValue(v))...)
		}
	}
	for i, r := range t.MatchFields {
		p := path.Child("matchFields").Index(i)
		if r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpNotIn {
			errs = append(errs, validation.When(len(r.Values) != 1, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))...)
		} else {
			errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		if r.Key != metav1.ObjectNameField {
			errs = append(errs, field.Invalid(p.Child("key"), r.Key, "not a valid field selector key"))
			continue
		}
		for j, v := range r.Values {
			errs = append(errs, validation.DNSSubdomain(p.Child("values").Index(j), v)...)
		}
	}
	return errs
}

// selectorOperator: how many values each operator of a node selector takes.
func selectorOperator(path *field.Path, op corev1.NodeSelectorOperator, values []string) field.ErrorList {
	switch op {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		return validation.When(len(values) == 0, field.Required(path.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return validation.When(len(values) > 0, field.Forbidden(path.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(values) != 1 {
			return field.ErrorList{field.Required(path.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")}
		}
		return nil
	}
	return field.ErrorList{field.Invalid(path.Child("operator"), op, "not a valid selector operator")}
}

// podAffinityTerm: which pods (selector, namespaces), and the topology domain they share.
// Label values that the stored term's selectors already had stay allowed on update.
func podAffinityTerm(path *field.Path, t, old *corev1.PodAffinityTerm) field.ErrorList {
	if old == nil {
		old = &corev1.PodAffinityTerm{}
	}
	errs := validation.Join(
		validation.SelectorKeepingOld(path.Child("labelSelector"), t.LabelSelector, old.LabelSelector),
		validation.SelectorKeepingOld(path.Child("namespaceSelector"), t.NamespaceSelector, old.NamespaceSelector),
	)
	for _, ns := range t.Namespaces {
		errs = append(errs, invalid(path.Child("namespace"), ns, utilvalidation.IsDNS1123Label(ns))...)
	}
	errs = append(errs, labelKeys(path.Child("matchLabelKeys"), t.MatchLabelKeys, t.LabelSelector)...)
	errs = append(errs, labelKeys(path.Child("mismatchLabelKeys"), t.MismatchLabelKeys, t.LabelSelector)...)
	for i, k := range t.MatchLabelKeys {
		if contains(t.MismatchLabelKeys, k) {
			errs = append(errs, field.Invalid(path.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return validation.Join(errs,
		validation.When(t.TopologyKey == "", field.Required(path.Child("topologyKey"), "can not be empty")),
		validation.QualifiedName(path.Child("topologyKey"), t.TopologyKey),
	)
}

// labelKeys: label keys whose values the scheduler copies from the incoming pod into the
// selector; they need a selector to go into.
func labelKeys(path *field.Path, keys []string, selector *metav1.LabelSelector) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if selector == nil {
		return field.ErrorList{field.Forbidden(path, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, validation.QualifiedName(path.Index(i), k)...)
	}
	return errs
}

// Tolerations checks a list of tolerations as a pod's are checked (a RuntimeClass's scheduling
// carries some too).
func Tolerations(path *field.Path, tolerations []corev1.Toleration) field.ErrorList {
	return validation.Each(path, tolerations, toleration)
}

// toleration: which taints the pod tolerates. An empty key with Exists tolerates everything.
func toleration(path *field.Path, t *corev1.Toleration) field.ErrorList {
	var errs field.ErrorList
	if t.Key != "" {
		errs = append(errs, validation.QualifiedName(path.Child("key"), t.Key)...)
	} else if t.Operator != corev1.TolerationOpExists {
		errs = append(errs, field.Invalid(path.Child("operator"), t.Operator,
			"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		// Only a NoExecute taint evicts, after tolerationSeconds.
		errs = append(errs, field.Invalid(path.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
	}
	switch t.Operator {
	case corev1.TolerationOpEqual, "":
		errs = append(errs, invalid(path.Child("value"), t.Value, utilvalidation.IsValidLabelValue(t.Value))...)
	case corev1.TolerationOpExists:
		errs = append(errs, validation.When(t.Value != "", field.Invalid(path.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))...)
	default:
		errs = append(errs, field.NotSupported(path.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
	}
	return append(errs, optionalOneOf(path.Child("effect"), t.Effect,
		corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute)...)
}

// topologySpread: how evenly the pod's kind spreads over a topology (zones, nodes).
func (s *podSpec) topologySpread(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range s.TopologySpreadConstraints {
		p := path.Index(i)
		errs = append(errs, validation.When(c.MaxSkew <= 0, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))...)
		errs = append(errs, validation.When(c.TopologyKey == "", field.Required(p.Child("topologyKey"), "can not be empty"))...)
		errs = append(errs, validation.OneOf(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, corev1.DoNotSchedule, corev1.ScheduleAnyway)...)
		for _, later := range s.TopologySpreadConstraints[i+1:] {
			if later.TopologyKey == c.TopologyKey && later.WhenUnsatisfiable == c.WhenUnsatisfiable {
				// Reported at the first of the two, as kube-apiserver does.
				errs = append(errs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			errs = append(errs, validation.When(*c.MinDomains <= 0, field.Invalid(p.Child("minDomains"), *c.MinDomains, "must be greater than 0"))...)
			errs = append(errs, validation.When(c.WhenUnsatisfiable != corev1.DoNotSchedule, field.Invalid(p.Child("minDomains"), *c.MinDomains,
				fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))...)
		}
		errs = append(errs, labelKeys(p.Child("matchLabelKeys"), c.MatchLabelKeys, c.LabelSelector)...)
		for j, k := range c.MatchLabelKeys {
			if c.LabelSelector != nil && selectsKey(c.LabelSelector, k) {
				errs = append(errs, field.Invalid(p.Child("matchLabelKeys").Index(j), k, "exists in both matchLabelKeys and labelSelector"))
			}
		}
		var old *metav1.LabelSelector
		if s.old != nil {
			if oc := at(s.old.TopologySpreadConstraints, i); oc != nil {
				old = oc.LabelSelector
			}
		}
		errs = append(errs, validation.SelectorKeepingOld(p.Child("labelSelector"), c.LabelSelector, old)...)
		errs = append(errs, validation.IfSet(p.Child("nodeAffinityPolicy"), c.NodeAffinityPolicy, nodeInclusionPolicy)...)
		errs = append(errs, validation.IfSet(p.Child("nodeTaintsPolicy"), c.NodeTaintsPolicy, nodeInclusionPolicy)...)
	}
	return errs
}

func nodeInclusionPolicy(path *field.Path, p corev1.NodeInclusionPolicy) field.ErrorList {
	return validation.OneOf(path, p, corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore)
}

// selectsKey: the selector already says something about label key.
func selectsKey(sel *metav1.LabelSelector, key string) bool {
	if _, ok := sel.MatchLabels[key]; ok {
		return true
	}
	for _, e := range sel.MatchExpressions {
		if e.Key == key {
			return true
		}
	}
	return false
}
