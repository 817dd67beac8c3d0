package workload

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDeleteFirst(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name, node string, phase corev1.PodPhase, readyAt time.Duration, restarts int32, cost string, created time.Duration) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(base.Add(created))},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{RestartCount: restarts}}},
		}
		if readyAt > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(base.Add(readyAt))}}
		}
		if cost != "" {
			p.Annotations = map[string]string{DeletionCostAnnotation: cost}
		}
		return p
	}
	// In the order a scale-down takes them.
	want := []*corev1.Pod{
		pod("unscheduled", "", corev1.PodPending, 0, 0, "", 0),
		pod("pending", "n", corev1.PodPending, 0, 0, "", 0),
		pod("unknown", "n", corev1.PodUnknown, 0, 0, "", 0),
		pod("not-ready", "n", corev1.PodRunning, 0, 0, "", 0),
		pod("cheap", "n", corev1.PodRunning, time.Hour, 0, "-10", 0),
		pod("ready-lately", "n", corev1.PodRunning, 2*time.Hour, 0, "", 0),
		pod("restarted", "n", corev1.PodRunning, time.Hour, 3, "", 0),
		pod("young", "n", corev1.PodRunning, time.Hour, 0, "", time.Minute),
		pod("old", "n", corev1.PodRunning, time.Hour, 0, "", 0),
		pod("precious", "n", corev1.PodRunning, time.Hour, 0, "100", 0),
	}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, DeleteFirst)
	names := func(pods []*corev1.Pod) (out []string) {
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return out
	}
	if !slices.Equal(names(got), names(want)) {
		t.Errorf("order %v\nwant  %v", names(got), names(want))
	}
}

func TestInBatches(t *testing.T) {
	for _, tc := range []struct {
		n, failAt       int // the call that fails (1-based), 0 for none
		calls, notTried int
	}{
		{n: 10, calls: 10},
		{n: 10, failAt: 1, calls: 1, notTried: 9},
		{n: 10, failAt: 5, calls: 7, notTried: 3}, // batches of 1, 2, 4: the third fails
		{n: 3, failAt: 3, calls: 3},
	} {
		var calls atomic.Int32
		notTried, err := InBatches(tc.n, func() error {
			if int(calls.Add(1)) == tc.failAt {
				return errors.New("refused")
			}
			return nil
		})
		if int(calls.Load()) != tc.calls || notTried != tc.notTried || (err != nil) != (tc.failAt > 0) {
			t.Errorf("n %d failing call %d: %d calls, %d not tried, err %v; want %d, %d", tc.n, tc.failAt, calls.Load(), notTried, err, tc.calls, tc.notTried)
		}
	}
}

func TestExpectations(t *testing.T) {
	e := NewExpectations()
	if !e.Satisfied("ns/a") {
		t.Error("nothing expected, yet not satisfied")
	}
	e.Expect("ns/a", 2, "uid-1")
	e.Created("ns/a", 1)
	e.Deleted("ns/a", "uid-1")
	if e.Satisfied("ns/a") {
		t.Error("satisfied with one creation unseen")
	}
	e.Created("ns/a", 1)
	if !e.Satisfied("ns/a") {
		t.Error("every write seen, yet not satisfied")
	}
	e.Expect("ns/b", 1)
	e.maxAge = 0
	if !e.Satisfied("ns/b") {
		t.Error("writes too old to wait for still block")
	}
}
