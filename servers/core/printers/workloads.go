package printers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// apps, batch, autoscaling and policy: what runs pods, and what scales or
// protects them.

var Deployment = define("deployments.apps", func(d *appsv1.Deployment) []any {
	containers := d.Spec.Template.Spec.Containers
	return []any{d.Name, ratio(d.Status.ReadyReplicas, ptr.Deref(d.Spec.Replicas, 0)), d.Status.UpdatedReplicas, d.Status.AvailableReplicas,
		age(d.CreationTimestamp), containerNames(containers), containerImages(containers), metav1.FormatLabelSelector(d.Spec.Selector)}
})

var ReplicaSet = define("replicasets.apps", func(rs *appsv1.ReplicaSet) []any {
	containers := rs.Spec.Template.Spec.Containers
	return []any{rs.Name, ptr.Deref(rs.Spec.Replicas, 0), rs.Status.Replicas, rs.Status.ReadyReplicas, age(rs.CreationTimestamp),
		containerNames(containers), containerImages(containers), metav1.FormatLabelSelector(rs.Spec.Selector)}
})

var StatefulSet = define("statefulsets.apps", func(s *appsv1.StatefulSet) []any {
	containers := s.Spec.Template.Spec.Containers
	return []any{s.Name, ratio(s.Status.ReadyReplicas, ptr.Deref(s.Spec.Replicas, 0)), age(s.CreationTimestamp),
		containerNames(containers), containerImages(containers)}
})

var DaemonSet = define("daemonsets.apps", func(ds *appsv1.DaemonSet) []any {
	st, pod := ds.Status, ds.Spec.Template.Spec
	return []any{ds.Name, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable,
		labels.FormatLabels(pod.NodeSelector), age(ds.CreationTimestamp),
		containerNames(pod.Containers), containerImages(pod.Containers), metav1.FormatLabelSelector(ds.Spec.Selector)}
})

// ControllerRevision names its controller as kind.group/name.
var ControllerRevision = define("controllerrevisions.apps", func(r *appsv1.ControllerRevision) []any {
	controller := "<none>"
	if ref := metav1.GetControllerOfNoCopy(r); ref != nil {
		controller = ref.Name
		if kind := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind(); !kind.Empty() {
			controller = strings.ToLower(kind.String()) + "/" + ref.Name
		}
	}
	return []any{r.Name, controller, r.Revision, age(r.CreationTimestamp)}
})

var Job = define("jobs.batch", func(j *batchv1.Job) []any {
	containers := j.Spec.Template.Spec.Containers
	return []any{j.Name, jobStatus(j), jobCompletions(j), jobDuration(j), age(j.CreationTimestamp),
		containerNames(containers), containerImages(containers), metav1.FormatLabelSelector(j.Spec.Selector)}
})

// jobStatus is the first that holds of: Complete, Failed, being deleted,
// Suspended, FailureTarget, SuccessCriteriaMet.
func jobStatus(j *batchv1.Job) string {
	holds := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	}
	switch {
	case holds(batchv1.JobComplete):
		return "Complete"
	case holds(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case holds(batchv1.JobSuspended):
		return "Suspended"
	case holds(batchv1.JobFailureTarget):
		return "FailureTarget"
	case holds(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobCompletions is "succeeded/completions"; a job without completions is
// done after one success, and shows how many pods run at once beyond one.
func jobCompletions(j *batchv1.Job) string {
	if c := j.Spec.Completions; c != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *c)
	}
	if p := ptr.Deref(j.Spec.Parallelism, 0); p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

// jobDuration is how long the job ran, or has been running.
func jobDuration(j *batchv1.Job) string {
	start, end := j.Status.StartTime, j.Status.CompletionTime
	switch {
	case start == nil:
		return ""
	case end == nil:
		return duration.HumanDuration(time.Since(start.Time))
	}
	return duration.HumanDuration(end.Sub(start.Time))
}

var CronJob = define("cronjobs.batch", func(cj *batchv1.CronJob) []any {
	lastSchedule := "<none>"
	if t := cj.Status.LastScheduleTime; t != nil {
		lastSchedule = age(*t)
	}
	job := cj.Spec.JobTemplate.Spec
	return []any{cj.Name, cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, "<none>"), boolText(cj.Spec.Suspend), len(cj.Status.Active),
		lastSchedule, age(cj.CreationTimestamp),
		containerNames(job.Template.Spec.Containers), containerImages(job.Template.Spec.Containers), metav1.FormatLabelSelector(job.Selector)}
})

var PodDisruptionBudget = define("poddisruptionbudgets.policy", func(pdb *policyv1.PodDisruptionBudget) []any {
	orNA := func(v *intstr.IntOrString) string {
		if v == nil {
			return "N/A"
		}
		return v.String()
	}
	return []any{pdb.Name, orNA(pdb.Spec.MinAvailable), orNA(pdb.Spec.MaxUnavailable), pdb.Status.DisruptionsAllowed, age(pdb.CreationTimestamp)}
})

var HorizontalPodAutoscaler = define("horizontalpodautoscalers.autoscaling", func(h *autoscalingv2.HorizontalPodAutoscaler) []any {
	minPods := "<unset>"
	if m := h.Spec.MinReplicas; m != nil {
		minPods = strconv.Itoa(int(*m))
	}
	var targets []string
	for i, metric := range h.Spec.Metrics {
		var current *autoscalingv2.MetricValueStatus
		if i < len(h.Status.CurrentMetrics) && h.Status.CurrentMetrics[i].Type == metric.Type {
			current = measured(h.Status.CurrentMetrics[i])
		}
		targets = append(targets, metricTarget(metric, current))
	}
	shown := "<none>"
	if len(targets) > 0 {
		shown = firstOf(targets, 2, ", ")
	}
	ref := h.Spec.ScaleTargetRef
	return []any{h.Name, ref.Kind + "/" + ref.Name, shown, minPods, h.Spec.MaxReplicas, h.Status.CurrentReplicas, age(h.CreationTimestamp)}
})

// metricTarget is one metric of the Targets cell, "current/target", with
// <unknown> for what the autoscaler has not measured yet.
func metricTarget(m autoscalingv2.MetricSpec, current *autoscalingv2.MetricValueStatus) string {
	name, target := metricSource(m)
	if target == nil {
		return "<unknown type>"
	}
	var now autoscalingv2.MetricValueStatus
	if current != nil {
		now = *current
	}
	switch m.Type {
	case autoscalingv2.PodsMetricSourceType:
		return quantity(now.AverageValue) + "/" + quantity(target.AverageValue)
	case autoscalingv2.ObjectMetricSourceType, autoscalingv2.ExternalMetricSourceType:
		if target.AverageValue != nil {
			return quantity(now.AverageValue) + "/" + quantity(target.AverageValue) + " (avg)"
		}
		return quantity(now.Value) + "/" + quantity(target.Value)
	}
	// A resource of the pods, or of one container in each: a quantity or a
	// percentage of what the pods request.
	if target.AverageValue != nil {
		return name + ": " + quantity(now.AverageValue) + "/" + quantity(target.AverageValue)
	}
	return name + ": " + percent(now.AverageUtilization, "<unknown>") + "/" + percent(target.AverageUtilization, "<auto>")
}

// metricSource is a metric's target and, for resource metrics, the resource.
func metricSource(m autoscalingv2.MetricSpec) (resourceName string, target *autoscalingv2.MetricTarget) {
	switch {
	case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
		return string(m.Resource.Name), &m.Resource.Target
	case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
		return string(m.ContainerResource.Name), &m.ContainerResource.Target
	case m.Type == autoscalingv2.PodsMetricSourceType && m.Pods != nil:
		return "", &m.Pods.Target
	case m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil:
		return "", &m.Object.Target
	case m.Type == autoscalingv2.ExternalMetricSourceType && m.External != nil:
		return "", &m.External.Target
	}
	return "", nil
}

// measured is the value a metric status reports, whatever its source.
func measured(s autoscalingv2.MetricStatus) *autoscalingv2.MetricValueStatus {
	switch {
	case s.Resource != nil:
		return &s.Resource.Current
	case s.ContainerResource != nil:
		return &s.ContainerResource.Current
	case s.Pods != nil:
		return &s.Pods.Current
	case s.Object != nil:
		return &s.Object.Current
	case s.External != nil:
		return &s.External.Current
	}
	return nil
}

func quantity(q *resource.Quantity) string {
	if q == nil {
		return "<unknown>"
	}
	return q.String()
}

func percent(p *int32, unset string) string {
	if p == nil {
		return unset
	}
	return fmt.Sprintf("%d%%", *p)
}
