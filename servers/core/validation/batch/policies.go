package batch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// Bounds of the policies, which the job controller evaluates for every pod.
const (
	maxFailureRules      = 20
	maxExitCodes         = 255
	maxConditionPatterns = 20
	maxSuccessRules      = 20
	maxSucceededIndexes  = 64 * 1024 // characters of a rule's succeededIndexes
)

var (
	failureActions = []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore}
	exitCodeOperators = []batchv1.PodFailurePolicyOnExitCodesOperator{batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn}
	conditionStatuses = []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
)

// podFailurePolicy: rules that say what a failed pod means (fail the Job or the index, ignore
// it, count it), each matching the pod by its containers' exit codes or its conditions.
func podFailurePolicy(path *field.Path, s *batchv1.JobSpec, p *batchv1.PodFailurePolicy) field.ErrorList {
	rules := path.Child("rules")
	errs := validation.When(len(p.Rules) > maxFailureRules, field.TooMany(rules, len(p.Rules), maxFailureRules))
	for i := range p.Rules {
		errs = append(errs, failureRule(rules.Index(i), s, &p.Rules[i])...)
	}
	return errs
}

func failureRule(path *field.Path, s *batchv1.JobSpec, r *batchv1.PodFailurePolicyRule) field.ErrorList {
	action := path.Child("action")
	var errs field.ErrorList
	switch {
	case r.Action == "":
		errs = field.ErrorList{field.Required(action, fmt.Sprintf("valid values: %q", failureActions))}
	case r.Action == batchv1.PodFailurePolicyActionFailIndex:
		errs = validation.When(s.BackoffLimitPerIndex == nil, field.Invalid(action, r.Action, "requires the backoffLimitPerIndex to be set"))
	case !slices.Contains(failureActions, r.Action):
		errs = field.ErrorList{field.NotSupported(action, r.Action, failureActions)}
	}
	if r.OnExitCodes != nil {
		errs = append(errs, onExitCodes(path.Child("onExitCodes"), &s.Template.Spec, r.OnExitCodes)...)
	}
	if len(r.OnPodConditions) > 0 {
		errs = append(errs, onPodConditions(path.Child("onPodConditions"), r.OnPodConditions)...)
	}
	both, neither := r.OnExitCodes != nil && len(r.OnPodConditions) > 0, r.OnExitCodes == nil && len(r.OnPodConditions) == 0
	return validation.Join(errs,
		validation.When(both, field.Invalid(path, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported")),
		validation.When(neither, field.Invalid(path, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required")),
	)
}

// onExitCodes: exit codes listed once each, in order (0, success, never counts as In).
func onExitCodes(path *field.Path, pod *corev1.PodSpec, r *batchv1.PodFailurePolicyOnExitCodesRequirement) field.ErrorList {
	op, values := path.Child("operator"), path.Child("values")
	var errs field.ErrorList
	if r.Operator == "" {
		errs = field.ErrorList{field.Required(op, fmt.Sprintf("valid values: %q", exitCodeOperators))}
	} else {
		errs = validation.Supported(op, r.Operator, exitCodeOperators...)
	}
	if name := r.ContainerName; name != nil && !hasContainer(pod, *name) {
		errs = append(errs, field.Invalid(path.Child("containerName"), *name, "must be one of the container or initContainer names in the pod template"))
	}
	errs = validation.Join(errs,
		validation.When(len(r.Values) == 0, field.Invalid(values, r.Values, "at least one value is required")),
		validation.When(len(r.Values) > maxExitCodes, field.TooMany(values, len(r.Values), maxExitCodes)),
	)
	seen := map[int32]bool{}
	for i, v := range r.Values {
		errs = validation.Join(errs,
			validation.When(r.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0, field.Invalid(values.Index(i), v, "must not be 0 for the In operator")),
			validation.When(seen[v], field.Duplicate(values.Index(i), v)),
		)
		seen[v] = true
	}
	return append(errs, validation.When(!slices.IsSorted(r.Values), field.Invalid(values, r.Values, "must be ordered"))...)
}

func hasContainer(pod *corev1.PodSpec, name string) bool {
	named := func(c corev1.Container) bool { return c.Name == name }
	return slices.ContainsFunc(pod.Containers, named) || slices.ContainsFunc(pod.InitContainers, named)
}

// onPodConditions: pod conditions by type (a qualified name) and status.
func onPodConditions(path *field.Path, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) field.ErrorList {
	errs := validation.When(len(patterns) > maxConditionPatterns, field.TooMany(path, len(patterns), maxConditionPatterns))
	for i, p := range patterns {
		status := path.Index(i).Child("status")
		errs = append(errs, validation.QualifiedName(path.Index(i).Child("type"), string(p.Type))...)
		if p.Status == "" {
			errs = append(errs, field.Required(status, fmt.Sprintf("valid values: %q", conditionStatuses)))
		} else {
			errs = append(errs, validation.Supported(status, p.Status, conditionStatuses...)...)
		}
	}
	return errs
}

// successPolicy: an Indexed Job succeeds early once some indexes (succeededIndexes) or some
// number of them (succeededCount) succeeded.
func successPolicy(path *field.Path, s *batchv1.JobSpec, p *batchv1.SuccessPolicy) field.ErrorList {
	if !indexed(s) {
		return field.ErrorList{field.Invalid(path, validation.Internal(*p), "requires indexed completion mode")}
	}
	rules := path.Child("rules")
	errs := validation.Join(
		validation.When(len(p.Rules) == 0, field.Required(rules, "at least one rules must be specified when the successPolicy is specified")),
		validation.When(len(p.Rules) > maxSuccessRules, field.TooMany(rules, len(p.Rules), maxSuccessRules)),
	)
	completions := deref(s.Completions)
	for i, r := range p.Rules {
		path := rules.Index(i)
		errs = append(errs, validation.When(r.SucceededCount == nil && r.SucceededIndexes == nil,
			field.Required(path, "at least one of succeededCount or succeededIndexes must be specified"))...)
		var count int32
		if r.SucceededIndexes != nil {
			p, v := path.Child("succeededIndexes"), *r.SucceededIndexes
			errs = append(errs, validation.When(len(v) > maxSucceededIndexes, field.TooLong(p, "", maxSucceededIndexes))...)
			intervals, err := parseIndexes(v, completions)
			if err != nil {
				errs = append(errs, field.Invalid(p, v, "error parsing succeededIndexes: "+err.Error()))
			}
			count = total(intervals)
		}
		if r.SucceededCount != nil {
			p, n := path.Child("succeededCount"), *r.SucceededCount
			errs = validation.Join(errs,
				validation.NonNegative(p, int64(n)),
				validation.When(n > completions, field.Invalid(p, n, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions))),
				validation.When(r.SucceededIndexes != nil && n > count,
					field.Invalid(p, n, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", count))),
			)
		}
	}
	return errs
}

// interval is a run of indexes, first to last, as "3-5" (or "4") in a list of indexes.
type interval struct{ first, last int32 }

// parseIndexes reads a list of indexes below completions, "1,3-5,7": intervals in increasing
// order. On error it returns nothing.
func parseIndexes(list string, completions int32) ([]interval, error) {
	if list == "" {
		return nil, nil
	}
	var out []interval
	for _, part := range strings.Split(list, ",") {
		in, err := parseInterval(part, completions)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && out[len(out)-1].last >= in.first {
			return nil, fmt.Errorf("non-increasing order, previous: %d, current: %d", out[len(out)-1].last, in.first)
		}
		out = append(out, in)
	}
	return out, nil
}

func parseInterval(part string, completions int32) (interval, error) {
	ends := strings.Split(part, "-")
	if len(ends) > 2 {
		return interval{}, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", part)
	}
	var n [2]int32
	for i, e := range ends {
		v, err := strconv.Atoi(e)
		if err != nil {
			return interval{}, fmt.Errorf("cannot convert string to integer for index: %q", e)
		}
		if v >= int(completions) {
			return interval{}, fmt.Errorf("too large index: %q", e)
		}
		n[i] = int32(v)
	}
	if len(ends) == 1 {
		return interval{n[0], n[0]}, nil
	}
	if n[0] >= n[1] {
		return interval{}, fmt.Errorf("non-increasing order, previous: %d, current: %d", n[0], n[1])
	}
	return interval{n[0], n[1]}, nil
}

func total(intervals []interval) int32 {
	var n int32
	for _, in := range intervals {
		n += in.last - in.first + 1
	}
	return n
}

// firstOverlap is the first index in both lists (their well-formed intervals), if any.
func firstOverlap(a, b string, completions int32) (int32, bool) {
	wellFormed := func(list string) []interval {
		var out []interval
		for _, part := range strings.Split(list, ",") {
			if in, err := parseInterval(part, completions); err == nil {
				out = append(out, in)
			}
		}
		return out
	}
	if a == "" || b == "" {
		return 0, false
	}
	x, y := wellFormed(a), wellFormed(b)
	for len(x) > 0 && len(y) > 0 {
		if x[0].first <= y[0].last && y[0].first <= x[0].last {
			return max(x[0].first, y[0].first), true
		}
		if x[0].first <= y[0].first {
			x = x[1:]
		} else {
			y = y[1:]
		}
	}
	return 0, false
}
