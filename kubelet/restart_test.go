package kubelet_test

import (
	"context"
	"net/netip"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestDeletedNodeStopsAndRestartsReuseNodes deletes a node (its simulation stops, and it is
// not registered again), then restarts the chain and the kubelets on the same data: the same
// nodes are updated, not duplicated, and a pod that ran keeps running where it was, with its
// address from the node's pod range.
func TestDeletedNodeStopsAndRestartsReuseNodes(t *testing.T) {
	dir := t.TempDir()
	start := func() *testchain.Chain {
		c, err := testchain.StartIn(dir, nil, func(o *chain.Options) { o.Controllers = []string{controllers.NodeIPAM} })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()

	c := start()
	cl, stopSim, err := startCluster(ctx, c.Chain, kubelet.Config{Nodes: 2})
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	first := cl.readyNode(t, "sim-node-1")
	if err := cl.client.CoreV1().Nodes().Delete(ctx, "sim-node-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sim-node-1 no longer simulated", func(ctx context.Context) (bool, error) {
		return !kubelet.Simulates(cl.sim, first.Name), nil
	})
	if _, err := cl.client.CoreV1().Nodes().Get(ctx, "sim-node-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("sim-node-1 after its deletion: %v, want NotFound", err)
	}
	second := cl.readyNodeWithRange(t, "sim-node-2")
	port := second.Status.DaemonEndpoints.KubeletEndpoint.Port
	podCIDR := netip.MustParsePrefix(second.Spec.PodCIDR)

	// A pod bound directly (no scheduler here), as `nodeName:` in a manifest binds it.
	_, err = cl.client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pinned"},
		Spec: corev1.PodSpec{NodeName: "sim-node-2", Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitRunning(t, cl, "default", "pinned")
	if pod.Status.PodIP != podCIDR.Addr().Next().Next().String() {
		t.Errorf("first pod of sim-node-2 got %s", pod.Status.PodIP)
	}
	uids := nodeUIDs(t, cl)
	var lease *coordinationv1.Lease
	eventually(t, "sim-node-2's lease", func(ctx context.Context) (bool, error) {
		lease, err = cl.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "sim-node-2", metav1.GetOptions{})
		return err == nil, nil
	})
	stopSim()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	c = start()
	defer c.Stop()
	cl, stopSim, err = startCluster(ctx, c.Chain, kubelet.Config{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer stopSim()
	eventually(t, "nodes updated with the new kubelet port", func(ctx context.Context) (bool, error) {
		n, err := cl.client.CoreV1().Nodes().Get(ctx, "sim-node-2", metav1.GetOptions{})
		return err == nil && n.Status.DaemonEndpoints.KubeletEndpoint.Port != port, nil
	})
	// The lease the last run left is renewed, not made again: the new run's first try to
	// create it is refused, and it reads it instead.
	eventually(t, "sim-node-2's lease renewed", func(ctx context.Context) (bool, error) {
		l, err := cl.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "sim-node-2", metav1.GetOptions{})
		return err == nil && l.UID == lease.UID && l.Spec.RenewTime.After(lease.Spec.RenewTime.Time), nil
	})
	// sim-node-1, deleted in the last run, is registered again by this one, as a restarted
	// kubelet registers its node.
	cl.readyNode(t, "sim-node-1")
	if got := nodeUIDs(t, cl); len(got) != 2 || got["sim-node-2"] != uids["sim-node-2"] {
		t.Errorf("nodes after restart %v, before %v", got, uids)
	}
	after := waitRunning(t, cl, "default", "pinned")
	if after.Status.PodIP != pod.Status.PodIP || after.Status.ContainerStatuses[0].ContainerID != pod.Status.ContainerStatuses[0].ContainerID {
		t.Errorf("pod moved: %s %s, was %s %s", after.Status.PodIP, after.Status.ContainerStatuses[0].ContainerID,
			pod.Status.PodIP, pod.Status.ContainerStatuses[0].ContainerID)
	}
	// A new pod does not get the address the old one holds.
	if _, err := cl.client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "second"},
		Spec: corev1.PodSpec{NodeName: "sim-node-2", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if second := waitRunning(t, cl, "default", "second"); second.Status.PodIP != podCIDR.Addr().Next().Next().Next().String() {
		t.Errorf("second pod got %s", second.Status.PodIP)
	}
}

func nodeUIDs(t *testing.T, cl *cluster) map[string]types.UID {
	t.Helper()
	nodes, err := cl.client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uids := map[string]types.UID{}
	for _, n := range nodes.Items {
		uids[n.Name] = n.UID
	}
	return uids
}
