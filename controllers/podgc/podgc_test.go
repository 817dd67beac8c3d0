package podgc_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/controllers/podgc"
	"github.com/apichain/apichain/test/testchain"
)

// start runs a pod garbage collector that keeps threshold finished pods against a chain that
// runs no controllers of its own (no kubelet finishes anything).
func start(t *testing.T, threshold int) kubernetes.Interface {
	t.Helper()
	c := testchain.Start(t)
	cs, _ := testchain.Clients(t, c)
	factory := informers.NewSharedInformerFactory(cs, 0)
	gc, err := podgc.New(podgc.Config{Client: cs, Quarantine: time.Second, Threshold: threshold}, factory.Core().V1().Pods(), factory.Core().V1().Nodes())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); gc.Run(ctx, 2) }()
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); <-done; factory.Shutdown() })
	return cs
}

func pod(name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func create(t *testing.T, cs kubernetes.Interface, objs ...any) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Pod:
			_, err = cs.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Node:
			_, err = cs.CoreV1().Nodes().Create(ctx, o, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func waitGone(t *testing.T, cs kubernetes.Interface, names ...string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			if _, err := cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("pods %v not deleted: %v", names, err)
	}
}

func exists(t *testing.T, cs kubernetes.Interface, name string) bool {
	t.Helper()
	_, err := cs.CoreV1().Pods(metav1.NamespaceDefault).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestOrphansAndPodsOfGoneNodes: a pod bound to a node that does not exist is marked Failed,
// with kube's DisruptionTarget condition, and deleted; so are the pods of a node that is deleted,
// and a terminating pod whose node is out of service. Pods on nodes that are there stay.
func TestOrphansAndPodsOfGoneNodes(t *testing.T) {
	cs := start(t, podgc.TerminatedPodThreshold)
	ctx := context.Background()
	w, err := cs.CoreV1().Pods(metav1.NamespaceDefault).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=orphan"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	create(t, cs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "here"}}, pod("kept", "here"), pod("orphan", "no-such-node"))

	// What the orphan looked like last, before it went.
	var last *corev1.Pod
	for deleted := false; !deleted; {
		select {
		case ev := <-w.ResultChan():
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Modified {
				last = p
			}
			deleted = ev.Type == watch.Deleted
		case <-time.After(time.Minute):
			t.Fatalf("the orphan was not deleted within a minute; last seen: %+v", last)
		}
	}
	if last == nil || last.Status.Phase != corev1.PodFailed || !slices.ContainsFunc(last.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == "DeletionByPodGC"
	}) {
		t.Errorf("the orphan before its deletion: %+v, want phase Failed and DisruptionTarget (DeletionByPodGC)", last)
	}
	if !exists(t, cs, "kept") {
		t.Error("the pod of an existing node was deleted")
	}

	// Its node deleted, the pod that was kept is an orphan too.
	if err := cs.CoreV1().Nodes().Delete(ctx, "here", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, cs, "kept")

	// A terminating pod stays while its node is there, unless the node is out of service.
	down := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "down"}}
	create(t, cs, down, pod("terminating", "down"), pod("running", "down"))
	if err := cs.CoreV1().Pods(metav1.NamespaceDefault).Delete(ctx, "terminating", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !exists(t, cs, "terminating") {
		t.Fatal("a bound pod was deleted at once: want a graceful deletion, which waits for its kubelet")
	}
	patch := []byte(`{"spec":{"taints":[{"key":"` + corev1.TaintNodeOutOfService + `","value":"nodeshutdown","effect":"NoExecute"}]}}`)
	if _, err := cs.CoreV1().Nodes().Patch(ctx, "down", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, cs, "terminating")
	if !exists(t, cs, "running") {
		t.Error("a pod of an out-of-service node that is not terminating was deleted")
	}
}

// TestFinishedPodsBeyondThreshold: of the finished pods, those beyond the threshold go, evicted
// ones first, then the oldest; pods still running do not count.
func TestFinishedPodsBeyondThreshold(t *testing.T) {
	cs := start(t, 2)
	ctx := context.Background()
	finish := func(name string, phase corev1.PodPhase, reason string) {
		t.Helper()
		create(t, cs, pod(name, ""))
		p, err := cs.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.Phase, p.Status.Reason = phase, reason
		if _, err := cs.CoreV1().Pods(metav1.NamespaceDefault).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create(t, cs, pod("pending", ""))
	// Created in the order of their names, which break ties of creation times (whole seconds).
	finish("a-oldest", corev1.PodSucceeded, "")
	finish("b-old", corev1.PodFailed, "")
	finish("c-new", corev1.PodSucceeded, "")
	finish("d-evicted", corev1.PodFailed, "Evicted")

	waitGone(t, cs, "a-oldest", "d-evicted")
	for _, name := range []string{"b-old", "c-new", "pending"} {
		if !exists(t, cs, name) {
			t.Errorf("%s was deleted", name)
		}
	}
}
