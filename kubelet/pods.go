package kubelet

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// podHandler queues the pods bound to our nodes, and forgets a deleted pod at once: its
// address goes back to the pool, its usage off the metrics, and its logs end.
func (s *Simulator) podHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" || s.node(pod.Spec.NodeName) == nil {
			return
		}
		if key, err := cache.MetaNamespaceKeyFunc(pod); err == nil {
			s.podQueue.Add(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: func(obj any) {
			pod, ok := tombstone[*corev1.Pod](obj)
			if !ok {
				return
			}
			if pod.Spec.NodeName == "" {
				return
			}
			if n := s.node(pod.Spec.NodeName); n != nil {
				n.podsMu.Lock()
				if n.pods != nil {
					n.pods.release(pod.UID)
				}
				n.podsMu.Unlock()
			}
			s.usage.forget(pod.UID)
			s.logs.podGone(pod.UID, time.Now())
		},
	}
}

// syncPod makes a pod bound to one of our nodes Running, or finishes its deletion.
func (s *Simulator) syncPod(ctx context.Context, key string) error {
	obj, exists, err := s.pods.GetByKey(key)
	if err != nil || !exists {
		return err
	}
	pod := obj.(*corev1.Pod)
	n := s.node(pod.Spec.NodeName)
	switch {
	case n == nil:
		return nil
	case pod.DeletionTimestamp != nil:
		return s.finish(ctx, pod)
	case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
		return nil // a finished pod stays finished
	}
	status, err := s.runningStatus(pod, n)
	if err != nil {
		return err
	}
	if plan, ok := planOf(pod); ok { // a pod that finishes (finish.go)
		if next := exitContainers(pod, status, plan, metav1.Now().Rfc3339Copy()); next > 0 {
			s.podQueue.AddAfter(key, next)
		}
	}
	s.logs.observe(pod, status, time.Now())
	if apiequality.Semantic.DeepEqual(*status, pod.Status) {
		return nil
	}
	updated := pod.DeepCopy()
	updated.Status = *status
	client, err := s.clientOf(pod.Spec.NodeName)
	if err != nil {
		return err
	}
	_, err = client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, asKubelet)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// finish ends a pod whose deletion has begun: its containers "stopped" at once, so the
// kubelet's status manager deletes it for good (grace period 0, only this very pod).
func (s *Simulator) finish(ctx context.Context, pod *corev1.Pod) error {
	client, err := s.clientOf(pod.Spec.NodeName)
	if err != nil {
		return err
	}
	err = client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      metav1.NewUIDPreconditions(string(pod.UID)),
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or another pod by now
		return nil
	}
	return err
}

// runningStatus is the status a kubelet reports for the pod once its containers run
// (kubelet generateAPIPodStatus and convertToAPIContainerStatuses). It starts from the pod's
// current status, so that what the kubelet does not own stays and what it reported before
// (start times, addresses, container IDs) does not move.
func (s *Simulator) runningStatus(pod *corev1.Pod, n *node) (*corev1.PodStatus, error) {
	st := pod.Status.DeepCopy()
	now := metav1.Now().Rfc3339Copy()
	st.Phase = corev1.PodRunning
	st.ObservedGeneration = pod.Generation
	st.HostIP = s.nodeIP.String()
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	switch {
	case pod.Spec.HostNetwork:
		st.PodIP = s.nodeIP.String()
	default:
		pool, err := s.pool(n)
		if err != nil {
			return nil, err
		}
		if a, err := netip.ParseAddr(st.PodIP); err == nil && pool.claim(pod.UID, a) {
			break // an address, once reported, stays the pod's
		}
		a, err := pool.allocate(pod.UID)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s on %s: %w", pod.Namespace, pod.Name, n.name, err)
		}
		st.PodIP = a.String()
	}
	st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}

	var initStatuses []corev1.ContainerStatus
	for _, c := range pod.Spec.InitContainers {
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		initStatuses = append(initStatuses, containerStatus(pod, &c, pod.Status.InitContainerStatuses, !sidecar, *st.StartTime, now))
	}
	st.InitContainerStatuses = initStatuses
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus(pod, &c, pod.Status.ContainerStatuses, false, *st.StartTime, now))
	}
	st.EphemeralContainerStatuses = nil
	for _, ec := range pod.Spec.EphemeralContainers {
		c := corev1.Container(ec.EphemeralContainerCommon)
		st.EphemeralContainerStatuses = append(st.EphemeralContainerStatuses, containerStatus(pod, &c, pod.Status.EphemeralContainerStatuses, false, *st.StartTime, now))
	}
	// The kubelet lists regular and ephemeral containers by name, init containers in order.
	byName := func(a, b corev1.ContainerStatus) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(st.ContainerStatuses, byName)
	slices.SortFunc(st.EphemeralContainerStatuses, byName)

	st.Conditions = podConditions(pod, now)
	return st, nil
}

// containerStatus reports container c running (or, for an init container that is not a
// sidecar, completed), as containerd would after pulling its image. A container whose image
// changed since the last report was restarted, as a kubelet restarts it.
func containerStatus(pod *corev1.Pod, c *corev1.Container, old []corev1.ContainerStatus, completes bool, podStart, now metav1.Time) corev1.ContainerStatus {
	ref := resolveImage(c.Image)
	cs := corev1.ContainerStatus{
		Name:         c.Name,
		Image:        ref.Image(),
		ImageID:      ref.ID(),
		Ready:        true,
		Started:      ptr.To(!completes),
		Resources:    c.Resources.DeepCopy(),
		VolumeMounts: volumeMounts(c),
		User:         containerUser(pod, c),
	}
	if len(c.Resources.Requests) > 0 {
		cs.AllocatedResources = c.Resources.Requests.DeepCopy()
	}
	startedAt := now
	if i := slices.IndexFunc(old, func(o corev1.ContainerStatus) bool { return o.Name == c.Name }); i >= 0 {
		prev := old[i]
		cs.RestartCount, cs.LastTerminationState = prev.RestartCount, prev.LastTerminationState
		switch {
		case prev.Image != cs.Image && prev.State.Running != nil:
			cs.RestartCount++
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", StartedAt: prev.State.Running.StartedAt, FinishedAt: now, ContainerID: prev.ContainerID}}
		case prev.State.Running != nil:
			startedAt = prev.State.Running.StartedAt
		case prev.State.Terminated != nil && completes:
			startedAt = prev.State.Terminated.StartedAt
		}
	}
	cs.ContainerID = containerID(pod.UID, c.Name, cs.RestartCount)
	if completes {
		if startedAt.After(podStart.Time) {
			startedAt = podStart
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: startedAt, FinishedAt: startedAt, ContainerID: cs.ContainerID}
	} else {
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: startedAt}
	}
	return cs
}

// volumeMounts reports the container's mounts (kubelet, RecursiveReadOnlyMounts): a
// read-only mount says whether it is recursively read-only; this runtime supports it.
func volumeMounts(c *corev1.Container) []corev1.VolumeMountStatus {
	var out []corev1.VolumeMountStatus
	for _, m := range c.VolumeMounts {
		vs := corev1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			mode := corev1.RecursiveReadOnlyDisabled
			if m.RecursiveReadOnly != nil && *m.RecursiveReadOnly != corev1.RecursiveReadOnlyDisabled {
				mode = corev1.RecursiveReadOnlyEnabled
			}
			vs.RecursiveReadOnly = &mode
		}
		out = append(out, vs)
	}
	return out
}

// containerUser is the identity the container's process runs as: root unless the security
// context says otherwise; its supplemental groups are its group, the pod's, and the fsGroup.
func containerUser(pod *corev1.Pod, c *corev1.Container) *corev1.ContainerUser {
	if pod.Spec.OS != nil && pod.Spec.OS.Name == corev1.Windows {
		return nil
	}
	uid, gid := int64(0), int64(0)
	groups := []int64{}
	if psc := pod.Spec.SecurityContext; psc != nil {
		uid, gid = ptr.Deref(psc.RunAsUser, uid), ptr.Deref(psc.RunAsGroup, gid)
		groups = append(groups, psc.SupplementalGroups...)
		if psc.FSGroup != nil {
			groups = append(groups, *psc.FSGroup)
		}
	}
	if csc := c.SecurityContext; csc != nil {
		uid, gid = ptr.Deref(csc.RunAsUser, uid), ptr.Deref(csc.RunAsGroup, gid)
	}
	groups = append(groups, gid)
	slices.Sort(groups)
	return &corev1.ContainerUser{Linux: &corev1.LinuxContainerUser{UID: uid, GID: gid, SupplementalGroups: slices.Compact(groups)}}
}

// kubeletConditions are the pod conditions the kubelet owns (kubelet/types PodConditionsByKubelet).
var kubeletConditions = []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized,
	corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}

// podConditions keeps the conditions others own and appends the kubelet's, all True for a pod
// whose containers run, except Ready while a readiness gate is not (kubelet status generate.go).
func podConditions(pod *corev1.Pod, now metav1.Time) []corev1.PodCondition {
	var out []corev1.PodCondition
	for _, c := range pod.Status.Conditions {
		if !slices.Contains(kubeletConditions, c.Type) {
			out = append(out, c)
		}
	}
	for _, t := range kubeletConditions {
		c := corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, ObservedGeneration: pod.Generation}
		if t == corev1.PodReady {
			if msg := unreadyGates(pod); msg != "" {
				c.Status, c.Reason, c.Message = corev1.ConditionFalse, "ReadinessGatesNotReady", msg
			}
		}
		c.LastTransitionTime = now
		for _, old := range pod.Status.Conditions {
			if old.Type == t && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		out = append(out, c)
	}
	return out
}

func unreadyGates(pod *corev1.Pod) string {
	var msgs []string
	for _, rg := range pod.Spec.ReadinessGates {
		i := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == rg.ConditionType })
		switch {
		case i < 0:
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(rg.ConditionType)))
		case pod.Status.Conditions[i].Status != corev1.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(rg.ConditionType), pod.Status.Conditions[i].Status))
		}
	}
	return strings.Join(msgs, ", ")
}

// runningPods are the pods of node n the metrics report: running, not being deleted.
func (s *Simulator) runningPods(n *node) []*corev1.Pod {
	objs, _ := s.pods.ByIndex(sharedinformers.PodsByNode, n.name)
	var pods []*corev1.Pod
	for _, obj := range objs {
		p := obj.(*corev1.Pod)
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			pods = append(pods, p)
		}
	}
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].Namespace != pods[j].Namespace {
			return pods[i].Namespace < pods[j].Namespace
		}
		return pods[i].Name < pods[j].Name
	})
	return pods
}
