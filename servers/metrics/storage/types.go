// Package storage keeps what the metrics server has scraped: for every node and every container,
// the latest two points only, and turns each pair into a usage (CPU as the rate between the two
// points, memory as the latest working set). It sits between the scraper, which stores a batch
// per resolution tick, and the metrics.k8s.io API, which reads it. Ported from metrics-server
// pkg/storage; nothing is ever written to etcd.
package storage

import (
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// MetricsBatch is one scrape of every node: node points by node name, container points by pod.
// Store takes ownership of a batch; nobody may change it afterwards.
type MetricsBatch struct {
	Nodes map[string]MetricsPoint
	Pods  map[apitypes.NamespacedName]PodMetricsPoint
}

// PodMetricsPoint holds the points of a pod's containers.
//
// metrics-server keeps them in a map by container name; a slice in the kubelet's order costs a
// fraction of the memory for the one to three containers a pod usually has, and gives
// PodMetrics.containers a stable order.
type PodMetricsPoint struct {
	Containers []ContainerMetricsPoint
}

// ContainerMetricsPoint is the point of one named container.
type ContainerMetricsPoint struct {
	Name string
	MetricsPoint
}

// container returns the point of the named container.
func (p PodMetricsPoint) container(name string) (MetricsPoint, bool) {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return p.Containers[i].MetricsPoint, true
		}
	}
	return MetricsPoint{}, false
}

// MetricsPoint is one measurement of a node or container (metrics-server pkg/storage/types.go).
type MetricsPoint struct {
	// StartTime is when the container or node started; its cumulative CPU was zero then.
	StartTime time.Time
	// Timestamp is when the point was measured. If CPU and memory were measured at different
	// times it is the CPU's, so that the CPU rate is exact.
	Timestamp time.Time
	// CumulativeCPUUsed is the CPU used from StartTime to Timestamp, in nanocore-seconds.
	CumulativeCPUUsed uint64
	// MemoryUsage is the working set, in bytes.
	MemoryUsage uint64
}

// TimeInfo is when a usage was measured and over which window its rates are
// (metrics-server pkg/api/interfaces.go).
type TimeInfo struct {
	// Timestamp is the time of the latest point used; for a pod, the earliest such time of
	// its containers (what the HPA uses to ignore pods that just started).
	Timestamp time.Time
	// Window is the time between the two points the CPU rate comes from.
	Window time.Duration
}

// resourceUsage is the usage between two points: CPU as the rate of the cumulative counter,
// memory as the latest value (metrics-server pkg/storage/types.go).
func resourceUsage(last, prev MetricsPoint) (corev1.ResourceList, TimeInfo, error) {
	if last.StartTime.Before(prev.StartTime) {
		return corev1.ResourceList{}, TimeInfo{}, fmt.Errorf("unexpected decrease in startTime of node/container")
	}
	if last.CumulativeCPUUsed < prev.CumulativeCPUUsed {
		return corev1.ResourceList{}, TimeInfo{}, fmt.Errorf("unexpected decrease in cumulative CPU usage value")
	}
	window := last.Timestamp.Sub(prev.Timestamp)
	cpuUsage := float64(last.CumulativeCPUUsed-prev.CumulativeCPUUsed) / window.Seconds()
	return corev1.ResourceList{
			corev1.ResourceCPU:    uint64Quantity(uint64(cpuUsage), resource.DecimalSI, -9),
			corev1.ResourceMemory: uint64Quantity(last.MemoryUsage, resource.BinarySI, 0),
		}, TimeInfo{
			Timestamp: last.Timestamp,
			Window:    window,
		}, nil
}

// uint64Quantity converts a uint64 into a Quantity, whose constructors take int64 only (Parse
// would need a costly round trip through a string). Values above MaxInt64 lose one decimal
// digit of precision.
func uint64Quantity(val uint64, format resource.Format, scale resource.Scale) resource.Quantity {
	q := *resource.NewScaledQuantity(int64(val), scale)
	if val > math.MaxInt64 {
		klog.V(2).InfoS("Found unexpectedly large resource value, losing precision to fit in scaled resource.Quantity", "value", val)
		q = *resource.NewScaledQuantity(int64(val/10), resource.Scale(1)+scale)
	}
	q.Format = format
	return q
}
