package scraper

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

func TestURL(t *testing.T) {
	addrs := []corev1.NodeAddress{
		{Type: corev1.NodeExternalIP, Address: "203.0.113.7"},
		{Type: corev1.NodeInternalIP, Address: "10.0.0.7"},
		{Type: corev1.NodeInternalIP, Address: "10.0.0.8"},
		{Type: corev1.NodeInternalDNS, Address: "node1.internal"},
		{Type: corev1.NodeExternalDNS, Address: "node1.example.com"},
	}
	node := func(addrs []corev1.NodeAddress, port int32, annotations map[string]string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1", Annotations: annotations}}
		n.Status.Addresses = addrs
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = port
		return n
	}
	tests := []struct {
		name     string
		node     *corev1.Node
		config   KubeletClientConfig
		want     string
		wantFail bool
	}{{
		name:   "hostname first",
		node:   node(append([]corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "node1"}}, addrs...), 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://node1:10250/metrics/resource",
	}, {
		name:   "internal DNS before internal IP before external",
		node:   node(addrs, 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://node1.internal:10250/metrics/resource",
	}, {
		name:   "first address of the preferred type",
		node:   node(addrs[:3], 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://10.0.0.7:10250/metrics/resource",
	}, {
		name:   "external when nothing else",
		node:   node(addrs[:1], 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://203.0.113.7:10250/metrics/resource",
	}, {
		name:   "--kubelet-preferred-address-types",
		node:   node(addrs, 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true, AddressTypePriority: []corev1.NodeAddressType{corev1.NodeExternalDNS}},
		want:   "https://node1.example.com:10250/metrics/resource",
	}, {
		name:     "no address of the types",
		node:     node(addrs[:1], 10250, nil),
		config:   KubeletClientConfig{DefaultPort: 10250, AddressTypePriority: []corev1.NodeAddressType{corev1.NodeHostName}},
		wantFail: true,
	}, {
		name:   "node status port",
		node:   node(addrs[1:2], 31234, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://10.0.0.7:31234/metrics/resource",
	}, {
		name:   "default port when the status has none",
		node:   node(addrs[1:2], 0, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://10.0.0.7:10250/metrics/resource",
	}, {
		name:   "default port when the status port is not used",
		node:   node(addrs[1:2], 31234, nil),
		config: KubeletClientConfig{DefaultPort: 10250},
		want:   "https://10.0.0.7:10250/metrics/resource",
	}, {
		name:   "IPv6",
		node:   node([]corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "fd00::7"}}, 10250, nil),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://[fd00::7]:10250/metrics/resource",
	}, {
		name:   "path annotation",
		node:   node(addrs[1:2], 10250, map[string]string{AnnotationResourceMetricsPath: "/nodes/node1/metrics/resource"}),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://10.0.0.7:10250/nodes/node1/metrics/resource",
	}, {
		name:   "empty path annotation",
		node:   node(addrs[1:2], 10250, map[string]string{AnnotationResourceMetricsPath: ""}),
		config: KubeletClientConfig{DefaultPort: 10250, UseNodeStatusPort: true},
		want:   "https://10.0.0.7:10250/metrics/resource",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := newKubeletClient(http.DefaultClient, tc.config).URL(tc.node)
			if (err != nil) != tc.wantFail {
				t.Fatalf("error %v, want failure: %v", err, tc.wantFail)
			}
			if got != tc.want {
				t.Errorf("URL = %q, want %q", got, tc.want)
			}
		})
	}
}

// fakeKubelet serves the recorded kubelet output on a node path, over TLS.
func fakeKubelet(t *testing.T, bodies map[string]string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := bodies[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(body))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func writeCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubelet-ca.crt")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func kubeletNode(name string, srv *httptest.Server, path string) *corev1.Node {
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"name": name}}}
	if path != "" {
		n.Annotations = map[string]string{AnnotationResourceMetricsPath: path}
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: host}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return n
}

func nodeLister(nodes ...*corev1.Node) corelisters.NodeLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range nodes {
		_ = idx.Add(n)
	}
	return corelisters.NewNodeLister(idx)
}

type recorder struct {
	mu   sync.Mutex
	errs map[string]error
}

func (r *recorder) ObserveKubeletRequest(node string, _ time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[node] = err
}

func TestScrape(t *testing.T) {
	kind, err := os.ReadFile("../testdata/kind-70pods.txt")
	if err != nil {
		t.Fatal(err)
	}
	v137, err := os.ReadFile("../testdata/kubelet-v1.37.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeKubelet(t, map[string]string{"/metrics/resource": string(kind), "/nodes/b": string(v137)})
	nodes := nodeLister(
		kubeletNode("a", srv, ""),         // the default path
		kubeletNode("b", srv, "/nodes/b"), // the annotation's
		kubeletNode("c", srv, "/nodes/c"), // 404: left out
	)
	kubelet, err := NewKubeletClient(KubeletClientConfig{
		Client:            rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: writeCA(t, srv)}},
		UseNodeStatusPort: true, DefaultPort: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{errs: map[string]error{}}
	s := New(Config{Nodes: nodes, Kubelet: kubelet, Timeout: 5 * time.Second, MaxStagger: 10 * time.Millisecond, Observer: rec})
	batch := s.Scrape(context.Background())
	if len(batch.Nodes) != 2 {
		t.Errorf("got node points for %d nodes, want a and b", len(batch.Nodes))
	}
	if _, ok := batch.Nodes["c"]; ok {
		t.Error("node c has a point despite its 404")
	}
	// 70 pods from a, 2 from b.
	if len(batch.Pods) != 72 {
		t.Errorf("got %d pods, want 72", len(batch.Pods))
	}
	if rec.errs["a"] != nil || rec.errs["b"] != nil || rec.errs["c"] == nil {
		t.Errorf("observed errors: %v", rec.errs)
	}

	// --node-selector
	s = New(Config{Nodes: nodes, Kubelet: kubelet, Timeout: 5 * time.Second, NodeSelector: labels.SelectorFromSet(labels.Set{"name": "b"})})
	if batch := s.Scrape(context.Background()); len(batch.Nodes) != 1 || len(batch.Pods) != 2 {
		t.Errorf("with a node selector: %d nodes, %d pods; want 1 and 2", len(batch.Nodes), len(batch.Pods))
	}
}

// TestScrapeVerifiesKubelets: without the kubelet CA the certificate is refused; with
// --kubelet-insecure-tls it is not checked.
func TestScrapeVerifiesKubelets(t *testing.T) {
	kind, err := os.ReadFile("../testdata/kind-70pods.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeKubelet(t, map[string]string{"/metrics/resource": string(kind)})
	nodes := nodeLister(kubeletNode("a", srv, ""))
	for _, tc := range []struct {
		name  string
		tls   rest.TLSClientConfig
		nodes int
	}{
		{name: "system roots do not know the kubelet CA", tls: rest.TLSClientConfig{}, nodes: 0},
		{name: "insecure", tls: rest.TLSClientConfig{Insecure: true}, nodes: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kubelet, err := NewKubeletClient(KubeletClientConfig{Client: rest.Config{TLSClientConfig: tc.tls}, UseNodeStatusPort: true})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{errs: map[string]error{}}
			s := New(Config{Nodes: nodes, Kubelet: kubelet, Timeout: 5 * time.Second, Observer: rec})
			if got := len(s.Scrape(context.Background()).Nodes); got != tc.nodes {
				t.Errorf("got %d nodes, want %d (errors: %v)", got, tc.nodes, rec.errs)
			}
			var unknownAuthority x509.UnknownAuthorityError
			if tc.nodes == 0 && !errors.As(rec.errs["a"], &unknownAuthority) {
				t.Errorf("want an unknown-authority error, got %v", rec.errs["a"])
			}
		})
	}
}

// TestScrapeTimeout: a kubelet that does not answer is left out once the timeout passes.
func TestScrapeTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	kubelet, err := NewKubeletClient(KubeletClientConfig{Client: rest.Config{TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, UseNodeStatusPort: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{errs: map[string]error{}}
	s := New(Config{Nodes: nodeLister(kubeletNode("slow", srv, "")), Kubelet: kubelet, Timeout: 100 * time.Millisecond, Observer: rec})
	if b := s.Scrape(context.Background()); len(b.Nodes) != 0 {
		t.Errorf("got %d nodes", len(b.Nodes))
	}
	if !errors.Is(rec.errs["slow"], context.DeadlineExceeded) {
		t.Errorf("want a deadline error, got %v", rec.errs["slow"])
	}
}
