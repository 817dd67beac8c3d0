package replicaset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestReplicaSets runs ReplicaSets and ReplicationControllers on a chain with their
// controllers (picked by kube-controller-manager's names, as --controllers replicaset,
// replicationcontroller picks them), the scheduler and a simulated kubelet; each subtest in a
// namespace of its own.
func TestReplicaSets(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{"replicaset", "replicationcontroller", controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet, controllers.NodeIPAM}
	})
	cs, _ := testchain.Clients(t, c)
	ns := func(t *testing.T, name string) string {
		t.Helper()
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return name
	}
	t.Run("KeepsItsPods", func(t *testing.T) { keepsItsPods(t, cs, ns(t, "keeps")) })
	t.Run("ReplicationController", func(t *testing.T) { replicationController(t, cs, ns(t, "rc")) })
	t.Run("MinReadySeconds", func(t *testing.T) { minReadySeconds(t, cs, ns(t, "minready")) })
	t.Run("ReplicaFailure", func(t *testing.T) { replicaFailure(t, cs, ns(t, "failure")) })
}

func replicaSet(name string, n int32) *appsv1.ReplicaSet {
	labels := map[string]string{"tier": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "php", Image: "php:8"}}},
			},
		},
	}
}

// keepsItsPods: a ReplicaSet's pods are named after it and controlled by it, a deleted pod is
// replaced, a matching orphan is adopted (and the extra pod deleted), a pod that stops
// matching is released and replaced, and the status counts them as kube does.
func keepsItsPods(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	rs, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, replicaSet("frontend", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := ownerOf{"apps/v1", "ReplicaSet", rs.Name, rs.UID}
	pods := waitPods(t, cs, ns, "tier=frontend", owner, 3)
	for _, p := range pods {
		if suffix, ok := strings.CutPrefix(p.Name, "frontend-"); !ok || len(suffix) != 5 {
			t.Errorf("pod %s", p.Name)
		}
	}
	waitReplicaSetStatus(t, cs, ns, "frontend", 3)

	// A deleted pod is replaced.
	if err := cs.CoreV1().Pods(ns).Delete(ctx, pods[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range waitPods(t, cs, ns, "tier=frontend", owner, 3) {
		if p.UID == pods[0].UID {
			t.Errorf("deleted pod %s still counted", p.Name)
		}
	}

	// A matching orphan is adopted; one pod too many is deleted.
	orphan, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stray", Labels: map[string]string{"tier": "frontend"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "php", Image: "php:8"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, "the orphan adopted", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "stray", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil // adopted, then chosen as the extra pod: it is the youngest
		}
		return err == nil && owner.controls(p), err
	})
	current := waitPods(t, cs, ns, "tier=frontend", owner, 3)

	// A pod relabelled out of the selector is released, and replaced.
	victim := current[0].Name
	if victim == orphan.Name {
		victim = current[1].Name
	}
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, victim, types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"debug"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the relabelled pod released", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
		return err == nil && metav1.GetControllerOf(p) == nil, err
	})
	waitPods(t, cs, ns, "tier=frontend", owner, 3)
	waitReplicaSetStatus(t, cs, ns, "frontend", 3)

	// Scale to zero.
	if _, err := cs.AppsV1().ReplicaSets(ns).Patch(ctx, "frontend", types.MergePatchType, []byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, cs, ns, "tier=frontend", owner, 0)
	waitReplicaSetStatus(t, cs, ns, "frontend", 0)
}

// replicationController: a ReplicationController keeps its pods as a ReplicaSet does, through
// its equality selector, and reports the same status.
func replicationController(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	rcs := cs.CoreV1().ReplicationControllers(ns)
	labels := map[string]string{"app": "rc"}
	rc, err := rcs.Create(ctx, &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "rc"},
		Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](2), Selector: labels, Template: &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := ownerOf{"v1", "ReplicationController", rc.Name, rc.UID}
	pods := waitPods(t, cs, ns, "app=rc", owner, 2)
	waitRCStatus := func(n int32) {
		t.Helper()
		poll(t, "the ReplicationController's status", func(ctx context.Context) (bool, error) {
			rc, err := rcs.Get(ctx, "rc", metav1.GetOptions{})
			st := rc.Status
			return err == nil && st.ObservedGeneration == rc.Generation && st.Replicas == n && st.FullyLabeledReplicas == n &&
				st.ReadyReplicas == n && st.AvailableReplicas == n && len(st.Conditions) == 0, err
		})
	}
	waitRCStatus(2)

	// Scaled through the scale subresource, as kubectl scale rc does.
	scale, err := rcs.GetScale(ctx, "rc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scale.Spec.Replicas = 3
	if _, err := rcs.UpdateScale(ctx, "rc", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, cs, ns, "app=rc", owner, 3)
	waitRCStatus(3)

	// A deleted pod is replaced.
	if err := cs.CoreV1().Pods(ns).Delete(ctx, pods[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range waitPods(t, cs, ns, "app=rc", owner, 3) {
		if p.UID == pods[0].UID {
			t.Errorf("deleted pod %s still counted", p.Name)
		}
	}
	waitRCStatus(3)
}

// minReadySeconds: a pod counts as available only once it has been ready that long; the
// status says it ready before it says it available.
func minReadySeconds(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs := replicaSet("slow", 2)
	rs.Spec.MinReadySeconds = 3
	w, err := cs.AppsV1().ReplicaSets(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	readyFirst := false
	for ev := range w.ResultChan() {
		st := ev.Object.(*appsv1.ReplicaSet).Status
		if st.ReadyReplicas > st.AvailableReplicas {
			readyFirst = true
		}
		if st.AvailableReplicas == 2 {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatal("the pods never became available")
	}
	if !readyFirst {
		t.Error("the status never said more pods ready than available: minReadySeconds was not waited for")
	}
}

// replicaFailure: while pods cannot be created (here the Priority admission plugin refuses a
// class that does not exist), the ReplicaSet says why in its ReplicaFailure condition; once
// they can, the pods come and the condition goes.
func replicaFailure(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	rs := replicaSet("failing", 2)
	rs.Spec.Template.Spec.PriorityClassName = "not-yet"
	created, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, "the ReplicaFailure condition", func(ctx context.Context) (bool, error) {
		rs, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, "failing", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue && c.Reason == "FailedCreate" &&
				strings.Contains(c.Message, "no PriorityClass with name not-yet was found") {
				return true, nil
			}
		}
		return false, nil
	})
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "not-yet"}, Value: 10}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.SchedulingV1().PriorityClasses().Delete(context.Background(), "not-yet", metav1.DeleteOptions{})
	})
	waitPods(t, cs, ns, "tier=failing", ownerOf{"apps/v1", "ReplicaSet", "failing", created.UID}, 2)
	waitReplicaSetStatus(t, cs, ns, "failing", 2)
}

// ownerOf is the controller a pod must have.
type ownerOf struct {
	apiVersion, kind, name string
	uid                    types.UID
}

func (o ownerOf) controls(p *corev1.Pod) bool {
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.APIVersion == o.apiVersion && ref.Kind == o.kind && ref.Name == o.name && ref.UID == o.uid &&
		ptr.Deref(ref.BlockOwnerDeletion, false)
}

// waitPods waits until exactly n pods match selector, all Running, controlled by owner and not
// being deleted.
func waitPods(t *testing.T, cs kubernetes.Interface, ns, selector string, owner ownerOf, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	poll(t, "the pods of "+owner.name, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		pods = list.Items
		for _, p := range pods {
			if !owner.controls(&p) || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
				return false, nil
			}
		}
		return len(pods) == n, nil
	})
	return pods
}

func waitReplicaSetStatus(t *testing.T, cs kubernetes.Interface, ns, name string, n int32) {
	t.Helper()
	var rs *appsv1.ReplicaSet
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		rs, err = cs.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := rs.Status
		return st.ObservedGeneration == rs.Generation && st.Replicas == n && st.FullyLabeledReplicas == n &&
			st.ReadyReplicas == n && st.AvailableReplicas == n && ptr.Deref(st.TerminatingReplicas, -1) == 0 && len(st.Conditions) == 0, nil
	})
	if err != nil {
		t.Fatalf("ReplicaSet status %+v, want %d replicas everywhere", rs.Status, n)
	}
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
