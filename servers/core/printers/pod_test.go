package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// priorityZeroCells keeps the cells of the default (non -o wide) columns, the
// view upstream's tests check when they print without GenerateOptions.Wide.
func priorityZeroCells(p Printer, cells []interface{}) []interface{} {
	var out []interface{}
	for i, c := range p.Columns {
		if c.Priority == 0 && i < len(cells) {
			out = append(out, cells[i])
		}
	}
	return out
}

// checkRow prints obj with p and compares the cells with want: all the cells
// when wide, else the default columns only.
func checkRow(t *testing.T, name string, p Printer, obj runtime.Object, wide bool, want []interface{}) {
	t.Helper()
	got, err := p.Row(obj)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(got) != len(p.Columns) {
		t.Errorf("%s: %d cells for %d columns", name, len(got), len(p.Columns))
	}
	if !wide {
		got = priorityZeroCells(p, got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", name, got, want)
	}
}

func running() corev1.ContainerState {
	return corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
}

func waiting(reason string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
}

func terminated(reason string, exitCode int32) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: exitCode}}
}

func finishedAgo(d time.Duration) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(time.Now().Add(-d))}}
}

// TestPodStatusCells follows upstream's TestPrintPod, TestPrintNonTerminatedPod
// and TestPrintPodWithRestartableInitContainer (expected values copied from
// pkg/printers/internalversion/printers_test.go), plus the CrashLoopBackOff,
// ContainerCreating and NodeLost reasons that printPod's logic yields.
func TestPodStatusCells(t *testing.T) {
	deleteTime := metav1.NewTime(time.Now().Add(-10 * time.Second))
	always := corev1.ContainerRestartPolicyAlways
	started, notStarted := true, false
	tests := []struct {
		name       string
		pod        corev1.Pod
		want       []interface{}
		conditions []metav1.TableRowCondition
	}{
		{"test1: ready, restarts", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test1"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "podPhase", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {RestartCount: 3}}}},
			[]interface{}{"test1", "1/2", "podPhase", "6", "<unknown>"}, nil},
		{"test2: waiting reason overwrites phase", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test2"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "podPhase", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {State: waiting("ContainerWaitingReason"), RestartCount: 3}}}},
			[]interface{}{"test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"}, nil},
		{"test3: first container wins", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test3"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "podPhase", ContainerStatuses: []corev1.ContainerStatus{{State: waiting("ContainerWaitingReason"), RestartCount: 3}, {State: terminated("ContainerTerminatedReason", 0), RestartCount: 3}}}},
			[]interface{}{"test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"}, nil},
		{"test5: pod reason", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test5"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Reason: "podReason", Phase: "podPhase", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {Ready: true, RestartCount: 3}}}},
			[]interface{}{"test5", "1/2", "podReason", "6", "<unknown>"}, nil},
		{"test6: completed+running without ready condition", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test6"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "Running", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: terminated("Completed", 0)}, {Ready: true, RestartCount: 3, State: running()}}}},
			[]interface{}{"test6", "1/2", "NotReady", "6", "<unknown>"}, nil},
		{"test6: completed+running with ready condition", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test6"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "Running", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: terminated("Completed", 0)}, {Ready: true, RestartCount: 3, State: running()}},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastProbeTime: metav1.Now()}}}},
			[]interface{}{"test6", "1/2", "Running", "6", "<unknown>"}, nil},
		{"test7: Init:0/1", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test7"}, Spec: corev1.PodSpec{InitContainers: make([]corev1.Container, 1), Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: "podPhase",
				InitContainerStatuses: []corev1.ContainerStatus{{RestartCount: 3, State: running(), LastTerminationState: finishedAgo(10 * time.Second)}},
				ContainerStatuses:     []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}}}},
			[]interface{}{"test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"}, nil},
		{"test9: Init:1/2", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test9"}, Spec: corev1.PodSpec{InitContainers: make([]corev1.Container, 2), Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: "podPhase",
				InitContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{}}}, {RestartCount: 3, State: running(), LastTerminationState: finishedAgo(10 * time.Second)}},
				ContainerStatuses:     []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}}}},
			[]interface{}{"test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"}, nil},
		{"test11: init done, container restarting", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test11"}, Spec: corev1.PodSpec{InitContainers: make([]corev1.Container, 1), Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: "Running",
				InitContainerStatuses: []corev1.ContainerStatus{{RestartCount: 2, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{}}, LastTerminationState: finishedAgo(2 * time.Minute)}},
				ContainerStatuses:     []corev1.ContainerStatus{{RestartCount: 4, State: running(), LastTerminationState: finishedAgo(20 * time.Second)}}}},
			[]interface{}{"test11", "0/1", "Running", "4 (20s ago)", "<unknown>"}, nil},
		{"test14: restarts summed, latest restart", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test14"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "Running", ContainerStatuses: []corev1.ContainerStatus{
				{Ready: true, RestartCount: 6, State: running(), LastTerminationState: finishedAgo(5 * 24 * time.Hour)},
				{Ready: true, RestartCount: 3, State: running(), LastTerminationState: finishedAgo(20 * 24 * time.Hour)}}}},
			[]interface{}{"test14", "2/2", "Running", "9 (5d ago)", "<unknown>"}, nil},
		{"test15: SchedulingGated", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test15"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "podPhase", Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}}},
			[]interface{}{"test15", "0/2", corev1.PodReasonSchedulingGated, "0", "<unknown>"}, nil},
		{"test16: Completed", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test16"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{State: terminated("Completed", 0)}}}},
			[]interface{}{"test16", "0/1", "Completed", "0", "<unknown>"}, podSuccessConditions},
		{"test17: Error", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test17"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{State: terminated("Error", 1)}}}},
			[]interface{}{"test17", "0/1", "Error", "0", "<unknown>"}, podFailedConditions},
		{"test18: succeeded pod being deleted stays Completed", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test18", DeletionTimestamp: &deleteTime}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{State: terminated("Completed", 0)}}}},
			[]interface{}{"test18", "0/1", "Completed", "0", "<unknown>"}, podSuccessConditions},
		{"test19: Terminating", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test19", DeletionTimestamp: &deleteTime}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{State: running()}}}},
			[]interface{}{"test19", "0/1", "Terminating", "0", "<unknown>"}, nil},
		{"test20: pending pod Terminating", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test20", DeletionTimestamp: &deleteTime}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodPending}},
			[]interface{}{"test20", "0/1", "Terminating", "0", "<unknown>"}, nil},
		{"test21: error reason beats running", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test21"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{State: terminated("podCrash", 1)}, {Ready: true, State: running()}}}},
			[]interface{}{"test21", "1/2", "podCrash", "0", "<unknown>"}, podFailedConditions},
		{"non-terminated: Pending", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test2"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {RestartCount: 3}}}},
			[]interface{}{"test2", "1/2", "Pending", "6", "<unknown>"}, nil},
		{"restartable init: Init:0/2 counts sidecars", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test1"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "restartable-init-1", RestartPolicy: &always}, {Name: "restartable-init-2", RestartPolicy: &always}}, Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: "Pending",
				InitContainerStatuses: []corev1.ContainerStatus{
					{Name: "restartable-init-1", RestartCount: 3, State: running(), Started: &notStarted, LastTerminationState: finishedAgo(10 * time.Second)},
					{Name: "restartable-init-2", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}, Started: &notStarted}},
				ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}},
				Conditions:        []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionFalse}}}},
			[]interface{}{"test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"}, nil},
		{"restartable init: Init:1/2", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test1"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "restartable-init-1", RestartPolicy: &always}, {Name: "restartable-init-2", RestartPolicy: &always}}, Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: "Pending",
				InitContainerStatuses: []corev1.ContainerStatus{
					{Name: "restartable-init-1", RestartCount: 3, State: running(), Started: &started, LastTerminationState: finishedAgo(10 * time.Second)},
					{Name: "restartable-init-2", State: running(), Started: &notStarted}},
				ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}},
				Conditions:        []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionFalse}}}},
			[]interface{}{"test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"}, nil},
		// Not in upstream's tests; what printPod's logic yields for the kubelet's reasons.
		{"CrashLoopBackOff", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "crash"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{RestartCount: 5, State: waiting("CrashLoopBackOff"), LastTerminationState: finishedAgo(30 * time.Second)}}}},
			[]interface{}{"crash", "0/1", "CrashLoopBackOff", "5 (30s ago)", "<unknown>"}, nil},
		{"ContainerCreating", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "creating"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{State: waiting("ContainerCreating")}, {State: waiting("ContainerCreating")}}}},
			[]interface{}{"creating", "0/2", "ContainerCreating", "0", "<unknown>"}, nil},
		{"NodeLost while deleting is Unknown", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lost", DeletionTimestamp: &deleteTime}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Reason: "NodeLost", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, State: running()}}}},
			[]interface{}{"lost", "1/1", "Unknown", "0", "<unknown>"}, nil},
		{"NodeLost without deletion keeps the reason", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lost"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Reason: "NodeLost"}},
			[]interface{}{"lost", "0/1", "NodeLost", "0", "<unknown>"}, nil},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Pod, &tc.pod, false, tc.want)
		table, err := Pod.ConvertToTable(context.Background(), &tc.pod, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := table.Rows[0].Conditions; !reflect.DeepEqual(got, tc.conditions) {
			t.Errorf("%s: row conditions %#v, want %#v", tc.name, got, tc.conditions)
		}
	}
}

// TestPodWideCells follows upstream's TestPrintPodwide.
func TestPodWideCells(t *testing.T) {
	gates := []corev1.PodReadinessGate{{ConditionType: "condition1"}, {ConditionType: "condition2"}, {ConditionType: "condition3"}}
	conditions := []corev1.PodCondition{{Type: "condition1", Status: corev1.ConditionFalse}, {Type: "condition2", Status: corev1.ConditionTrue}}
	statuses := []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {RestartCount: 3}}
	tests := []struct {
		name string
		pod  corev1.Pod
		want []interface{}
	}{
		{"node, IP, nominated node, readiness gates", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test1"},
			Spec:   corev1.PodSpec{Containers: make([]corev1.Container, 2), NodeName: "test1", ReadinessGates: gates},
			Status: corev1.PodStatus{Conditions: conditions, Phase: "podPhase", PodIPs: []corev1.PodIP{{IP: "1.1.1.1"}}, ContainerStatuses: statuses, NominatedNodeName: "node1"}},
			[]interface{}{"test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"}},
		{"dual stack shows the first IP", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test1"},
			Spec:   corev1.PodSpec{Containers: make([]corev1.Container, 2), NodeName: "test1", ReadinessGates: gates},
			Status: corev1.PodStatus{Conditions: conditions, Phase: "podPhase", PodIPs: []corev1.PodIP{{IP: "1.1.1.1"}, {IP: "2001:db8::"}}, ContainerStatuses: statuses, NominatedNodeName: "node1"}},
			[]interface{}{"test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"}},
		{"none", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test2"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)},
			Status: corev1.PodStatus{Phase: "podPhase", ContainerStatuses: []corev1.ContainerStatus{{Ready: true, RestartCount: 3, State: running()}, {State: waiting("ContainerWaitingReason"), RestartCount: 3}}}},
			[]interface{}{"test2", "1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Pod, &tc.pod, true, tc.want)
	}
}
