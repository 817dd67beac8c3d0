package storage

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// Storage holds the latest two points of every node and container; it is safe for concurrent
// use (metrics-server pkg/storage/storage.go).
type Storage struct {
	mu    sync.RWMutex
	pods  podStorage
	nodes nodeStorage

	prevNodesReady bool
	prevPodsReady  bool
}

// New returns an empty Storage for a scraper that stores a batch every metricResolution.
func New(metricResolution time.Duration) *Storage {
	return &Storage{pods: podStorage{metricResolution: metricResolution}}
}

// Ready reports whether the storage holds enough points to serve both NodeMetrics and
// PodMetrics: two scrapes, since CPU usage is a rate between two points.
func (s *Storage) Ready() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nodeReady() && s.podReady()
}

// NodeReady reports whether the storage can serve NodeMetrics.
func (s *Storage) NodeReady() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nodeReady()
}

// PodReady reports whether the storage can serve PodMetrics.
func (s *Storage) PodReady() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.podReady()
}

func (s *Storage) nodeReady() bool { return len(s.nodes.prev) != 0 }
func (s *Storage) podReady() bool  { return len(s.pods.prev) != 0 }

// Points counts the node and container points for which usage can be served (what
// metrics-server exports as metrics_server_storage_points).
func (s *Storage) Points() (nodes, containers int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.nodes.prev), s.pods.containerPoints
}

// GetNodeMetrics returns the usage of those of nodes that have two points.
func (s *Storage) GetNodeMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nodes.GetMetrics(nodes...)
}

// GetPodMetrics returns the usage of those of pods whose every container has two points.
func (s *Storage) GetPodMetrics(pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pods.GetMetrics(pods...)
}

// Store makes batch the latest scrape: what it lacks (deleted pods, unreachable nodes) is
// forgotten, and of what it has the previous latest point becomes the previous one.
func (s *Storage) Store(batch *MetricsBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes.Store(batch)
	s.pods.Store(batch)
	s.logReadinessChange()
}

func (s *Storage) logReadinessChange() {
	nodesReady, podsReady := s.nodeReady(), s.podReady()
	if nodesReady == s.prevNodesReady && podsReady == s.prevPodsReady {
		return
	}
	switch {
	case nodesReady && podsReady:
		klog.V(2).InfoS("Metric storage is ready", "nodeMetrics", nodesReady, "podMetrics", podsReady)
	case nodesReady && !podsReady:
		klog.V(2).InfoS("Metric storage is not ready, pod metrics are missing, this may indicate a container-runtime or kubelet issue", "nodeMetrics", nodesReady, "podMetrics", podsReady)
	case !nodesReady && podsReady:
		klog.V(2).InfoS("Metric storage is not ready, node metrics are missing, this may indicate a kubelet issue", "nodeMetrics", nodesReady, "podMetrics", podsReady)
	default:
		klog.V(2).InfoS("Metric storage is not ready", "nodeMetrics", nodesReady, "podMetrics", podsReady)
	}
	s.prevNodesReady, s.prevPodsReady = nodesReady, podsReady
}
