package kubelet_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/test/testchain"
)

// otherWriter stands between a kubelet and the chain: just before the kubelet's status post
// goes out, it changes the Node as another component would (a label, as `kubectl label`
// does, and a condition of its own, as node-problem-detector posts), so that the kubelet's
// cache is always one write behind. It records the status code of each post it got in front of.
type otherWriter struct {
	next   http.RoundTripper
	admin  kubernetes.Interface
	node   string
	rounds int // how many posts to get in front of

	mu    sync.Mutex
	codes []int
}

func (w *otherWriter) RoundTrip(req *http.Request) (*http.Response, error) {
	if (req.Method != http.MethodPut && req.Method != http.MethodPatch) || !strings.HasSuffix(req.URL.Path, "/nodes/"+w.node+"/status") {
		return w.next.RoundTrip(req)
	}
	w.mu.Lock()
	round := len(w.codes)
	w.mu.Unlock()
	if round >= w.rounds {
		return w.next.RoundTrip(req)
	}
	ctx := req.Context()
	label := fmt.Sprintf(`{"metadata":{"labels":{"example.com/round":"%d"}}}`, round)
	if _, err := w.admin.CoreV1().Nodes().Patch(ctx, w.node, types.StrategicMergePatchType, []byte(label), metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("the other writer's label: %w", err)
	}
	condition := fmt.Sprintf(`{"status":{"conditions":[{"type":"ExampleProblem","status":"False","reason":"NoProblem","message":"round %d"}]}}`, round)
	if _, err := w.admin.CoreV1().Nodes().Patch(ctx, w.node, types.StrategicMergePatchType, []byte(condition), metav1.PatchOptions{}, "status"); err != nil {
		return nil, fmt.Errorf("the other writer's condition: %w", err)
	}
	resp, err := w.next.RoundTrip(req)
	if err == nil {
		w.mu.Lock()
		w.codes = append(w.codes, resp.StatusCode)
		w.mu.Unlock()
	}
	return resp, err
}

func (w *otherWriter) done() ([]int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int(nil), w.codes...), len(w.codes) >= w.rounds
}

// TestStatusPostSurvivesAnotherWriter: the kubelet posts its node's status although someone
// else changed the Node since its informer last saw it, as a real kubelet's status patch does
// (it names no resourceVersion): no 409 Conflict, no lost heartbeat, and what the other writer
// set stays. The kubelet acts as system:node:<name>, so the system:node role must allow it.
func TestStatusPostSurvivesAnotherWriter(t *testing.T) {
	c := testchain.Start(t)
	admin, _ := testchain.Clients(t, c)
	const name = "sim-node-1"
	writer := &otherWriter{admin: admin, node: name, rounds: 3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl, stopSim, err := startCluster(ctx, c, kubelet.Config{Nodes: 1,
		NodeClient: func(node string) (kubelet.NodeAPI, error) {
			cfg := testchain.UserConfig(t, c, "system:node:"+node, "system:nodes")
			if node == name {
				cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { writer.next = rt; return writer })
			}
			return kubelet.NewNodeClient(cfg)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer stopSim()
	cl.readyNode(t, name)
	// The simulator's queue tries again after a failed post: wait until the writer got in
	// front of as many posts as it means to, whatever they answered.
	testchain.WaitFor(t, func() bool { _, done := writer.done(); return done })
	codes, _ := writer.done()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("status post %d after another writer: %d, want 200", i, code)
		}
	}

	// Later heartbeats keep the other writer's label and condition.
	node, err := admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heartbeat := readyHeartbeat(node)
	eventually(t, "a heartbeat after the other writer's", func(ctx context.Context) (bool, error) {
		if node, err = admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		return readyHeartbeat(node).After(heartbeat.Time), nil
	})
	if got := node.Labels["example.com/round"]; got != "2" {
		t.Errorf("the other writer's label: %q, want 2", got)
	}
	found := false
	for _, c := range node.Status.Conditions {
		if c.Type == "ExampleProblem" {
			found = c.Message == "round 2"
		}
	}
	if !found {
		t.Errorf("the other writer's condition is gone or changed: %+v", node.Status.Conditions)
	}
}

func readyHeartbeat(node *corev1.Node) metav1.Time {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.LastHeartbeatTime
		}
	}
	return metav1.Time{}
}

// posts counts a node's status posts and Lease creates as its kubelet sends them, and the
// status posts sent before its first Lease create.
type posts struct {
	next http.RoundTripper
	node string

	mu                          sync.Mutex
	status, leases, beforeLease int
}

func (p *posts) RoundTrip(req *http.Request) (*http.Response, error) {
	p.mu.Lock()
	switch {
	case req.Method == http.MethodPatch && strings.HasSuffix(req.URL.Path, "/nodes/"+p.node+"/status"):
		p.status++
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/namespaces/"+corev1.NamespaceNodeLease+"/leases"):
		if p.leases == 0 {
			p.beforeLease = p.status
		}
		p.leases++
	}
	p.mu.Unlock()
	return p.next.RoundTrip(req)
}

func (p *posts) counts() (beforeLease, leases int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.beforeLease, p.leases
}

// TestNewNodePostsItsStatusOnce: a node created for the simulator gets one status post, which
// says Ready, and then its Lease, made with one create (no read that finds nothing first). The Lease's turn comes right after the
// post, before the informer may show it: the post must not be taken for one still to make.
func TestNewNodePostsItsStatusOnce(t *testing.T) {
	c := testchain.Start(t)
	admin, _ := testchain.Clients(t, c)
	const name = "new-node"
	counter := &posts{node: name}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, stopSim, err := startCluster(ctx, c, kubelet.Config{
		NodeClient: func(node string) (kubelet.NodeAPI, error) {
			cfg := testchain.UserConfig(t, c, "system:node:"+node, "system:nodes")
			if node == name {
				cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
			}
			return kubelet.NewNodeClient(cfg)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer stopSim()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{kubelet.NodeAnnotation: kubelet.NodeAnnotationValue}}}
	if _, err := admin.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new node's lease", func(ctx context.Context) (bool, error) {
		_, err := admin.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		return err == nil, nil
	})
	// Later posts are heartbeats (every second here): those before the Lease are counted.
	if status, leases := counter.counts(); status != 1 || leases != 1 {
		t.Errorf("%d status posts before the lease, and %d lease creates; want 1 and 1", status, leases)
	}
	got, err := admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := false
	for _, c := range got.Status.Conditions {
		ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	}
	if !ready {
		t.Errorf("the new node is not Ready: %+v", got.Status.Conditions)
	}
}
