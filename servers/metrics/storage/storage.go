package storage

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// A container that started within the last resolution has no older point yet, but its start is
// one: its CPU counter was zero then. Not before it has run this long, though: over a shorter
// window the rate says little.
const minFreshWindow = 10 * time.Second

// Storage holds the series of every node and container of the latest scrape. It is safe for
// concurrent use: the scraper stores while the API reads.
type Storage struct {
	resolution time.Duration

	mu    sync.RWMutex
	nodes map[string]series
	pods  map[apitypes.NamespacedName][]namedSeries
	// paired counts the series that have an older point: what can be served.
	pairedNodes, pairedContainers int
}

// series is what is kept of one node or container.
type series struct {
	newest, older MetricsPoint
	paired        bool // older is set
}

type namedSeries struct {
	name string
	series
}

// New returns an empty Storage for a scraper that stores a batch every resolution.
func New(resolution time.Duration) *Storage {
	return &Storage{resolution: resolution}
}

// Store makes batch the latest scrape. A node or pod the batch lacks is forgotten; for the rest,
// the point stored so far becomes the older one. It returns how many series (nodes and
// containers) began with this batch: they have no usage until their second point.
func (s *Storage) Store(batch *MetricsBatch) (begun int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wasNodeReady, wasPodReady := s.pairedNodes > 0, s.pairedContainers > 0

	nodes := make(map[string]series, len(batch.Nodes))
	s.pairedNodes = 0
	for name, p := range batch.Nodes {
		prev, seen := s.nodes[name]
		next := follow(prev, seen, p)
		nodes[name] = next
		if next.paired {
			s.pairedNodes++
		}
		if !seen {
			begun++
		}
	}

	n := 0
	for _, pod := range batch.Pods {
		n += len(pod.Containers)
	}
	all := make([]namedSeries, 0, n) // one array for the containers of all pods
	pods := make(map[apitypes.NamespacedName][]namedSeries, len(batch.Pods))
	s.pairedContainers = 0
	for ref, pod := range batch.Pods {
		before := s.pods[ref]
		first := len(all)
		for _, c := range pod.Containers {
			prev, seen := find(before, c.Name)
			next, anew := s.followContainer(prev, seen, c.MetricsPoint)
			all = append(all, namedSeries{c.Name, next})
			if next.paired {
				s.pairedContainers++
			} else if anew {
				begun++
			}
		}
		pods[ref] = all[first:len(all):len(all)]
	}
	s.nodes, s.pods = nodes, pods

	if nodeReady, podReady := s.pairedNodes > 0, s.pairedContainers > 0; nodeReady != wasNodeReady || podReady != wasPodReady {
		klog.V(2).InfoS("Metric storage readiness changed (a rate needs two scrapes; nodes without pods, or the reverse, point at the kubelet)",
			"nodeMetrics", nodeReady, "podMetrics", podReady)
	}
	return begun
}

// follow is the series once p arrives, given the series so far (seen false for none).
func follow(prev series, seen bool, p MetricsPoint) series {
	next := series{newest: p}
	switch {
	case !seen:
	case p.Timestamp.After(prev.newest.Timestamp):
		next.older, next.paired = prev.newest, true
	case prev.paired && prev.older.Timestamp.Before(p.Timestamp):
		// The kubelet served the same point again: the pair stays what it was.
		next.older, next.paired = prev.older, true
	}
	return next
}

// followContainer is follow with what only containers do: start fresh, and restart. anew says
// the series begins with p (a container not seen before, or restarted).
func (s *Storage) followContainer(prev series, seen bool, p MetricsPoint) (next series, anew bool) {
	if age := p.Timestamp.Sub(p.StartTime); age >= minFreshWindow && age < s.resolution {
		start := p
		start.Timestamp, start.CumulativeCPUUsed = p.StartTime, 0
		return series{newest: p, older: start, paired: true}, false
	}
	// A container that started after the stored point is a new one: its counter began again.
	restarted := seen && !p.StartTime.Before(prev.newest.Timestamp)
	return follow(prev, seen && !restarted, p), !seen || restarted
}

func find(cs []namedSeries, name string) (series, bool) {
	for _, c := range cs {
		if c.name == name {
			return c.series, true
		}
	}
	return series{}, false
}

// NodeReady reports whether some node has a usage to serve.
func (s *Storage) NodeReady() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pairedNodes > 0
}

// PodReady reports whether some container has a usage to serve.
func (s *Storage) PodReady() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pairedContainers > 0
}

// Ready reports whether both nodes and pods have usages: after two scrapes.
func (s *Storage) Ready() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pairedNodes > 0 && s.pairedContainers > 0
}

// Points counts the nodes and containers that have a usage to serve (the
// metrics_server_storage_points gauge).
func (s *Storage) Points() (nodes, containers int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pairedNodes, s.pairedContainers
}

// GetNodeMetrics returns the usage of each of nodes that has one, in the order given.
func (s *Storage) GetNodeMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	created := metav1.Now()
	out := make([]metrics.NodeMetrics, 0, len(nodes))
	for _, node := range nodes {
		ser, ok := s.nodes[node.Name]
		if !ok || !ser.paired {
			continue
		}
		use, at, window, err := usageBetween(ser.newest, ser.older)
		if err != nil {
			klog.ErrorS(err, "Skipping the usage of a node", "node", klog.KObj(node))
			continue
		}
		out = append(out, metrics.NodeMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: node.Name, Labels: node.Labels, CreationTimestamp: created},
			Timestamp:  metav1.NewTime(at),
			Window:     metav1.Duration{Duration: window},
			Usage:      use,
		})
	}
	return out, nil
}

// GetPodMetrics returns the usage of each of pods whose every container has one, in the order
// given. A pod's timestamp and window are those of its container measured earliest, which is
// what the HPA goes by to leave pods that just started out.
func (s *Storage) GetPodMetrics(pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	created := metav1.Now()
	out := make([]metrics.PodMetrics, 0, len(pods))
	for _, pod := range pods {
		containers := s.pods[apitypes.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
		if len(containers) == 0 || !allPaired(containers) {
			continue
		}
		m := metrics.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: pod.Labels, CreationTimestamp: created},
			Containers: make([]metrics.ContainerMetrics, 0, len(containers)),
		}
		for _, c := range containers {
			use, at, window, err := usageBetween(c.newest, c.older)
			if err != nil {
				klog.ErrorS(err, "Skipping the usage of a container", "pod", klog.KObj(pod), "container", c.name)
				continue
			}
			m.Containers = append(m.Containers, metrics.ContainerMetrics{Name: c.name, Usage: use})
			if m.Timestamp.IsZero() || at.Before(m.Timestamp.Time) {
				m.Timestamp, m.Window = metav1.NewTime(at), metav1.Duration{Duration: window}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func allPaired(cs []namedSeries) bool {
	for _, c := range cs {
		if !c.paired {
			return false
		}
	}
	return true
}
