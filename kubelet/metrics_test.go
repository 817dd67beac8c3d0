package kubelet

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/sharedinformers"
)

func runningPod(ns, name string, uid types.UID, started time.Time, annotations map[string]string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid, Annotations: annotations},
		Spec:       corev1.PodSpec{NodeName: "sim-node-1"},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: started}},
	}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "nginx"})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: started}}}})
	}
	return p
}

// simulatorWith is a Simulator with one simulated node holding pods, without an API.
func simulatorWith(t *testing.T, pods ...*corev1.Pod) (*Simulator, *node) {
	t.Helper()
	n := &node{name: "sim-node-1"}
	s := &Simulator{byName: map[string]*node{n.name: n}, usage: newUsageModel()}
	s.pods = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{sharedinformers.PodsByNode: sharedinformers.IndexByNode})
	for _, p := range pods {
		if err := s.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return s, n
}

// TestResourceMetricsFormat checks the text is what client_golang writes: parsing it and
// writing it again with expfmt gives the same bytes. It also checks what a kubelet's has:
// families by name, samples by label values, millisecond timestamps except on start times.
func TestResourceMetricsFormat(t *testing.T) {
	started := time.Unix(1700000000, 500_000_000)
	s, n := simulatorWith(t,
		runningPod("ns-b", "web", "uid-1", started, nil, "nginx", "agent"),
		runningPod("ns-a", "api", "uid-2", started, map[string]string{CPUUsageAnnotation: "250m", MemoryUsageAnnotation: "64Mi"}, "app"),
	)
	now := time.Unix(1700000100, 123_000_000)
	text := s.resourceMetrics(n, now)

	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parsing:\n%s\n%v", text, err)
	}
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	slices.Sort(names)
	var again bytes.Buffer
	for _, name := range names {
		if _, err := expfmt.MetricFamilyToText(&again, families[name]); err != nil {
			t.Fatal(err)
		}
	}
	if again.String() != string(text) {
		t.Errorf("not expfmt's text format:\n--- ours\n%s\n--- expfmt\n%s", text, again.String())
	}

	want := []string{"container_cpu_usage_seconds_total", "container_memory_working_set_bytes", "container_start_time_seconds",
		"node_cpu_usage_seconds_total", "node_memory_working_set_bytes", "pod_cpu_usage_seconds_total",
		"pod_memory_working_set_bytes", "resource_scrape_error"}
	if !slices.Equal(names, want) {
		t.Errorf("families %v, want %v", names, want)
	}
	lines := strings.Split(string(text), "\n")
	if lines[0] != "# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds" ||
		lines[1] != "# TYPE container_cpu_usage_seconds_total counter" ||
		!strings.HasPrefix(lines[2], `container_cpu_usage_seconds_total{container="agent",namespace="ns-b",pod="web"} `) ||
		!strings.HasSuffix(lines[2], " 1700000100123") {
		t.Errorf("unexpected start:\n%s", strings.Join(lines[:3], "\n"))
	}
	if !strings.Contains(string(text), `container_start_time_seconds{container="app",namespace="ns-a",pod="api"} 1.7000000005e+09`+"\n") {
		t.Errorf("start time line missing or timestamped:\n%s", text)
	}
	if !strings.HasSuffix(string(text), "# TYPE resource_scrape_error gauge\nresource_scrape_error 0\n") {
		t.Errorf("unexpected end:\n%s", text)
	}
	for _, name := range names {
		for _, m := range families[name].Metric {
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue()
			if name != "resource_scrape_error" && v <= 0 {
				t.Errorf("%s %v is not positive", name, m.Label)
			}
		}
	}
	mem := families["container_memory_working_set_bytes"].Metric[1] // agent, app, nginx
	if got := mem.GetGauge().GetValue(); mem.Label[0].GetValue() != "app" || got < 0.98*(64<<20) || got > 1.02*(64<<20) {
		t.Errorf("annotated memory %v %v, want about 64Mi for app", mem.Label, got)
	}
}

// TestCPUCountersGrowAtTheUsageRate checks that the rate between two scrapes is the usage.
func TestCPUCountersGrowAtTheUsageRate(t *testing.T) {
	started := time.Unix(1700000000, 0)
	s, n := simulatorWith(t, runningPod("ns", "p", "uid-1", started, map[string]string{CPUUsageAnnotation: "500m"}, "a", "b"))
	value := func(now time.Time, family string) float64 {
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(s.resourceMetrics(n, now)))
		if err != nil {
			t.Fatal(err)
		}
		return fams[family].Metric[0].GetCounter().GetValue()
	}
	t0 := started.Add(time.Minute)
	pod0, node0 := value(t0, "pod_cpu_usage_seconds_total"), value(t0, "node_cpu_usage_seconds_total")
	t1 := t0.Add(10 * time.Second)
	pod1, node1 := value(t1, "pod_cpu_usage_seconds_total"), value(t1, "node_cpu_usage_seconds_total")
	if rate := (pod1 - pod0) / 10; rate < 0.45 || rate > 0.55 {
		t.Errorf("pod CPU rate %v, want about 0.5", rate)
	}
	if rate := (node1 - node0) / 10; rate < 0.5 {
		t.Errorf("node CPU rate %v, want at least its pod's", rate)
	}
	if pod0 < 0.45*60 {
		t.Errorf("a counter first seen after a minute is %v, want about 30 core-seconds", pod0)
	}
	// A scrape out of order never makes a counter go back.
	if back := value(t0, "pod_cpu_usage_seconds_total"); back < pod1 {
		t.Errorf("counter went back from %v to %v", pod1, back)
	}
}

func TestDeletedPodLeavesMetrics(t *testing.T) {
	p := runningPod("ns", "p", "uid-1", time.Now(), nil, "a")
	s, n := simulatorWith(t, p)
	if !strings.Contains(string(s.resourceMetrics(n, time.Now())), `pod="p"`) {
		t.Fatal("running pod missing")
	}
	deleting := p.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	if err := s.pods.Update(deleting); err != nil {
		t.Fatal(err)
	}
	text := string(s.resourceMetrics(n, time.Now()))
	if strings.Contains(text, `pod="p"`) || strings.Contains(text, "container_") {
		t.Errorf("terminating pod still reported:\n%s", text)
	}
}

func TestContainerUsage(t *testing.T) {
	now := time.Now()
	pod := func(annotations map[string]string, containers ...corev1.Container) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Annotations: annotations}, Spec: corev1.PodSpec{Containers: containers}}
	}
	c := corev1.Container{Name: "c"}
	for _, tc := range []struct {
		name              string
		pod               *corev1.Pod
		share             int
		minCPU, maxCPU    float64
		minMem, maxMemory float64
	}{
		{"default", pod(nil, c), 1, 0.0019, 0.0315, 7.9 * (1 << 20), 64.7 * (1 << 20)},
		{"annotated, split", pod(map[string]string{CPUUsageAnnotation: "1", MemoryUsageAnnotation: "1Gi"}, c, c), 2, 0.475, 0.525, 0.99 * (512 << 20), 1.01 * (512 << 20)},
		{"zero is never zero", pod(map[string]string{CPUUsageAnnotation: "0", MemoryUsageAnnotation: "0"}, c), 1, minCPU, minCPU, minMemory, minMemory},
		{"unparsable is ignored", pod(map[string]string{CPUUsageAnnotation: "lots"}, c), 1, 0.0019, 0.0315, 1, 1 << 30},
	} {
		cpu, mem := simulatedUsage(tc.pod, &c, tc.share, now)
		if cpu < tc.minCPU || cpu > tc.maxCPU || mem < tc.minMem || mem > tc.maxMemory {
			t.Errorf("%s: cpu %v, memory %v", tc.name, cpu, mem)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	files := pki.FilesIn(t.TempDir())
	if _, err := pki.Ensure(files, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	servingCert, servingKey, err := pki.IssueServingCert(files, "kubelet", pki.ServingNames{DNS: []string{"localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := os.ReadFile(files.ClientCACert)
	if err != nil {
		t.Fatal(err)
	}
	good := Config{Client: fake.NewClientset(), Nodes: 1, ServingCert: servingCert, ServingKey: servingKey, ClientCA: clientCA}
	if _, err := New(good); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	for name, mod := range map[string]func(*Config){
		"no client":      func(c *Config) { c.Client = nil },
		"negative nodes": func(c *Config) { c.Nodes = -1 },
		"bad address":    func(c *Config) { c.BindAddress = "nowhere" },
		"no certificate": func(c *Config) { c.ServingCert = nil },
		"not a key pair": func(c *Config) { c.ServingKey = []byte("y") },
		"no client CA":   func(c *Config) { c.ClientCA = nil },
		"bad client CA":  func(c *Config) { c.ClientCA = []byte("not PEM") },
	} {
		c := good
		mod(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
