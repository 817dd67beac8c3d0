package job

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// manage creates the pods a running Job is missing and deletes those it has too many of
// (parallelism lowered, an index run twice). It returns how many it created and deleted and,
// when replacing failed pods waits out a back-off, how long.
func (c *Controller) manage(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus, done indexes,
	active, pods []*corev1.Pod, now time.Time) (created, deleted int, wait time.Duration, err error) {
	if !c.expect.Satisfied(key) {
		return 0, 0, 0, nil // the cache does not show our last writes yet
	}
	parallelism := int(ptr.Deref(job.Spec.Parallelism, 1))
	var extra []*corev1.Pod
	var missing []int // indexes to create pods for; -1 for a NonIndexed pod
	if isIndexed(job) {
		extra, missing = indexedPods(job, done, active, parallelism)
	} else {
		want := parallelism
		succeeded := int(st.Succeeded) + len(st.UncountedTerminatedPods.Succeeded)
		switch completions := job.Spec.Completions; {
		case completions != nil:
			want = min(parallelism, int(*completions)-succeeded)
		case succeeded > 0:
			want = len(active) // a work queue one of whose pods succeeded: no new pods
		}
		if diff := len(active) - want; diff > 0 {
			extra = slices.Clone(active)
			slices.SortFunc(extra, workload.DeleteFirst)
			extra = extra[:diff]
		}
		for range want - len(active) {
			missing = append(missing, -1)
		}
	}
	if len(extra) > 0 {
		extra = extra[:min(len(extra), workload.MaxBurst)]
		if deleted, err = c.stop(ctx, key, job, extra, false); err != nil {
			return 0, 0, 0, err
		}
	}
	if len(missing) == 0 {
		return 0, deleted, 0, nil
	}
	if wait = backoff(pods, now); wait > 0 {
		return 0, deleted, wait, nil
	}
	missing = missing[:min(len(missing), workload.MaxBurst)]
	owner := c.owner(job, nil)
	err = c.podControl.Create(ctx, key, owner, len(missing), func(i int) *corev1.Pod { return newPod(job, owner, missing[i]) })
	return len(missing), deleted, 0, err
}

// indexedPods sorts an Indexed Job's active pods into those to delete (an index already
// completed, out of range or run by an older pod, or beyond parallelism, the highest indexes
// first) and the indexes to create pods for, lowest first, up to parallelism.
func indexedPods(job *batchv1.Job, done indexes, active []*corev1.Pod, parallelism int) (extra []*corev1.Pod, missing []int) {
	byAge := slices.Clone(active)
	slices.SortFunc(byAge, func(a, b *corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	running := map[int]*corev1.Pod{}
	for _, p := range byAge {
		i, ok := indexOf(job, p)
		if !ok || done.Has(i) || running[i] != nil {
			extra = append(extra, p)
			continue
		}
		running[i] = p
	}
	kept := slices.Sorted(maps.Keys(running))
	for _, i := range kept[min(len(kept), parallelism):] {
		extra = append(extra, running[i])
	}
	for i := range int(ptr.Deref(job.Spec.Completions, 1)) {
		if len(kept)+len(missing) >= parallelism {
			break
		}
		if !done.Has(i) && running[i] == nil {
			missing = append(missing, i)
		}
	}
	return extra, missing
}

// newPod is the pod of job running index (-1 for a NonIndexed Job): the template's, with the
// tracking finalizer; an Indexed one has its index in its name, hostname, an annotation, a
// label and JOB_COMPLETION_INDEX.
func newPod(job *batchv1.Job, owner *workload.Owner, index int) *corev1.Pod {
	pod := workload.NewPod(owner, &job.Spec.Template)
	pod.Finalizers = append(pod.Finalizers, batchv1.JobTrackingFinalizer)
	if index < 0 {
		return pod
	}
	i := strconv.Itoa(index)
	pod.GenerateName = job.Name + "-" + i + "-"
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = i
	pod.Labels[batchv1.JobCompletionIndexAnnotation] = i
	if hostname := job.Name + "-" + i; pod.Spec.Hostname == "" && len(validation.IsDNS1123Label(hostname)) == 0 {
		pod.Spec.Hostname = hostname
	}
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"}}}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for j := range cs {
			if !slices.ContainsFunc(cs[j].Env, func(e corev1.EnvVar) bool { return e.Name == env.Name }) {
				cs[j].Env = append(cs[j].Env, env)
			}
		}
	}
	return pod
}

// backoff is how long the Job still waits before it replaces failed pods: 10 s after a
// failure, doubled for every further failure since the last success, at most 6 min.
func backoff(pods []*corev1.Pod, now time.Time) time.Duration {
	var lastSuccess, lastFailure time.Time
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded {
			lastSuccess = later(lastSuccess, finishedAt(p))
		}
	}
	failures := 0
	for _, p := range pods {
		failed := p.Status.Phase == corev1.PodFailed ||
			(workload.IsTerminating(p) && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer))
		if at := finishedAt(p); failed && at.After(lastSuccess) {
			failures++
			lastFailure = later(lastFailure, at)
		}
	}
	if failures == 0 {
		return 0
	}
	delay := min(10*time.Second<<min(failures-1, 6), 6*time.Minute)
	return lastFailure.Add(delay).Sub(now)
}

// finishedAt is when the pod's last container stopped; for a pod deleted before that, when it
// was deleted.
func finishedAt(p *corev1.Pod) time.Time {
	var at time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			at = later(at, t.FinishedAt.Time)
		}
	}
	if at.IsZero() && p.DeletionTimestamp != nil {
		at = p.DeletionTimestamp.Time
	}
	if at.IsZero() {
		at = p.CreationTimestamp.Time
	}
	return at
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func isIndexed(job *batchv1.Job) bool {
	return ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
}

// indexOf is the completion index of an Indexed Job's pod, when it has a valid one.
func indexOf(job *batchv1.Job, p *corev1.Pod) (int, bool) {
	if !isIndexed(job) {
		return 0, false
	}
	i, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
	if err != nil || i < 0 || i >= int(ptr.Deref(job.Spec.Completions, 1)) {
		return 0, false
	}
	return i, true
}
