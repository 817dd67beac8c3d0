package replicaset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/testchain"
	"github.com/apichain/apichain/servers/chain"
)

// TestReplicaSetKeepsItsPods: a ReplicaSet's pods are named after it and controlled by it, a
// deleted pod is replaced, a matching orphan is adopted (and the extra pod deleted), a pod that
// stops matching is released and replaced, and the status counts them as kube does.
func TestReplicaSetKeepsItsPods(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.ReplicaSet, controllers.NodeLifecycle, controllers.Scheduler, controllers.SimulatedKubelet}
	})
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	if _, err := cs.Discovery().ServerResourcesForGroupVersion("apps/v1"); apierrors.IsNotFound(err) {
		t.Skip("the chain does not serve apps/v1 yet")
	} else if err != nil {
		t.Fatal(err)
	}
	rs, err := cs.AppsV1().ReplicaSets("default").Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "frontend"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "frontend"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"tier": "frontend"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "php", Image: "php:8"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := waitPods(t, cs, rs, 3)
	for _, p := range pods {
		suffix, ok := strings.CutPrefix(p.Name, "frontend-")
		ref := metav1.GetControllerOf(&p)
		if !ok || len(suffix) != 5 || ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("pod %s, controller %+v", p.Name, ref)
		}
	}
	waitStatus(t, cs, 3)

	// A deleted pod is replaced.
	if err := cs.CoreV1().Pods("default").Delete(ctx, pods[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	replaced := waitPods(t, cs, rs, 3)
	for _, p := range replaced {
		if p.UID == pods[0].UID {
			t.Errorf("deleted pod %s still counted", p.Name)
		}
	}

	// A matching orphan is adopted; one pod too many is deleted.
	orphan, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stray", Labels: map[string]string{"tier": "frontend"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "php", Image: "php:8"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, "the orphan adopted", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "stray", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil // adopted, then chosen as the extra pod: it is the youngest
		}
		ref := metav1.GetControllerOf(p)
		return err == nil && ref != nil && ref.UID == rs.UID, err
	})
	// Which of the four goes is the controller's choice (unscheduled and pending pods first):
	// pick the victim below from those left.
	current := waitPods(t, cs, rs, 3)

	// A pod relabelled out of the selector is released, and replaced.
	victim := current[0].Name
	if victim == orphan.Name {
		victim = current[1].Name
	}
	if _, err := cs.CoreV1().Pods("default").Patch(ctx, victim, types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"debug"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the relabelled pod released", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, victim, metav1.GetOptions{})
		return err == nil && metav1.GetControllerOf(p) == nil, err
	})
	waitPods(t, cs, rs, 3)
	waitStatus(t, cs, 3)

	// Scale to zero.
	if _, err := cs.AppsV1().ReplicaSets("default").Patch(ctx, "frontend", types.MergePatchType, []byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, cs, rs, 0)
	waitStatus(t, cs, 0)
}

// waitPods waits until rs controls exactly n Running pods that are not being deleted.
func waitPods(t *testing.T, cs kubernetes.Interface, rs *appsv1.ReplicaSet, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	poll(t, "the ReplicaSet's pods", func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "tier=frontend"})
		if err != nil {
			return false, err
		}
		pods = pods[:0]
		for _, p := range list.Items {
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != rs.UID {
				continue
			}
			if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
				return false, nil
			}
			pods = append(pods, p)
		}
		return len(pods) == n && len(list.Items) == n, nil
	})
	return pods
}

func waitStatus(t *testing.T, cs kubernetes.Interface, n int32) {
	t.Helper()
	var rs *appsv1.ReplicaSet
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		rs, err = cs.AppsV1().ReplicaSets("default").Get(ctx, "frontend", metav1.GetOptions{})
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
