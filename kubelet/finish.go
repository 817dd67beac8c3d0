package kubelet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Pods that finish. The simulated containers run forever unless their pod asks otherwise, with
// restartPolicy Never or OnFailure (as Job pods have) and either annotation:
//
//	apichain.io/run-seconds: "<n>"   the containers exit n seconds after they started (default 0)
//	apichain.io/exit-code:   "<c>"   with code c (default 0)
//
// Exit code 0 makes the pod Succeeded. Another code makes a Never pod Failed; an OnFailure pod
// has its containers restarted instead (restartCount+1, last state terminated with that code),
// to exit again n seconds later, as a kubelet restarts them: at once the first time, then after
// the kubelet's crash-loop back-off (waiting CrashLoopBackOff 10 s, doubling up to 5 min).
const (
	RunSecondsAnnotation = "apichain.io/run-seconds"
	ExitCodeAnnotation   = "apichain.io/exit-code"
)

// runPlan is how a finishing pod's containers run: for how long, and what they exit with.
type runPlan struct {
	runFor   time.Duration
	exitCode int32
}

// planOf reads the annotations of a pod that may finish; ok is false for a pod that runs forever
// (restartPolicy Always, no annotation, or a value that is not a number).
func planOf(pod *corev1.Pod) (plan runPlan, ok bool) {
	if pod.Spec.RestartPolicy != corev1.RestartPolicyNever && pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return runPlan{}, false
	}
	seconds, hasSeconds := pod.Annotations[RunSecondsAnnotation]
	code, hasCode := pod.Annotations[ExitCodeAnnotation]
	if !hasSeconds && !hasCode {
		return runPlan{}, false
	}
	if hasSeconds {
		n, err := strconv.ParseFloat(seconds, 64)
		if err != nil || n < 0 {
			return runPlan{}, false
		}
		plan.runFor = time.Duration(n * float64(time.Second))
	}
	if hasCode {
		c, err := strconv.ParseInt(code, 10, 32)
		if err != nil {
			return runPlan{}, false
		}
		plan.exitCode = int32(c)
	}
	return plan, true
}

// exitContainers applies plan to st, the running status of pod computed at now: the regular
// containers that have run long enough exit (or restart). It returns how long until the next
// container is due to exit, 0 when none is.
func exitContainers(pod *corev1.Pod, st *corev1.PodStatus, plan runPlan, now metav1.Time) (next time.Duration) {
	allExited, failed := true, false
	restarts := plan.exitCode != 0 && pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
	soonest := func(d time.Duration) {
		if next == 0 || d < next {
			next = d
		}
	}
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if restarts {
			if wait := backingOff(pod, cs, now); wait > 0 { // still waiting to be restarted
				allExited = false
				soonest(wait)
				continue
			}
		}
		if cs.State.Running == nil {
			continue
		}
		due := cs.State.Running.StartedAt.Add(plan.runFor)
		if now.Time.Before(due) {
			allExited = false
			soonest(due.Sub(now.Time))
			continue
		}
		exited := terminated(cs, plan.exitCode, metav1.NewTime(due).Rfc3339Copy())
		if restarts {
			// The kubelet restarts it, at once the first time, then after a back-off; it runs
			// again, for as long.
			cs.RestartCount++
			cs.LastTerminationState = corev1.ContainerState{Terminated: exited}
			cs.ContainerID = containerID(pod.UID, cs.Name, cs.RestartCount)
			allExited = false
			if wait := crashLoopBackOff(cs.RestartCount); wait > 0 {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
					Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", wait, cs.Name, pod.Name, pod.Namespace, pod.UID)}}
				cs.Ready, cs.Started = false, ptr.To(false)
				soonest(wait)
			} else {
				cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
				soonest(plan.runFor)
			}
			continue
		}
		cs.State = corev1.ContainerState{Terminated: exited}
		cs.Ready, cs.Started = false, ptr.To(false)
		failed = failed || plan.exitCode != 0
	}
	if !allExited || len(st.ContainerStatuses) == 0 {
		st.Conditions = unreadyConditions(pod, st, now)
		return next
	}
	// Every regular container is done: so is the pod, and its sidecars are stopped.
	st.Phase = corev1.PodSucceeded
	if failed {
		st.Phase = corev1.PodFailed
	}
	for i := range st.InitContainerStatuses {
		if cs := &st.InitContainerStatuses[i]; cs.State.Running != nil {
			cs.State = corev1.ContainerState{Terminated: terminated(cs, 0, now)}
			cs.Ready, cs.Started = false, ptr.To(false)
		}
	}
	st.Conditions = finishedConditions(pod, st.Conditions, now)
	return 0
}

// crashLoopBackOff is how long the kubelet waits before it restarts a container that failed for
// the restarts-th time (kubelet's backOff: none the first time, then 10 s doubling to 5 min).
func crashLoopBackOff(restarts int32) time.Duration {
	if restarts <= 1 {
		return 0
	}
	d := 10 * time.Second
	for i := int32(2); i < restarts && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// backingOff reports how long the container cs, which the kubelet reported waiting in
// CrashLoopBackOff, still waits; cs is then put back in that state. 0 means it runs now.
func backingOff(pod *corev1.Pod, cs *corev1.ContainerStatus, now metav1.Time) time.Duration {
	i := slices.IndexFunc(pod.Status.ContainerStatuses, func(o corev1.ContainerStatus) bool { return o.Name == cs.Name })
	if i < 0 {
		return 0
	}
	old := pod.Status.ContainerStatuses[i]
	last := old.LastTerminationState.Terminated
	if old.State.Waiting == nil || old.State.Waiting.Reason != "CrashLoopBackOff" || last == nil {
		return 0
	}
	restartAt := last.FinishedAt.Add(crashLoopBackOff(old.RestartCount))
	if !now.Time.Before(restartAt) {
		return 0
	}
	cs.State, cs.Ready, cs.Started = old.State, false, ptr.To(false)
	cs.RestartCount, cs.LastTerminationState, cs.ContainerID = old.RestartCount, old.LastTerminationState, old.ContainerID
	return restartAt.Sub(now.Time)
}

// unreadyConditions makes the pod not Ready while any of its containers waits to be restarted
// (kubelet status generate.go: ContainersNotReady).
func unreadyConditions(pod *corev1.Pod, st *corev1.PodStatus, now metav1.Time) []corev1.PodCondition {
	var unready []string
	for _, cs := range st.ContainerStatuses {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
	}
	if len(unready) == 0 {
		return st.Conditions
	}
	out := slices.Clone(st.Conditions)
	for i := range out {
		if c := &out[i]; c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
			c.LastTransitionTime = now
			for _, old := range pod.Status.Conditions {
				if old.Type == c.Type && old.Status == corev1.ConditionFalse {
					c.LastTransitionTime = old.LastTransitionTime
				}
			}
			c.Status, c.Reason = corev1.ConditionFalse, "ContainersNotReady"
			c.Message = fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
		}
	}
	return out
}

func terminated(cs *corev1.ContainerStatus, code int32, at metav1.Time) *corev1.ContainerStateTerminated {
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	return &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
		StartedAt: cs.State.Running.StartedAt, FinishedAt: at, ContainerID: cs.ContainerID}
}

// finishedConditions are the kubelet's conditions of a pod whose containers have all exited
// (kubelet status generate.go): its sandbox is gone, it is initialized and not ready, because
// it completed.
func finishedConditions(pod *corev1.Pod, conds []corev1.PodCondition, now metav1.Time) []corev1.PodCondition {
	out := slices.Clone(conds)
	for i := range out {
		c := &out[i]
		status, reason := c.Status, c.Reason
		switch c.Type {
		case corev1.PodReadyToStartContainers:
			status, reason = corev1.ConditionFalse, ""
		case corev1.PodInitialized:
			status, reason = corev1.ConditionTrue, "PodCompleted"
		case corev1.PodReady, corev1.ContainersReady:
			status, reason = corev1.ConditionFalse, "PodCompleted"
		default:
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message, c.ObservedGeneration = status, reason, "", pod.Generation
	}
	return out
}
