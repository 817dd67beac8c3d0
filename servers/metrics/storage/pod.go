package storage

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// freshContainerMinMetricsResolution is how long a new container must have run before its start
// (cumulative CPU zero at StartTime) can serve as its previous point: shorter windows are too
// noisy (metrics-server pkg/storage/pod.go).
const freshContainerMinMetricsResolution = 10 * time.Second

// podStorage keeps the last two points of every container (metrics-server pkg/storage/pod.go).
//
// A point is stored only if it is newer than the points already stored, so the window of the
// CPU rate is never zero.
type podStorage struct {
	// last are the points of the latest scrape.
	last map[apitypes.NamespacedName]PodMetricsPoint
	// prev are the points before those in last, for the containers that have one and did not
	// restart in between.
	prev map[apitypes.NamespacedName]PodMetricsPoint
	// containerPoints counts the containers in prev.
	containerPoints int
	// metricResolution is how often the scraper stores a batch.
	metricResolution time.Duration
}

func (s *podStorage) GetMetrics(pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error) {
	results := make([]metrics.PodMetrics, 0, len(pods))
	now := metav1.NewTime(time.Now())
	for _, pod := range pods {
		ref := apitypes.NamespacedName{Name: pod.Name, Namespace: pod.Namespace}
		lastPod, found := s.last[ref]
		if !found {
			continue
		}
		prevPod, found := s.prev[ref]
		if !found {
			continue
		}
		var (
			cms              = make([]metrics.ContainerMetrics, 0, len(lastPod.Containers))
			earliestTimeInfo TimeInfo
		)
		allContainersPresent := true
		for _, lastContainer := range lastPod.Containers {
			prevContainer, found := prevPod.container(lastContainer.Name)
			if !found {
				allContainersPresent = false
				break
			}
			usage, ti, err := resourceUsage(lastContainer.MetricsPoint, prevContainer)
			if err != nil {
				klog.ErrorS(err, "Skipping container usage metric", "container", lastContainer.Name, "pod", klog.KRef(pod.Namespace, pod.Name))
				continue
			}
			cms = append(cms, metrics.ContainerMetrics{Name: lastContainer.Name, Usage: usage})
			if earliestTimeInfo.Timestamp.IsZero() || earliestTimeInfo.Timestamp.After(ti.Timestamp) {
				earliestTimeInfo = ti
			}
		}
		if !allContainersPresent {
			continue
		}
		results = append(results, metrics.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{
				Name:              pod.Name,
				Namespace:         pod.Namespace,
				Labels:            pod.Labels,
				CreationTimestamp: now,
			},
			Timestamp:  metav1.NewTime(earliestTimeInfo.Timestamp),
			Window:     metav1.Duration{Duration: earliestTimeInfo.Window},
			Containers: cms,
		})
	}
	return results, nil
}

// Store takes the batch's pod points as the latest. Container names within a pod are unique
// (the decoder merges the lines of one container), so metrics-server's duplicate check is gone.
func (s *podStorage) Store(batch *MetricsBatch) {
	lastPods := batch.Pods
	if lastPods == nil {
		lastPods = map[apitypes.NamespacedName]PodMetricsPoint{}
	}
	prevPods := make(map[apitypes.NamespacedName]PodMetricsPoint, len(lastPods))
	// One array holds every previous point, rather than one small slice per pod.
	total := 0
	for _, p := range lastPods {
		total += len(p.Containers)
	}
	all := make([]ContainerMetricsPoint, 0, total)
	for podRef, newPod := range lastPods {
		lastPod, lastFound := s.last[podRef]
		// The previous points are needed only when a point repeats: look them up then.
		var prevPod PodMetricsPoint
		prevLooked := false
		first := len(all)
		for _, c := range newPod.Containers {
			newPoint := c.MetricsPoint
			if newPoint.StartTime.Before(newPoint.Timestamp) && newPoint.Timestamp.Sub(newPoint.StartTime) < s.metricResolution && newPoint.Timestamp.Sub(newPoint.StartTime) >= freshContainerMinMetricsResolution {
				// A container that started within the last resolution: its start, when its
				// cumulative CPU was zero, is its previous point.
				started := newPoint
				started.Timestamp = newPoint.StartTime
				started.CumulativeCPUUsed = 0
				all = append(all, ContainerMetricsPoint{Name: c.Name, MetricsPoint: started})
				continue
			}
			if !lastFound {
				continue
			}
			lastContainer, found := lastPod.container(c.Name)
			// A container that restarted since the stored point starts over.
			if !found || !newPoint.StartTime.Before(lastContainer.Timestamp) {
				continue
			}
			if newPoint.Timestamp.After(lastContainer.Timestamp) {
				// A new point: the stored one becomes the previous.
				all = append(all, ContainerMetricsPoint{Name: c.Name, MetricsPoint: lastContainer})
				continue
			}
			// The same point again: keep the previous one. (metrics-server reads a missing
			// container here as a zero point; it is skipped instead.)
			if !prevLooked {
				prevPod, prevLooked = s.prev[podRef], true
			}
			if prevContainer, found := prevPod.container(c.Name); found {
				if prevContainer.Timestamp.Before(newPoint.Timestamp) {
					all = append(all, ContainerMetricsPoint{Name: c.Name, MetricsPoint: prevContainer})
				} else {
					klog.V(2).InfoS("Found new containerName metrics point is older than stored previous, drop previous",
						"containerName", c.Name, "pod", klog.KRef(podRef.Namespace, podRef.Name),
						"previousTimestamp", prevContainer.Timestamp, "timestamp", newPoint.Timestamp)
				}
			}
		}
		if len(all) > first {
			prevPods[podRef] = PodMetricsPoint{Containers: all[first:len(all):len(all)]}
		}
	}
	s.last = lastPods
	s.prev = prevPods
	s.containerPoints = len(all)
}
