// Package batch validates the batch/v1 kinds of the Core server: Job (with its status) and
// CronJob.
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/batch call
// these functions as their Validate hooks, after the request is decoded and defaulted (and a
// Job's selector generated) and before the object is stored; a non-empty error list becomes
// kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver v1.37.2's, as
// observed, with the feature gates at their v1.37 defaults (JobManagedBy GA; the pod template
// of a suspended Job that has not run may change its scheduling directives and resources).
// The pod template is checked by servers/core/validation/pods, then here for what a Job adds:
// pods that finish (restartPolicy OnFailure or Never) and labels that tie them to their Job.
//
// Of the generated declarative rules, CronJob spec.schedule (required) is enforced: ours is
// marked as covered by it. spec.scheduling (alpha WorkloadWithJob, off) is dropped on write
// and left to the generated rules. Left out: nothing else.
package batch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

var metadata = field.NewPath("metadata")

// Limits of an Indexed Job, so that its status's lists of indexes stay short.
const (
	maxIndexedParallelism = 100_000
	maxFailedIndexes      = 100_000
	// Above this many completions, a Job with a backoff limit per index must cap its failed
	// indexes and its parallelism lower.
	manyCompletions         = 100_000
	maxParallelismForMany   = 10_000
	maxFailedIndexesForMany = 10_000
	maxManagedBy            = 63
)

// ValidateJob is the rule list of a new Job.
func ValidateJob(job *batchv1.Job) field.ErrorList {
	return validation.Join(
		validation.Meta(&job.ObjectMeta, true, validation.SubdomainName, metadata),
		generatedSelector(job),
		jobSpec(field.NewPath("spec"), &job.Spec, nil),
		selected(field.NewPath("spec"), &job.Spec, nil),
		podHostnames(job),
	)
}

// ValidateJobUpdate is the rule list of an update. A Job's pods are made from what it was
// created with: only parallelism (and an Indexed Job's completions with it), suspend,
// activeDeadlineSeconds and the like change; a suspended Job that has not run may also move
// its pods (scheduling directives) and resize them.
func ValidateJobUpdate(job, old *batchv1.Job) field.ErrorList {
	path, s, o := field.NewPath("spec"), &job.Spec, &old.Spec
	return validation.Join(
		validation.MetaUpdate(&job.ObjectMeta, &old.ObjectMeta, metadata),
		jobSpec(path, s, o),
		selected(path, s, o),
		completionsUpdate(path, s, o),
		validation.Immutable(path.Child("selector"), s.Selector, o.Selector),
		templateUpdate(path, old, s),
		validation.Immutable(path.Child("completionMode"), s.CompletionMode, o.CompletionMode),
		immutable(path.Child("podFailurePolicy"), s.PodFailurePolicy, o.PodFailurePolicy),
		validation.Immutable(path.Child("backoffLimitPerIndex"), s.BackoffLimitPerIndex, o.BackoffLimitPerIndex),
		validation.Immutable(path.Child("managedBy"), s.ManagedBy, o.ManagedBy),
		immutable(path.Child("successPolicy"), s.SuccessPolicy, o.SuccessPolicy),
		podHostnames(job),
	)
}

// immutable is validation.Immutable for a struct, printed as kube-apiserver prints it.
func immutable(path *field.Path, value, old interface{}) field.ErrorList {
	return validation.When(!equality.Semantic.DeepEqual(value, old), field.Invalid(path, validation.Internal(value), "field is immutable"))
}

// generatedSelector: unless the user chose the selector (manualSelector), the registry
// generated it from the Job's uid, and labelled the template with the uid and the name.
func generatedSelector(job *batchv1.Job) field.ErrorList {
	if ptr.Deref(job.Spec.ManualSelector, false) || job.Spec.Selector == nil {
		return nil
	}
	uid, name := string(job.UID), job.Name
	expected := map[string]string{
		"controller-uid": uid, "job-name": name, // the labels' first, unprefixed names
		batchv1.ControllerUidLabel: uid, batchv1.JobNameLabel: name,
	}
	errs := validation.When(uid == "", field.Required(metadata.Child("uid"), ""))
	labelsPath := field.NewPath("spec", "template", "metadata", "labels")
	for _, key := range []string{"controller-uid", "job-name", batchv1.ControllerUidLabel, batchv1.JobNameLabel} {
		value, found := job.Spec.Template.Labels[key]
		switch {
		case !found:
			errs = append(errs, field.Required(labelsPath.Key(key), ""))
		case value != expected[key]:
			errs = append(errs, field.Invalid(labelsPath.Key(key), job.Spec.Template.Labels, fmt.Sprintf("must be '%s'", expected[key])))
		}
	}
	if s, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && !s.Matches(labels.Set(expected)) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), job.Spec.Selector, "`selector` not auto-generated"))
	}
	return errs
}

// selected: a Job has a valid selector, and its pods match it.
func selected(path *field.Path, s, old *batchv1.JobSpec) field.ErrorList {
	sel := path.Child("selector")
	var errs field.ErrorList
	if s.Selector == nil {
		errs = field.ErrorList{field.Required(sel, "")}
	} else {
		var oldSelector *metav1.LabelSelector
		if old != nil {
			oldSelector = old.Selector
		}
		errs = validation.SelectorKeepingOld(sel, s.Selector, oldSelector)
	}
	if ls, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !ls.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// podHostnames: an Indexed Job's pods are named <job>-<index>, which must be a DNS label.
func podHostnames(job *batchv1.Job) field.ErrorList {
	completions := ptr.Deref(job.Spec.Completions, 0)
	if !indexed(&job.Spec) || completions <= 0 {
		return nil
	}
	last := fmt.Sprintf("%s-%d", job.Name, completions-1)
	return validation.When(len(utilvalidation.IsDNS1123Label(last)) > 0,
		field.Invalid(metadata.Child("name"), job.Name, "will not able to create pod with invalid DNS label: "+last))
}

func indexed(s *batchv1.JobSpec) bool {
	return ptr.Deref(s.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
}

// jobSpec is what a Job and a CronJob's job template share: counts, limits, policies and the
// pod template (old is the stored spec on update).
func jobSpec(path *field.Path, s, old *batchv1.JobSpec) field.ErrorList {
	errs := validation.Join(
		nonNegative(path.Child("parallelism"), s.Parallelism),
		nonNegative(path.Child("completions"), s.Completions),
		nonNegative64(path.Child("activeDeadlineSeconds"), s.ActiveDeadlineSeconds),
		nonNegative(path.Child("backoffLimit"), s.BackoffLimit),
		nonNegative(path.Child("ttlSecondsAfterFinished"), s.TTLSecondsAfterFinished),
		nonNegative(path.Child("backoffLimitPerIndex"), s.BackoffLimitPerIndex),
		nonNegative(path.Child("maxFailedIndexes"), s.MaxFailedIndexes),
		validation.When(s.MaxFailedIndexes != nil && s.BackoffLimitPerIndex == nil,
			field.Required(path.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified").WithOrigin("dependentRequired").MarkCoveredByDeclarative()),
		validation.IfSet(path.Child("managedBy"), s.ManagedBy, managedBy),
		completionMode(path, s),
		validation.IfSet(path.Child("podFailurePolicy"), s.PodFailurePolicy, func(p *field.Path, policy batchv1.PodFailurePolicy) field.ErrorList {
			return podFailurePolicy(p, s, &policy)
		}),
		validation.IfSet(path.Child("successPolicy"), s.SuccessPolicy, func(p *field.Path, policy batchv1.SuccessPolicy) field.ErrorList {
			return successPolicy(p, s, &policy)
		}),
		validation.IfSet(path.Child("podReplacementPolicy"), s.PodReplacementPolicy, func(p *field.Path, policy batchv1.PodReplacementPolicy) field.ErrorList {
			if s.PodFailurePolicy != nil { // pods that fail are handled by the policy: replace them only then
				return validation.Supported(p, policy, batchv1.Failed)
			}
			return validation.Supported(p, policy, batchv1.Failed, batchv1.TerminatingOrFailed)
		}),
	)
	var oldTemplate *corev1.PodTemplateSpec
	if old != nil {
		oldTemplate = &old.Template
	}
	tpath := path.Child("template")
	return validation.Join(errs,
		pods.ValidatePodTemplateSpec(&s.Template, oldTemplate, tpath),
		restartPolicy(tpath.Child("spec", "restartPolicy"), s),
	)
}

// restartPolicy: a Job's pods finish, so they are not restarted once they succeed; with a pod
// failure policy, a failed pod is not restarted in place either (the policy decides).
func restartPolicy(path *field.Path, s *batchv1.JobSpec) field.ErrorList {
	switch p := s.Template.Spec.RestartPolicy; p {
	case corev1.RestartPolicyAlways, "":
		return field.ErrorList{field.Required(path, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever))}
	case corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return validation.When(s.PodFailurePolicy != nil && p != corev1.RestartPolicyNever,
			field.Invalid(path, p, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	default:
		return field.ErrorList{field.NotSupported(path, p, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
	}
}

// managedBy names the controller that runs the Job instead of kube-controller-manager's.
func managedBy(path *field.Path, v string) field.ErrorList {
	return validation.Join(
		utilvalidation.IsDomainPrefixedPath(path, v),
		validation.When(len(v) > maxManagedBy, field.TooLong(path, "", maxManagedBy)),
	)
}

// completionMode: NonIndexed Jobs count completions; Indexed ones give each pod an index and
// complete each index once, which needs a number of completions and bounds the lists of
// indexes the status keeps.
func completionMode(path *field.Path, s *batchv1.JobSpec) field.ErrorList {
	mode := path.Child("completionMode")
	switch ptr.Deref(s.CompletionMode, batchv1.NonIndexedCompletion) {
	case batchv1.NonIndexedCompletion: // per-index limits need indexes
		return validation.Join(
			validation.When(s.BackoffLimitPerIndex != nil, field.Invalid(path.Child("backoffLimitPerIndex"), deref(s.BackoffLimitPerIndex), "requires indexed completion mode")),
			validation.When(s.MaxFailedIndexes != nil, field.Invalid(path.Child("maxFailedIndexes"), deref(s.MaxFailedIndexes), "requires indexed completion mode")),
		)
	case batchv1.IndexedCompletion:
	default:
		return field.ErrorList{field.NotSupported(mode, s.CompletionMode, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion})}
	}
	parallelism, failed := path.Child("parallelism"), path.Child("maxFailedIndexes")
	p, c, f := deref(s.Parallelism), deref(s.Completions), deref(s.MaxFailedIndexes)
	errs := validation.Join(
		validation.When(s.Completions == nil, field.Required(path.Child("completions"), "when completion mode is Indexed")),
		validation.When(p > maxIndexedParallelism, field.Invalid(parallelism, p, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxIndexedParallelism))),
		validation.When(s.Completions != nil && s.MaxFailedIndexes != nil && f > c, field.Invalid(failed, f, "must be less than or equal to completions")),
		validation.When(f > maxFailedIndexes, field.Invalid(failed, f, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexes))),
	)
	if c <= manyCompletions || s.BackoffLimitPerIndex == nil {
		return errs
	}
	many := fmt.Sprintf("when completions are above %d and used with backoff limit per index", manyCompletions)
	return validation.Join(errs,
		validation.When(s.MaxFailedIndexes == nil, field.Required(failed, fmt.Sprintf("must be specified when completions is above %d", manyCompletions))),
		validation.When(p > maxParallelismForMany, field.Invalid(parallelism, p, fmt.Sprintf("must be less than or equal to %d %s", maxParallelismForMany, many))),
		validation.When(f > maxFailedIndexesForMany, field.Invalid(failed, f, fmt.Sprintf("must be less than or equal to %d %s", maxFailedIndexesForMany, many))),
	)
}

// completionsUpdate: a NonIndexed Job's completions are fixed; an Indexed Job scales by
// changing completions and parallelism together (elastic Indexed Jobs).
func completionsUpdate(path *field.Path, s, old *batchv1.JobSpec) field.ErrorList {
	p := path.Child("completions")
	if !indexed(s) {
		return validation.Immutable(p, s.Completions, old.Completions)
	}
	if s.Completions == nil || ptr.Equal(s.Completions, old.Completions) {
		return nil // a missing one is reported by completionMode
	}
	return validation.When(!ptr.Equal(s.Completions, s.Parallelism),
		field.Invalid(p, s.Completions, "can only be modified in tandem with spec.parallelism"))
}

// templateUpdate: the pod template is fixed, but while a Job is suspended and has not run
// (or was suspended after running, and has no active pods), its pods may be moved (node
// affinity, node selector, tolerations, scheduling gates, labels and annotations) and
// resized (container resources).
func templateUpdate(path *field.Path, old *batchv1.Job, s *batchv1.JobSpec) field.ErrorList {
	suspended := ptr.Deref(old.Spec.Suspend, false)
	notRunning := old.Status.StartTime == nil || condition(old, batchv1.JobSuspended, corev1.ConditionTrue)
	if !suspended || !notRunning || old.Status.Active != 0 {
		return immutable(path.Child("template"), s.Template, old.Spec.Template)
	}
	// The stored template with what may change taken from the new one.
	t, o := &s.Template, old.Spec.Template.DeepCopy()
	o.Labels, o.Annotations = t.Labels, t.Annotations
	o.Spec.NodeSelector, o.Spec.Tolerations, o.Spec.SchedulingGates = t.Spec.NodeSelector, t.Spec.Tolerations, t.Spec.SchedulingGates
	if t.Spec.Affinity != nil || o.Spec.Affinity != nil {
		a := o.Spec.Affinity
		if a == nil {
			a = &corev1.Affinity{}
		}
		a.NodeAffinity = nil
		if t.Spec.Affinity != nil {
			a.NodeAffinity = t.Spec.Affinity.NodeAffinity
		}
		if t.Spec.Affinity == nil && *a == (corev1.Affinity{}) {
			a = nil
		}
		o.Spec.Affinity = a
	}
	resized := func(new, old []corev1.Container) {
		if len(new) == len(old) {
			for i := range old {
				if old[i].Name == new[i].Name {
					old[i].Resources = new[i].Resources
				}
			}
		}
	}
	resized(t.Spec.Containers, o.Spec.Containers)
	resized(t.Spec.InitContainers, o.Spec.InitContainers)
	return immutable(path.Child("template", "spec"), t.Spec, o.Spec)
}

func deref(v *int32) int32 { return ptr.Deref(v, 0) }

func nonNegative(path *field.Path, v *int32) field.ErrorList {
	if v == nil {
		return nil
	}
	return validation.NonNegative(path, int64(*v))
}

func nonNegative64(path *field.Path, v *int64) field.ErrorList {
	if v == nil {
		return nil
	}
	return validation.NonNegative(path, *v)
}
