package nodelifecycle_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestTaintsFollowConditions: a new node is tainted not-ready at creation (the
// TaintNodesByCondition admission plugin); once it reports Ready the controller removes the
// taint, puts it back when Ready turns False, and taints a cordoned node unschedulable. Taints
// it does not own stay.
func TestTaintsFollowConditions(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.NodeLifecycle}
	})
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	nodes := cs.CoreV1().Nodes()

	node, err := nodes.Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "worker"},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasTaint(node, corev1.TaintNodeNotReady) {
		t.Fatalf("new node taints %v, want %s (TaintNodesByCondition)", node.Spec.Taints, corev1.TaintNodeNotReady)
	}

	setReady := func(status corev1.ConditionStatus) {
		t.Helper()
		// The controller writes the node's taints meanwhile: retry on conflict, as a kubelet does.
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := nodes.Get(ctx, "worker", metav1.GetOptions{})
			if err != nil {
				return err
			}
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "Test", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
			_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	waitTaints := func(what string, ok func(*corev1.Node) bool) {
		t.Helper()
		var last *corev1.Node
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			last, err = nodes.Get(ctx, "worker", metav1.GetOptions{})
			return err == nil && ok(last), err
		})
		if err != nil {
			t.Fatalf("%s: %v; taints %v", what, err, last.Spec.Taints)
		}
		if !hasTaint(last, "dedicated") {
			t.Fatalf("%s: the user's taint went: %v", what, last.Spec.Taints)
		}
	}

	setReady(corev1.ConditionTrue)
	waitTaints("ready node", func(n *corev1.Node) bool { return !hasTaint(n, corev1.TaintNodeNotReady) })

	setReady(corev1.ConditionFalse)
	waitTaints("not-ready node", func(n *corev1.Node) bool { return hasTaint(n, corev1.TaintNodeNotReady) })

	setReady(corev1.ConditionUnknown)
	waitTaints("unreachable node", func(n *corev1.Node) bool {
		return hasTaint(n, corev1.TaintNodeUnreachable) && !hasTaint(n, corev1.TaintNodeNotReady)
	})

	setReady(corev1.ConditionTrue)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, "worker", metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Unschedulable = true // kubectl cordon
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitTaints("cordoned node", func(n *corev1.Node) bool {
		return hasTaint(n, corev1.TaintNodeUnschedulable) && !hasTaint(n, corev1.TaintNodeUnreachable)
	})
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
