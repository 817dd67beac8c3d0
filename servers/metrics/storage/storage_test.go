package storage

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/metrics/pkg/apis/metrics"
)

// Cases follow metrics-server's pkg/storage/{node,pod}_test.go.

const (
	miByte     = 1024 * 1024
	coreSecond = 1000 * 1000 * 1000
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func point(st time.Time, ts time.Duration, cpu, mem uint64) MetricsPoint {
	return MetricsPoint{StartTime: st, Timestamp: start.Add(ts), CumulativeCPUUsed: cpu, MemoryUsage: mem}
}

func nodeBatch(points map[string]MetricsPoint) *MetricsBatch {
	return &MetricsBatch{Nodes: points, Pods: map[apitypes.NamespacedName]PodMetricsPoint{}}
}

func podBatch(pods map[apitypes.NamespacedName][]ContainerMetricsPoint) *MetricsBatch {
	b := &MetricsBatch{Nodes: map[string]MetricsPoint{}, Pods: map[apitypes.NamespacedName]PodMetricsPoint{}}
	for ref, cs := range pods {
		b.Pods[ref] = PodMetricsPoint{Containers: cs}
	}
	return b
}

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"k": "v"}}}
}

func pod(ref apitypes.NamespacedName) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: ref.Namespace}}
}

func usage(nanoCores int64, mem int64) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(nanoCores, -9),
		corev1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI),
	}
}

func TestNodeStorage(t *testing.T) {
	s := New(15 * time.Second)
	s.Store(nodeBatch(map[string]MetricsPoint{"node1": point(start, 10*time.Second, 1*coreSecond, 2*miByte)}))
	if s.NodeReady() {
		t.Fatal("ready after one point: CPU usage needs two")
	}
	if ms, _ := s.GetNodeMetrics(node("node1")); len(ms) != 0 {
		t.Fatalf("metrics after one point: %v", ms)
	}

	// Two points 5 s apart, 5 core-seconds between them: 1 core.
	s.Store(nodeBatch(map[string]MetricsPoint{"node1": point(start, 15*time.Second, 6*coreSecond, 3*miByte)}))
	if !s.NodeReady() {
		t.Fatal("not ready after two points")
	}
	ms, err := s.GetNodeMetrics(node("node1"), node("node2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("want node1 only, got %d items", len(ms))
	}
	got := ms[0]
	if got.Name != "node1" || got.Labels["k"] != "v" || !got.Timestamp.Time.Equal(start.Add(15*time.Second)) || got.Window.Duration != 5*time.Second {
		t.Errorf("unexpected metadata: %+v", got)
	}
	if diff := cmp.Diff(usage(1*coreSecond, 3*miByte), got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if nodes, _ := s.Points(); nodes != 1 {
		t.Errorf("Points() nodes = %d, want 1", nodes)
	}

	// A scrape without the node forgets it.
	s.Store(nodeBatch(nil))
	if ms, _ := s.GetNodeMetrics(node("node1")); len(ms) != 0 {
		t.Errorf("metrics for a node the last scrape lacks: %v", ms)
	}
}

func TestNodeStorageOrdering(t *testing.T) {
	tests := []struct {
		name   string
		points []MetricsPoint
		want   *corev1.ResourceList
		window time.Duration
	}{{
		name:   "repeated point is not a window",
		points: []MetricsPoint{point(start, 10*time.Second, coreSecond, miByte), point(start, 10*time.Second, coreSecond, miByte)},
	}, {
		name:   "decreasing CPU is skipped",
		points: []MetricsPoint{point(start, 10*time.Second, 2*coreSecond, miByte), point(start, 20*time.Second, coreSecond, miByte)},
	}, {
		name:   "restart: later start time, CPU starts over",
		points: []MetricsPoint{point(start, 10*time.Second, 20*coreSecond, miByte), point(start.Add(15*time.Second), 20*time.Second, coreSecond, miByte)},
	}, {
		name: "point older than previous drops previous",
		points: []MetricsPoint{point(start, 10*time.Second, 1*coreSecond, miByte), point(start, 20*time.Second, 2*coreSecond, miByte),
			point(start, 5*time.Second, 3*coreSecond, miByte)},
	}, {
		name: "point between previous and last keeps previous",
		points: []MetricsPoint{point(start, 10*time.Second, 1*coreSecond, miByte), point(start, 20*time.Second, 3*coreSecond, miByte),
			point(start, 15*time.Second, 2*coreSecond, 2*miByte)},
		want:   &corev1.ResourceList{},
		window: 5 * time.Second,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(15 * time.Second)
			for _, p := range tc.points {
				s.Store(nodeBatch(map[string]MetricsPoint{"node1": p}))
			}
			ms, err := s.GetNodeMetrics(node("node1"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(ms) != 0 {
					t.Errorf("want no metrics, got %v", ms)
				}
				return
			}
			if len(ms) != 1 || ms[0].Window.Duration != tc.window {
				t.Errorf("want one item with window %v, got %+v", tc.window, ms)
			}
		})
	}
}

func TestPodStorage(t *testing.T) {
	pod1 := apitypes.NamespacedName{Namespace: "ns1", Name: "pod1"}
	pod2 := apitypes.NamespacedName{Namespace: "ns1", Name: "pod2"}
	s := New(15 * time.Second)
	s.Store(podBatch(map[apitypes.NamespacedName][]ContainerMetricsPoint{
		pod1: {{"c1", point(start, 110*time.Second, 1*coreSecond, 4*miByte)}, {"c2", point(start, 115*time.Second, 2*coreSecond, 5*miByte)}},
		pod2: {{"c1", point(start, 110*time.Second, 1*coreSecond, 4*miByte)}},
	}))
	if s.PodReady() {
		t.Fatal("ready after one point")
	}
	s.Store(podBatch(map[apitypes.NamespacedName][]ContainerMetricsPoint{
		pod1: {{"c1", point(start, 120*time.Second, 6*coreSecond, 6*miByte)}, {"c2", point(start, 125*time.Second, 7*coreSecond, 7*miByte)}},
		pod2: {{"c1", point(start, 120*time.Second, 2*coreSecond, 4*miByte)}},
	}))
	if !s.PodReady() {
		t.Fatal("not ready after two points")
	}
	ms, err := s.GetPodMetrics(pod(pod1), pod(pod2))
	if err != nil {
		t.Fatal(err)
	}
	want := []metrics.PodMetrics{{
		ObjectMeta: metav1.ObjectMeta{Name: "pod1", Namespace: "ns1"},
		// The earliest container timestamp, with its window.
		Timestamp: metav1.NewTime(start.Add(120 * time.Second)),
		Window:    metav1.Duration{Duration: 10 * time.Second},
		Containers: []metrics.ContainerMetrics{
			{Name: "c1", Usage: usage(coreSecond/2, 6*miByte)},
			{Name: "c2", Usage: usage(coreSecond/2, 7*miByte)},
		},
	}, {
		ObjectMeta: metav1.ObjectMeta{Name: "pod2", Namespace: "ns1"},
		Timestamp:  metav1.NewTime(start.Add(120 * time.Second)),
		Window:     metav1.Duration{Duration: 10 * time.Second},
		Containers: []metrics.ContainerMetrics{{Name: "c1", Usage: usage(coreSecond/10, 4*miByte)}},
	}}
	for i := range ms {
		ms[i].CreationTimestamp = metav1.Time{}
	}
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("pod metrics (-want +got):\n%s", diff)
	}
	if _, containers := s.Points(); containers != 3 {
		t.Errorf("Points() containers = %d, want 3", containers)
	}

	// pod2 deleted: the next scrape lacks it, and it is gone.
	s.Store(podBatch(map[apitypes.NamespacedName][]ContainerMetricsPoint{
		pod1: {{"c1", point(start, 130*time.Second, 7*coreSecond, 6*miByte)}, {"c2", point(start, 135*time.Second, 8*coreSecond, 7*miByte)}},
	}))
	ms, _ = s.GetPodMetrics(pod(pod1), pod(pod2))
	if len(ms) != 1 || ms[0].Name != "pod1" {
		t.Errorf("want pod1 only after pod2 is gone, got %+v", ms)
	}
}

func TestPodStorageContainers(t *testing.T) {
	ref := apitypes.NamespacedName{Namespace: "ns1", Name: "pod1"}
	tests := []struct {
		name    string
		batches [][]ContainerMetricsPoint
		// want is the pod's window; 0 wants no metrics.
		want time.Duration
	}{{
		name: "restarted container: no window",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 10*time.Second, 5*coreSecond, miByte)}},
			{{"c1", point(start.Add(15*time.Second), 20*time.Second, coreSecond, miByte)}},
		},
	}, {
		name: "fresh container: its start is the previous point, in one scrape",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 12*time.Second, 5*coreSecond, miByte)}},
		},
		want: 12 * time.Second,
	}, {
		name: "long-running container needs two scrapes",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 60*time.Second, 5*coreSecond, miByte)}},
		},
	}, {
		name: "fresh container younger than 10s needs two scrapes",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 5*time.Second, 5*coreSecond, miByte)}},
		},
	}, {
		name: "a container without a previous point hides the pod",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 100*time.Second, coreSecond, miByte)}},
			{{"c1", point(start, 110*time.Second, 2*coreSecond, miByte)}, {"c2", point(start, 110*time.Second, 2*coreSecond, miByte)}},
		},
	}, {
		name: "repeated point keeps previous",
		batches: [][]ContainerMetricsPoint{
			{{"c1", point(start, 100*time.Second, coreSecond, miByte)}},
			{{"c1", point(start, 110*time.Second, 2*coreSecond, miByte)}},
			{{"c1", point(start, 110*time.Second, 2*coreSecond, miByte)}},
		},
		want: 10 * time.Second,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(15 * time.Second)
			for _, b := range tc.batches {
				s.Store(podBatch(map[apitypes.NamespacedName][]ContainerMetricsPoint{ref: b}))
			}
			ms, err := s.GetPodMetrics(pod(ref))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == 0 && len(ms) != 0:
				t.Errorf("want no metrics, got %+v", ms)
			case tc.want != 0 && (len(ms) != 1 || ms[0].Window.Duration != tc.want):
				t.Errorf("want one item with window %v, got %+v", tc.want, ms)
			}
		})
	}
}

// TestStoreCountsSeriesBegun: Store says how many series began with the batch (the metrics
// server scrapes again at once for them): new nodes and containers, and restarted containers,
// but not those that have a usage already, nor a container its start time pairs.
func TestStoreCountsSeriesBegun(t *testing.T) {
	pod1 := apitypes.NamespacedName{Namespace: "ns1", Name: "pod1"}
	s := New(time.Minute)
	early := start.Add(-time.Hour) // longer ago than the resolution: no pairing with the start
	steps := []struct {
		batch *MetricsBatch
		want  int
	}{
		{&MetricsBatch{Nodes: map[string]MetricsPoint{"node1": point(early, 0, coreSecond, miByte)},
			Pods: map[apitypes.NamespacedName]PodMetricsPoint{pod1: {Containers: []ContainerMetricsPoint{{"c1", point(early, 0, coreSecond, miByte)}}}}}, 2},
		{&MetricsBatch{Nodes: map[string]MetricsPoint{"node1": point(early, time.Second, 2*coreSecond, miByte), "node2": point(early, time.Second, coreSecond, miByte)},
			Pods: map[apitypes.NamespacedName]PodMetricsPoint{pod1: {Containers: []ContainerMetricsPoint{{"c1", point(early, time.Second, 2*coreSecond, miByte)}}}}}, 1},
		// c1 restarted (it started after the last point), c2 started 20 s ago: its start pairs.
		{&MetricsBatch{Nodes: map[string]MetricsPoint{"node1": point(early, 2*time.Second, 3*coreSecond, miByte), "node2": point(early, 2*time.Second, 2*coreSecond, miByte)},
			Pods: map[apitypes.NamespacedName]PodMetricsPoint{pod1: {Containers: []ContainerMetricsPoint{
				{"c1", point(start.Add(1500*time.Millisecond), 2*time.Second, coreSecond/10, miByte)},
				{"c2", point(start.Add(-18*time.Second), 2*time.Second, coreSecond, miByte)},
			}}}}, 1},
	}
	for i, step := range steps {
		if got := s.Store(step.batch); got != step.want {
			t.Errorf("batch %d: %d series begun, want %d", i, got, step.want)
		}
	}
}
