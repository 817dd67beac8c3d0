package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/scheduler"
	"github.com/apichain/apichain/internal/sharedinformers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// start runs a chain with only the node lifecycle controller (which lifts the not-ready taint
// every new node gets once it reports Ready) and a scheduler against it. Its nodes are plain
// Node objects: nobody runs their pods, which suits a scheduler test.
func start(t *testing.T) kubernetes.Interface {
	t.Helper()
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.NodeLifecycle} })
	client, _ := testchain.Clients(t, c)
	factory := sharedinformers.New(client)
	s, err := scheduler.New(client, factory.Core().V1().Pods(), factory.Core().V1().Nodes())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Its events are written until it has stopped, before the chain stops (loop.Recorder).
	events := loop.NewEvents(ctx)
	ctx = loop.WithEvents(ctx, events)
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		<-done
		events.Stop()
		factory.Shutdown()
	})
	return client
}

func createNode(t *testing.T, client kubernetes.Interface, name string, mods ...func(*corev1.Node)) {
	t.Helper()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		},
	}
	for _, m := range mods {
		m(n)
	}
	if _, err := client.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createPod(t *testing.T, client kubernetes.Interface, name string, mods ...func(*corev1.Pod)) {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	for _, m := range mods {
		m(p)
	}
	if _, err := client.CoreV1().Pods("default").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// boundTo waits until pod name is bound and returns its node.
func boundTo(t *testing.T, client kubernetes.Interface, name string) string {
	t.Helper()
	var node string
	eventually(t, name+" bound", func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		node = p.Spec.NodeName
		return node != "", nil
	})
	return node
}

// scheduledFalse is the message of the pod's PodScheduled=False condition with reason, if any.
func scheduledFalse(ctx context.Context, client kubernetes.Interface, name, reason string) (string, bool, error) {
	p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, err
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == reason {
			return c.Message, true, nil
		}
	}
	return "", false, nil
}

// waitScheduledFalse waits until the pod says, with reason, why it is not scheduled; with
// message too, unless message is empty. It returns the message.
func waitScheduledFalse(t *testing.T, client kubernetes.Interface, name, reason, message string) string {
	t.Helper()
	var msg string
	eventually(t, name+" PodScheduled=False "+reason+" "+message, func(ctx context.Context) (bool, error) {
		m, ok, err := scheduledFalse(ctx, client, name, reason)
		msg = m
		return ok && (message == "" || m == message), err
	})
	return msg
}

func TestSpreadsPodsOverTheNodesThatFit(t *testing.T) {
	client := start(t)
	for _, n := range []string{"a", "b", "c"} {
		createNode(t, client, n)
	}
	createNode(t, client, "cordoned", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	createNode(t, client, "down", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse })
	createNode(t, client, "gpu", func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	})
	for i := range 6 {
		createPod(t, client, fmt.Sprintf("p%d", i))
	}
	count := map[string]int{}
	for i := range 6 {
		count[boundTo(t, client, fmt.Sprintf("p%d", i))]++
	}
	if count["a"] != 2 || count["b"] != 2 || count["c"] != 2 {
		t.Errorf("pods per node %v, want 2 on each of a, b, c", count)
	}

	// A toleration opens the tainted node; the least loaded node that fits wins.
	createPod(t, client, "trainer", func(p *corev1.Pod) {
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	})
	if node := boundTo(t, client, "trainer"); node != "gpu" {
		t.Errorf("trainer on %s, want gpu", node)
	}

	// Scheduled, as kube-scheduler reports it.
	p, err := client.CoreV1().Pods("default").Get(context.Background(), "p0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "Scheduled event", func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=p0,reason=Scheduled"})
		if err != nil || len(events.Items) != 1 {
			return false, nil
		}
		e := events.Items[0]
		if want := "Successfully assigned default/p0 to " + p.Spec.NodeName; e.Message != want || e.ReportingController != "default-scheduler" ||
			e.Type != corev1.EventTypeNormal || e.InvolvedObject.UID != p.UID {
			t.Errorf("event %+v, want %q", e, want)
		}
		return true, nil
	})
}

func TestUnschedulablePodIsRetriedWhenNodesChange(t *testing.T) {
	client := start(t)
	createPod(t, client, "early")
	waitScheduledFalse(t, client, "early", corev1.PodReasonUnschedulable, "no nodes available to schedule pods")

	createNode(t, client, "cordoned", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	createNode(t, client, "full", func(n *corev1.Node) {
		n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("100m")
		n.Status.Allocatable[corev1.ResourcePods] = resource.MustParse("0")
	})
	// The new nodes made the scheduler look at "early" again; it fits on neither.
	waitScheduledFalse(t, client, "early", corev1.PodReasonUnschedulable,
		"0/2 nodes are available: 1 Too many pods, 1 node(s) were unschedulable.")

	createPod(t, client, "big", func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	})
	want := "0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) were unschedulable."
	waitScheduledFalse(t, client, "big", corev1.PodReasonUnschedulable, want)
	eventually(t, "FailedScheduling event", func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=big,reason=FailedScheduling"})
		for _, e := range events.Items {
			if e.Message == want && e.Type == corev1.EventTypeWarning && e.Source.Component == "default-scheduler" {
				return true, nil
			}
		}
		return false, err
	})

	// kubectl uncordon.
	patch := []byte(`{"spec":{"unschedulable":false}}`)
	if _, err := client.CoreV1().Nodes().Patch(context.Background(), "cordoned", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"early", "big"} {
		if node := boundTo(t, client, p); node != "cordoned" {
			t.Errorf("%s on %s", p, node)
		}
	}
}

func TestLeavesOtherPodsAlone(t *testing.T) {
	client := start(t)
	createNode(t, client, "n")
	createPod(t, client, "theirs", func(p *corev1.Pod) { p.Spec.SchedulerName = "other-scheduler" })
	createPod(t, client, "gated", func(p *corev1.Pod) {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
	})
	waitScheduledFalse(t, client, "gated", corev1.PodReasonSchedulingGated, "Scheduling is blocked due to non-empty scheduling gates")
	// One pod at a time, in order: once a later pod is bound, the other scheduler's was seen.
	createPod(t, client, "mine")
	boundTo(t, client, "mine")
	p, err := client.CoreV1().Pods("default").Get(context.Background(), "theirs", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || len(p.Status.Conditions) != 0 {
		t.Errorf("another scheduler's pod was touched: node %q, conditions %v", p.Spec.NodeName, p.Status.Conditions)
	}

	// Lifting the gate lets the pod be scheduled.
	gated, err := client.CoreV1().Pods("default").Get(context.Background(), "gated", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gated.Spec.SchedulingGates = nil
	if _, err := client.CoreV1().Pods("default").Update(context.Background(), gated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if node := boundTo(t, client, "gated"); node != "n" {
		t.Errorf("gated on %s", node)
	}
}
