package metrics

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/servers/metrics/scraper"
	"github.com/apichain/apichain/servers/metrics/storage"
)

const (
	benchNodes       = 1000
	benchPodsPerNode = 30
)

// benchKubelets is one in-process fake kubelet server for every node: one http.Server (HTTP/2
// over TLS, as kubelets serve) listening on one port per node, so that each node has its own
// connection as real kubelets do, and a path per node given by the node's annotation.
type benchKubelets struct {
	srv    *httptest.Server
	nodes  []*corev1.Node
	paths  map[string]int
	bodies [2][][]byte
	// current is which of bodies the server answers with; the benchmark writes the other.
	current atomic.Int32
}

func newBenchKubelets(b *testing.B) *benchKubelets {
	k := &benchKubelets{paths: map[string]int{}}
	for i := range benchNodes {
		k.paths[fmt.Sprintf("/nodes/node-%04d/metrics/resource", i)] = i
	}
	k.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, ok := k.paths[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := k.bodies[k.current.Load()][i]
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	k.srv.EnableHTTP2 = true
	k.srv.StartTLS()
	b.Cleanup(k.srv.Close)

	for i := range benchNodes {
		l := k.srv.Listener
		if i > 0 {
			var err error
			if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				b.Fatal(err)
			}
			go func() { _ = k.srv.Config.Serve(tls.NewListener(l, k.srv.TLS)) }()
		}
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("node-%04d", i),
			Annotations: map[string]string{scraper.AnnotationResourceMetricsPath: fmt.Sprintf("/nodes/node-%04d/metrics/resource", i)},
		}}
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(l.Addr().(*net.TCPAddr).Port)
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		k.nodes = append(k.nodes, n)
	}
	for j := range k.bodies {
		k.bodies[j] = make([][]byte, benchNodes)
	}
	return k
}

// render writes what every kubelet answers at scrape iter (timestamps one second apart, CPU
// counters growing) into the bodies not being served, then serves them.
func (k *benchKubelets) render(iter int) {
	next := 1 - k.current.Load()
	ts := strconv.AppendInt(nil, 1_700_000_000_000+int64(iter)*1000, 10)
	start := []byte("1.6999e+09")
	for i, buf := range k.bodies[next] {
		buf = buf[:0]
		node := fmt.Sprintf("node-%04d", i)
		line := func(name, labels string, v float64, withTS bool) {
			buf = append(buf, name...)
			buf = append(buf, labels...)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			if withTS {
				buf = append(buf, ' ')
				buf = append(buf, ts...)
			}
			buf = append(buf, '\n')
		}
		family := func(name, help, typ string) {
			buf = append(buf, "# HELP "+name+" [STABLE] "+help+"\n# TYPE "+name+" "+typ+"\n"...)
		}
		labels := make([]string, benchPodsPerNode)
		for p := range labels {
			labels[p] = fmt.Sprintf(`{container="app",namespace="bench",pod="%s-pod-%02d"}`, node, p)
		}
		family("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", "counter")
		for p := range labels {
			line("container_cpu_usage_seconds_total", labels[p], 10+float64(iter)*0.25+float64(p)/100, true)
		}
		family("container_memory_working_set_bytes", "Current working set of the container in bytes", "gauge")
		for p := range labels {
			line("container_memory_working_set_bytes", labels[p], float64(20<<20+p<<12), true)
		}
		family("container_start_time_seconds", "Start time of the container since unix epoch in seconds", "gauge")
		for p := range labels {
			buf = append(buf, "container_start_time_seconds"+labels[p]+" "...)
			buf = append(buf, start...)
			buf = append(buf, '\n')
		}
		family("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", "counter")
		line("node_cpu_usage_seconds_total", "", 1000+float64(iter)*2, true)
		family("node_memory_working_set_bytes", "Current working set of the node in bytes", "gauge")
		line("node_memory_working_set_bytes", "", 4<<30, true)
		family("resource_scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge")
		line("resource_scrape_error", "", 0, false)
		k.bodies[next][i] = buf
	}
	k.current.Store(next)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapAfterGC() uint64 {
	// Twice: sync.Pools keep their contents for one collection.
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkScrapeAndStore is one scrape of 1000 nodes × 30 pods (one container each) and its
// store, per iteration, through the real kubelet client (TLS verified, HTTP/2), decoder,
// scraper and storage. It reports, per node and cycle: CPU time of the whole process
// (getrusage; includes the fake kubelets serving, so it overstates the metrics server's
// share), that CPU as millicores at 15 s and 1 s resolution, bytes allocated, and bytes the
// storage retains. metrics-server publishes 1 millicore and 2 MiB per node.
//
// Requests are not staggered (MaxStagger 0): staggering only spreads the same work over time.
func BenchmarkScrapeAndStore(b *testing.B) {
	k := newBenchKubelets(b)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range k.nodes {
		_ = idx.Add(n)
	}
	kubelet, err := scraper.NewKubeletClient(scraper.KubeletClientConfig{
		Client:            rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: encode(k.srv.Certificate())}},
		UseNodeStatusPort: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	s := scraper.New(scraper.Config{Nodes: corelisters.NewNodeLister(idx), Kubelet: kubelet, Timeout: 10 * time.Second})
	ctx := context.Background()

	// Warm up: connect to every kubelet once.
	iter := 0
	k.render(iter)
	if got := len(s.Scrape(ctx).Nodes); got != benchNodes {
		b.Fatalf("warm-up scraped %d nodes, want %d", got, benchNodes)
	}
	store := storage.New(time.Second)

	var cpu time.Duration
	var allocated uint64
	var before, after runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		iter++
		k.render(iter)
		runtime.ReadMemStats(&before)
		b.StartTimer()

		c0 := cpuTime()
		batch := s.Scrape(ctx)
		store.Store(batch)
		cpu += cpuTime() - c0

		b.StopTimer()
		runtime.ReadMemStats(&after)
		allocated += after.TotalAlloc - before.TotalAlloc
		if len(batch.Nodes) != benchNodes || len(batch.Pods) != benchNodes*benchPodsPerNode {
			b.Fatalf("scraped %d nodes and %d pods", len(batch.Nodes), len(batch.Pods))
		}
		b.StartTimer()
	}
	b.StopTimer()
	if nodes, containers := store.Points(); iter > 1 && (nodes != benchNodes || containers != benchNodes*benchPodsPerNode) {
		b.Fatalf("storage serves %d nodes and %d containers", nodes, containers)
	}
	// What the storage retains: the heap with it, less the heap without it.
	withStore := heapAfterGC()
	runtime.KeepAlive(store)
	retained := int64(withStore) - int64(heapAfterGC())

	perNode := float64(b.N) * benchNodes
	cpuPerNode := float64(cpu.Nanoseconds()) / perNode
	b.ReportMetric(cpuPerNode, "cpu-ns/node")
	b.ReportMetric(cpuPerNode/float64(15*time.Second)*1000, "mcores/node@15s")
	b.ReportMetric(cpuPerNode/float64(time.Second)*1000, "mcores/node@1s")
	b.ReportMetric(float64(allocated)/perNode, "B-alloc/node")
	b.ReportMetric(float64(retained)/benchNodes, "B-retained/node")
}
