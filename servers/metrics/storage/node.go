package storage

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// nodeStorage keeps the last two points of every node (metrics-server pkg/storage/node.go).
//
// A point is stored only if it is newer than the points already stored, so the window of the
// CPU rate is never zero.
type nodeStorage struct {
	// last are the points of the latest scrape.
	last map[string]MetricsPoint
	// prev are the points before those in last, for the nodes that have one.
	prev map[string]MetricsPoint
}

func (s *nodeStorage) GetMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	results := make([]metrics.NodeMetrics, 0, len(nodes))
	now := metav1.NewTime(time.Now())
	for _, node := range nodes {
		last, found := s.last[node.Name]
		if !found {
			continue
		}
		prev, found := s.prev[node.Name]
		if !found {
			continue
		}
		rl, ti, err := resourceUsage(last, prev)
		if err != nil {
			klog.ErrorS(err, "Skipping node usage metric", "node", klog.KObj(node))
			continue
		}
		results = append(results, metrics.NodeMetrics{
			ObjectMeta: metav1.ObjectMeta{
				Name:              node.Name,
				Labels:            node.Labels,
				CreationTimestamp: now,
			},
			Timestamp: metav1.NewTime(ti.Timestamp),
			Window:    metav1.Duration{Duration: ti.Window},
			Usage:     rl,
		})
	}
	return results, nil
}

// Store takes the batch's node points as the latest; metrics-server copies them into a new map,
// which changes nothing since a map holds one point per node already.
func (s *nodeStorage) Store(batch *MetricsBatch) {
	lastNodes := batch.Nodes
	if lastNodes == nil {
		lastNodes = map[string]MetricsPoint{}
	}
	prevNodes := make(map[string]MetricsPoint, len(lastNodes))
	for nodeName, newPoint := range lastNodes {
		lastNode, found := s.last[nodeName]
		if !found {
			continue
		}
		if newPoint.Timestamp.After(lastNode.Timestamp) {
			// A new point: the stored one becomes the previous.
			prevNodes[nodeName] = lastNode
		} else if prevPoint, found := s.prev[nodeName]; found {
			if prevPoint.Timestamp.Before(newPoint.Timestamp) {
				prevNodes[nodeName] = prevPoint
			} else {
				klog.V(2).InfoS("Found new node metrics point is older than stored previous, drop previous",
					"node", nodeName, "previousTimestamp", prevPoint.Timestamp, "timestamp", newPoint.Timestamp)
			}
		}
	}
	s.last = lastNodes
	s.prev = prevNodes
}
