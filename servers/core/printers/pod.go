package printers

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Pod prints core/v1 Pods; a finished pod's row carries a Completed condition.
var Pod = define("pods", func(p *corev1.Pod) []any {
	s := summarizePod(p)
	podIP := "<none>"
	if len(p.Status.PodIPs) > 0 && p.Status.PodIPs[0].IP != "" {
		podIP = p.Status.PodIPs[0].IP
	}
	return []any{p.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.status, s.restarts.String(), age(p.CreationTimestamp),
		podIP, cmp.Or(p.Spec.NodeName, "<none>"), cmp.Or(p.Status.NominatedNodeName, "<none>"), readinessGates(p)}
}).withConditions(podCompleted)

var (
	podSuccessConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	podFailedConditions  = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
)

// podCompleted tells kubectl which rows are finished pods (it hides them
// unless --show-all).
func podCompleted(obj runtime.Object) []metav1.TableRowCondition {
	if p, ok := obj.(*corev1.Pod); ok {
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			return podSuccessConditions
		case corev1.PodFailed:
			return podFailedConditions
		}
	}
	return nil
}

// podSummary is what the Ready, Status and Restarts cells show.
type podSummary struct {
	ready, total int // containers; sidecars (init containers that keep running) count too
	status       string
	restarts     restarts
}

// restarts adds up container restarts and remembers when the latest ended.
type restarts struct {
	count int
	last  time.Time
}

func (r *restarts) add(c corev1.ContainerStatus) {
	r.count += int(c.RestartCount)
	if t := c.LastTerminationState.Terminated; t != nil && t.FinishedAt.After(r.last) {
		r.last = t.FinishedAt.Time
	}
}

// String is the Restarts cell: "3", or "3 (5m ago)" once a restart is known.
func (r restarts) String() string {
	if r.count == 0 || r.last.IsZero() {
		return strconv.Itoa(r.count)
	}
	return fmt.Sprintf("%d (%s ago)", r.count, age(metav1.NewTime(r.last)))
}

// summarizePod reads a pod's status the way kubectl shows it: the pod's
// reason or phase, unless an init container holds the pod back or a
// container's state says more.
func summarizePod(p *corev1.Pod) podSummary {
	s := podSummary{total: len(p.Spec.Containers), status: cmp.Or(p.Status.Reason, string(p.Status.Phase))}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.status = corev1.PodReasonSchedulingGated
		}
	}
	sidecar := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecar[c.Name] = true
			s.total++
		}
	}

	// Init containers run in order: the first that has neither succeeded nor
	// (for a sidecar) started is where the pod stands.
	var initRestarts, sidecarRestarts restarts
	blocked := false
	for i, c := range p.Status.InitContainerStatuses {
		initRestarts.add(c)
		if sidecar[c.Name] {
			sidecarRestarts.add(c)
		}
		if t := c.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		if sidecar[c.Name] && c.Started != nil && *c.Started {
			if c.Ready {
				s.ready++
			}
			continue
		}
		s.status, blocked = initStatus(c, i, len(p.Spec.InitContainers)), true
		break
	}

	s.restarts = initRestarts
	if !blocked || conditionTrue(p, corev1.PodInitialized) {
		s.restarts = sidecarRestarts
		summarizeContainers(p, &s)
	}

	if p.DeletionTimestamp != nil {
		if p.Status.Reason == "NodeLost" {
			s.status = "Unknown"
		} else if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			s.status = "Terminating"
		}
	}
	return s
}

// initStatus is the Status of a pod held back by its i-th init container c.
func initStatus(c corev1.ContainerStatus, i, n int) string {
	if t := c.State.Terminated; t != nil {
		return "Init:" + exitStatus(t)
	}
	if w := c.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
		return "Init:" + w.Reason
	}
	return fmt.Sprintf("Init:%d/%d", i, n)
}

// exitStatus names how a container ended: its reason, else its signal or exit code.
func exitStatus(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	}
	return fmt.Sprintf("ExitCode:%d", t.ExitCode)
}

// summarizeContainers adds the regular containers to s. The first container
// that is waiting or has ended names the status, so they are read last to
// first; a pod whose containers completed while another still runs is shown
// as Running, NotReady or the failure.
func summarizeContainers(p *corev1.Pod, s *podSummary) {
	running, failure := false, ""
	for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := p.Status.ContainerStatuses[i]
		s.restarts.add(c)
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			s.status = c.State.Waiting.Reason
		case c.State.Terminated != nil:
			s.status = exitStatus(c.State.Terminated)
			if c.State.Terminated.ExitCode != 0 {
				failure = s.status
			}
		case c.Ready && c.State.Running != nil:
			running = true
			s.ready++
		}
	}
	if s.status != "Completed" {
		return
	}
	switch {
	case running && conditionTrue(p, corev1.PodReady):
		s.status = "Running"
	case failure != "":
		s.status = failure
	case running:
		s.status = "NotReady"
	}
}

// conditionTrue tells whether the pod's first condition of type t is True.
func conditionTrue(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readinessGates is the Readiness Gates cell: how many of the pod's gates are
// met, "1/3", or <none>.
func readinessGates(p *corev1.Pod) string {
	gates := p.Spec.ReadinessGates
	if len(gates) == 0 {
		return "<none>"
	}
	met := 0
	for _, g := range gates {
		if conditionTrue(p, g.ConditionType) {
			met++
		}
	}
	return fmt.Sprintf("%d/%d", met, len(gates))
}
