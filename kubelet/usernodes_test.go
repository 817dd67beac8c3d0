package kubelet_test

import (
	"context"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestNodesCreatedForTheSimulator: Nodes that a user creates with kwok's annotation, or the
// chain's label, are run as kwok runs them: they get a pod range from the node-ipam-controller,
// become Ready and run the pods bound to them. The cluster CIDR here holds two ranges, one the
// host's: the second user node gets an Event CIDRNotAvailable and waits until the first is
// deleted, whose range then becomes its own.
func TestNodesCreatedForTheSimulator(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.ClusterCIDR, o.NodeCIDRMaskSize = "10.244.0.0/23", 24
		o.Controllers = []string{controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.NodeLifecycle}
	})
	client, _ := testchain.Clients(t, c)
	cl := &cluster{client: client}
	ctx := context.Background()
	create := func(name string, meta metav1.ObjectMeta) {
		t.Helper()
		meta.Name = name
		node := &corev1.Node{ObjectMeta: meta, Status: corev1.NodeStatus{
			// Given by its creator, as to kwok: the simulator keeps it.
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourcePods: resource.MustParse("50")}}}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("kwok-node", metav1.ObjectMeta{Annotations: map[string]string{kubelet.NodeAnnotation: kubelet.NodeAnnotationValue}})
	kwokNode := cl.readyNodeWithRange(t, "kwok-node")
	if got := kwokNode.Status.Capacity[corev1.ResourceCPU]; got.String() != "32" {
		t.Errorf("kwok-node capacity cpu %s, want the 32 it was created with", got.String())
	}
	if kwokNode.Spec.PodCIDR == "" || kwokNode.Status.DaemonEndpoints.KubeletEndpoint.Port == 0 {
		t.Errorf("kwok-node: podCIDR %q, kubelet port %d", kwokNode.Spec.PodCIDR, kwokNode.Status.DaemonEndpoints.KubeletEndpoint.Port)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "on-kwok"},
		Spec: corev1.PodSpec{NodeName: "kwok-node", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitRunning(t, cl, "default", "on-kwok")
	if !netip.MustParsePrefix(kwokNode.Spec.PodCIDR).Contains(netip.MustParseAddr(pod.Status.PodIP)) {
		t.Errorf("pod address %s is not of its node's range %s", pod.Status.PodIP, kwokNode.Spec.PodCIDR)
	}

	// No range left: an Event says so, and the node waits.
	create("labelled-node", metav1.ObjectMeta{Labels: map[string]string{kubelet.NodeLabel: kubelet.NodeLabelValue}})
	eventually(t, "Event CIDRNotAvailable for labelled-node", func(ctx context.Context) (bool, error) {
		evs, err := client.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.name": "labelled-node", "reason": "CIDRNotAvailable"}.String()})
		return err == nil && len(evs.Items) > 0, nil
	})

	// Deleted, kwok-node's simulation stops and its range goes to the waiting node.
	if err := client.CoreV1().Pods("default").Delete(ctx, "on-kwok", *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Nodes().Delete(ctx, "kwok-node", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	labelled := cl.readyNodeWithRange(t, "labelled-node")
	if labelled.Spec.PodCIDR != kwokNode.Spec.PodCIDR {
		t.Errorf("labelled-node got range %q, want the freed %q", labelled.Spec.PodCIDR, kwokNode.Spec.PodCIDR)
	}
}

// readyNodeWithRange waits until node name is Ready and has its pod range. The two come apart:
// the simulator reports a node Ready at once, as kwok does, and the node-ipam-controller
// assigns the range when it gets to the node.
func (cl *cluster) readyNodeWithRange(t *testing.T, name string) *corev1.Node {
	t.Helper()
	cl.readyNode(t, name)
	var node *corev1.Node
	eventually(t, "node "+name+" given a pod range", func(ctx context.Context) (bool, error) {
		n, err := cl.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || n.Spec.PodCIDR == "" {
			return false, nil
		}
		node = n
		return true, nil
	})
	return node
}
