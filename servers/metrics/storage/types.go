// Package storage is the metrics server's memory: for every node and every container it keeps
// the newest point the scraper brought and, when there is one to pair it with, the point
// before. A pair is a usage: CPU as the rate of the cumulative counter between the two points,
// memory as the newest working set. The scraper writes a whole batch per resolution tick; the
// metrics.k8s.io API (package api) reads usages. Nothing reaches etcd. It behaves as
// metrics-server's pkg/storage does.
package storage

import (
	"errors"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apitypes "k8s.io/apimachinery/pkg/types"
)

// MetricsBatch is one scrape of the cluster: a point per node (by node name) and the points of
// each pod's containers. Storage keeps the batch it is given; nobody may change it afterwards.
type MetricsBatch struct {
	Nodes map[string]MetricsPoint
	Pods  map[apitypes.NamespacedName]PodMetricsPoint
}

// PodMetricsPoint is the scrape of one pod: its containers, in the kubelet's order (a slice
// rather than a map: pods have one to three containers, and PodMetrics lists them in order).
type PodMetricsPoint struct {
	Containers []ContainerMetricsPoint
}

// ContainerMetricsPoint is the point of the named container.
type ContainerMetricsPoint struct {
	Name string
	MetricsPoint
}

// MetricsPoint is one measurement of a node or a container.
type MetricsPoint struct {
	// StartTime is when the container started (zero for a node): its CPU counter was 0 then.
	StartTime time.Time
	// Timestamp is when the CPU counter was read (memory may be read a moment apart).
	Timestamp time.Time
	// CumulativeCPUUsed is the CPU time used since StartTime, in nanoseconds.
	CumulativeCPUUsed uint64
	// MemoryUsage is the working set in bytes.
	MemoryUsage uint64
}

// usageBetween turns two points of one node or container, newer first, into CPU and memory, the time
// of the newer point and the window between them. It fails when the older point cannot
// precede the newer: a later start or a larger CPU counter means something was reset.
func usageBetween(newer, older MetricsPoint) (corev1.ResourceList, time.Time, time.Duration, error) {
	if newer.StartTime.Before(older.StartTime) {
		return nil, time.Time{}, 0, errors.New("start time went backwards")
	}
	if newer.CumulativeCPUUsed < older.CumulativeCPUUsed {
		return nil, time.Time{}, 0, errors.New("cumulative CPU went backwards")
	}
	window := newer.Timestamp.Sub(older.Timestamp)
	nanocores := float64(newer.CumulativeCPUUsed-older.CumulativeCPUUsed) / window.Seconds()
	return corev1.ResourceList{
		corev1.ResourceCPU:    quantity(uint64(nanocores), -9, resource.DecimalSI),
		corev1.ResourceMemory: quantity(newer.MemoryUsage, 0, resource.BinarySI),
	}, newer.Timestamp, window, nil
}

// quantity is v×10^scale. Quantities hold int64s: a larger v gives up its last digit.
func quantity(v uint64, scale resource.Scale, format resource.Format) resource.Quantity {
	for v > math.MaxInt64 {
		v /= 10
		scale++
	}
	q := resource.NewScaledQuantity(int64(v), scale)
	q.Format = format
	return *q
}
