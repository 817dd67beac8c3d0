package kubelet_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/test/testchain"
)

// trackedClient is a node's real client that notes when the simulator lets it go.
type trackedClient struct {
	kubelet.NodeAPI
	closed atomic.Bool
}

func (c *trackedClient) CloseIdleConnections() {
	c.closed.Store(true)
	c.NodeAPI.(interface{ CloseIdleConnections() }).CloseIdleConnections()
}

// TestDeletedNodeLetsItsClientGo: a node's kubelet client (its certificate's identity, its
// connection) is made when the node is first simulated and let go when the Node is deleted;
// a Node of that name created again gets a client of its own, as a kubelet started anew. With
// nodes coming and going (kwok's users script that), nothing of a gone node stays open.
func TestDeletedNodeLetsItsClientGo(t *testing.T) {
	c := testchain.Start(t)
	var mu sync.Mutex
	made := map[string][]*trackedClient{}
	clients := func(name string) []*trackedClient {
		mu.Lock()
		defer mu.Unlock()
		return append([]*trackedClient(nil), made[name]...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl, stopSim, err := startCluster(ctx, c, kubelet.Config{
		NodeClient: func(node string) (kubelet.NodeAPI, error) {
			api, err := kubelet.NewNodeClient(testchain.UserConfig(t, c, "system:node:"+node, "system:nodes"))
			if err != nil {
				return nil, err
			}
			tc := &trackedClient{NodeAPI: api}
			mu.Lock()
			made[node] = append(made[node], tc)
			mu.Unlock()
			return tc, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer stopSim()

	const name = "come-and-go"
	create := func() {
		t.Helper()
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{kubelet.NodeAnnotation: kubelet.NodeAnnotationValue}}}
		if _, err := cl.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create()
	cl.readyNode(t, name)
	first := clients(name)
	if len(first) != 1 || first[0].closed.Load() {
		t.Fatalf("a Ready node has %d clients (closed: %v), want 1 open", len(first), len(first) == 1 && first[0].closed.Load())
	}

	if err := cl.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted node's client let go", func(context.Context) (bool, error) {
		return first[0].closed.Load(), nil
	})

	create()
	cl.readyNode(t, name)
	again := clients(name)
	if len(again) != 2 || again[1].closed.Load() {
		t.Fatalf("the node created again has %d clients made in all, want 2 with the second open", len(again))
	}
}
