package kubelet_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/kubelet"
)

// TestPodsThatFinish: a pod with restartPolicy Never or OnFailure and apichain.io/run-seconds or
// apichain.io/exit-code ends as the kubelet reports a finished pod; OnFailure restarts a failed
// container; a pod without them, or with restartPolicy Always, keeps running.
func TestPodsThatFinish(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	ns := newNamespace(t, cl.client)
	pods := cl.client.CoreV1().Pods(ns)
	create := func(name string, policy corev1.RestartPolicy, annotations map[string]string) {
		t.Helper()
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
			Spec: corev1.PodSpec{RestartPolicy: policy, Containers: []corev1.Container{{Name: "main", Image: "busybox"}, {Name: "side", Image: "busybox"}}}},
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("succeeds", corev1.RestartPolicyNever, map[string]string{kubelet.RunSecondsAnnotation: "1"})
	create("fails", corev1.RestartPolicyNever, map[string]string{kubelet.ExitCodeAnnotation: "2"})
	create("restarts", corev1.RestartPolicyOnFailure, map[string]string{kubelet.RunSecondsAnnotation: "1", kubelet.ExitCodeAnnotation: "1"})
	create("always", corev1.RestartPolicyAlways, map[string]string{kubelet.RunSecondsAnnotation: "0"})

	finished := func(name string, phase corev1.PodPhase) *corev1.Pod {
		t.Helper()
		var pod *corev1.Pod
		eventually(t, name+" "+string(phase), func(ctx context.Context) (bool, error) {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			pod = p
			return err == nil && p.Status.Phase == phase, err
		})
		return pod
	}
	for _, c := range []struct {
		name   string
		phase  corev1.PodPhase
		code   int32
		reason string
	}{{"succeeds", corev1.PodSucceeded, 0, "Completed"}, {"fails", corev1.PodFailed, 2, "Error"}} {
		pod := finished(c.name, c.phase)
		for _, cs := range pod.Status.ContainerStatuses {
			term := cs.State.Terminated
			if term == nil || term.ExitCode != c.code || term.Reason != c.reason || cs.Ready || *cs.Started ||
				term.FinishedAt.Before(&term.StartedAt) || term.ContainerID != cs.ContainerID {
				t.Errorf("%s: container %s: %+v", c.name, cs.Name, cs)
			}
		}
		var conds []string
		for _, cond := range pod.Status.Conditions {
			conds = append(conds, string(cond.Type)+"="+string(cond.Status)+"/"+cond.Reason)
		}
		if got := strings.Join(conds, ","); got != "PodReadyToStartContainers=False/,Initialized=True/PodCompleted,Ready=False/PodCompleted,ContainersReady=False/PodCompleted,PodScheduled=True/" {
			t.Errorf("%s: conditions %s", c.name, got)
		}
	}
	if got := finished("succeeds", corev1.PodSucceeded); got.Status.ContainerStatuses[0].State.Terminated.FinishedAt.Sub(got.Status.StartTime.Time).Seconds() < 1 {
		t.Errorf("succeeds finished before its second: %+v", got.Status)
	}

	finished("always", corev1.PodRunning)
	eventually(t, "restarts restarted", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "restarts", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cs := p.Status.ContainerStatuses[0]
		last := cs.LastTerminationState.Terminated
		return p.Status.Phase == corev1.PodRunning && cs.RestartCount >= 1 && cs.State.Running != nil &&
			last != nil && last.ExitCode == 1 && last.Reason == "Error", nil
	})
	// Failed again: the kubelet backs off before the next restart, and the pod is not ready.
	eventually(t, "restarts in CrashLoopBackOff", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "restarts", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cs := p.Status.ContainerStatuses[0]
		ready := true
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				ready = c.Status == corev1.ConditionTrue && c.Reason == ""
				if !ready && c.Reason != "ContainersNotReady" {
					t.Errorf("Ready condition %+v", c)
				}
			}
		}
		return p.Status.Phase == corev1.PodRunning && cs.RestartCount == 2 && cs.State.Waiting != nil &&
			cs.State.Waiting.Reason == "CrashLoopBackOff" && !cs.Ready && !ready, nil
	})
	if p, err := pods.Get(ctx, "always", metav1.GetOptions{}); err != nil || p.Status.Phase != corev1.PodRunning {
		t.Errorf("a restartPolicy Always pod stopped running: %v %+v", err, p.Status)
	}
}
