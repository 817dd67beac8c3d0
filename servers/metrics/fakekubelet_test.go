package metrics_test

import (
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/metrics/scraper"
)

// fakeKubelet is one TLS server that plays the kubelet of several nodes, each on its own path
// (the node's metrics.k8s.io/resource-metrics-path annotation). Every request renders the
// resource metrics as of now: cumulative CPU grows at a fixed rate, so the rate the metrics
// server computes between two scrapes is exactly that rate.
type fakeKubelet struct {
	srv   *httptest.Server
	start time.Time

	mu    sync.Mutex
	nodes map[string]*fakeNode
	// slow makes every answer take this long, as a kubelet far away or overloaded does.
	slow time.Duration
	// churn makes every answer report a container the last did not: something is always new,
	// as in a cluster of a thousand nodes.
	churn int
	// served is when each request came and when its answer went, in order.
	served []span
}

// span is one request's time at the fake kubelet.
type span struct{ start, end time.Time }

type fakeNode struct {
	cpuCores float64
	memory   int64
	pods     []fakePod
}

type fakePod struct {
	namespace, name string
	containers      []fakeContainer
}

type fakeContainer struct {
	name     string
	cpuCores float64
	memory   int64
}

func newFakeKubelet(t *testing.T) *fakeKubelet {
	k := &fakeKubelet{start: time.Now().Add(-time.Hour), nodes: map[string]*fakeNode{}}
	k.srv = httptest.NewUnstartedServer(http.HandlerFunc(k.serve))
	k.srv.EnableHTTP2 = true
	k.srv.StartTLS()
	t.Cleanup(k.srv.Close)
	return k
}

func (k *fakeKubelet) setNode(name string, n *fakeNode) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.nodes[name] = n
}

func (k *fakeKubelet) addPod(node string, p fakePod) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.nodes[node].pods = append(k.nodes[node].pods, p)
}

func (k *fakeKubelet) removePod(node, namespace, name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.nodes[node]
	for i, p := range n.pods {
		if p.namespace == namespace && p.name == name {
			n.pods = append(n.pods[:i:i], n.pods[i+1:]...)
			return
		}
	}
}

func (k *fakeKubelet) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/nodes/"), "/metrics/resource")
	k.mu.Lock()
	slow := k.slow
	n, found := k.nodes[name]
	if ok && found && k.churn > 0 {
		n.pods = append(n.pods, fakePod{"churn", fmt.Sprintf("pod-%d", k.churn), []fakeContainer{{"app", 0.1, 1 << 20}}})
		k.churn++
	}
	var body strings.Builder
	if ok && found {
		// Whole milliseconds, as the timestamps say, so that the rate comes out exact.
		now := time.UnixMilli(time.Now().UnixMilli())
		elapsed := now.Sub(k.start).Seconds()
		ts := strconv.FormatInt(now.UnixMilli(), 10)
		fmt.Fprintf(&body, "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\n")
		fmt.Fprintf(&body, "node_cpu_usage_seconds_total %g %s\n", n.cpuCores*elapsed, ts)
		fmt.Fprintf(&body, "node_memory_working_set_bytes %d %s\n", n.memory, ts)
		for _, p := range n.pods {
			for _, c := range p.containers {
				labels := fmt.Sprintf(`{container=%q,namespace=%q,pod=%q}`, c.name, p.namespace, p.name)
				fmt.Fprintf(&body, "container_cpu_usage_seconds_total%s %g %s\n", labels, c.cpuCores*elapsed, ts)
				fmt.Fprintf(&body, "container_memory_working_set_bytes%s %d %s\n", labels, c.memory, ts)
				fmt.Fprintf(&body, "container_start_time_seconds%s %d\n", labels, k.start.Unix())
			}
		}
		fmt.Fprintf(&body, "resource_scrape_error 0\n")
	}
	k.mu.Unlock()
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	if slow > 0 {
		time.Sleep(slow) // the kubelet's own latency, not a wait of the test's
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(body.String()))
	k.mu.Lock()
	k.served = append(k.served, span{start, time.Now()})
	k.mu.Unlock()
}

// spans is a copy of served.
func (k *fakeKubelet) spans() []span {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]span(nil), k.served...)
}

// node is the Node object of a node this kubelet plays.
func (k *fakeKubelet) node(name string, labels map[string]string) *corev1.Node {
	host, port, _ := net.SplitHostPort(k.srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: labels,
		Annotations: map[string]string{scraper.AnnotationResourceMetricsPath: "/nodes/" + name + "/metrics/resource"},
	}}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: host}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	return n
}

// caFile writes the kubelet's CA for --kubelet-certificate-authority.
func (k *fakeKubelet) caFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kubelet-ca.crt")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
