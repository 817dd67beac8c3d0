package kubelet

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// Annotations that set a pod's simulated usage: the pod's total, shared evenly by its
// containers. Without them a container uses a little, the same little every time it runs
// (derived from its pod's UID and its name), or a share of what it requests.
const (
	CPUUsageAnnotation    = "apichain.io/cpu-usage"    // a quantity of cores: "250m", "1.5"
	MemoryUsageAnnotation = "apichain.io/memory-usage" // a quantity of bytes: "64Mi"
)

// Usage never drops below these: metrics consumers drop points whose CPU or memory is zero.
const (
	minCPU    = 0.001   // cores
	minMemory = 1 << 20 // bytes
)

// usageModel integrates CPU rates into the cumulative counters the kubelet reports, so that
// counters only grow and the rate between two scrapes is the simulated usage.
type usageModel struct {
	mu       sync.Mutex
	counters map[string]*counter
}

type counter struct {
	total float64 // core-seconds
	last  time.Time
}

func newUsageModel() *usageModel { return &usageModel{counters: map[string]*counter{}} }

// cpu advances counter key at rate (cores) to now and returns its total. A new counter starts
// as if it had run at rate since since (at least a second, so it is never zero).
func (m *usageModel) cpu(key string, rate float64, since, now time.Time) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counters[key]
	if c == nil {
		c = &counter{total: rate * math.Max(now.Sub(since).Seconds(), 1), last: now}
		m.counters[key] = c
		return c.total
	}
	if now.After(c.last) {
		c.total += rate * now.Sub(c.last).Seconds()
		c.last = now
	}
	return c.total
}

// forget drops a deleted pod's counters.
func (m *usageModel) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prefix := string(uid) + "/"
	for k := range m.counters {
		if strings.HasPrefix(k, prefix) {
			delete(m.counters, k)
		}
	}
}

// simulatedUsage is what container c of pod uses at now: CPU in cores, memory in bytes, each
// with a small jitter around its level. share is how many containers split the pod's
// annotated usage.
func simulatedUsage(pod *corev1.Pod, c *corev1.Container, share int, now time.Time) (cpu, memory float64) {
	seed := unit(string(pod.UID) + "/" + c.Name)
	cpu = 0.002 + 0.028*seed // 2m to 30m
	if req, ok := c.Resources.Requests[corev1.ResourceCPU]; ok && !req.IsZero() {
		cpu = req.AsApproximateFloat64() * (0.2 + 0.3*seed)
	}
	if q, ok := annotated(pod, CPUUsageAnnotation); ok {
		cpu = q / float64(share)
	}
	memory = float64(8<<20) + float64(56<<20)*seed // 8Mi to 64Mi
	if req, ok := c.Resources.Requests[corev1.ResourceMemory]; ok && !req.IsZero() {
		memory = req.AsApproximateFloat64() * (0.3 + 0.4*seed)
	}
	if q, ok := annotated(pod, MemoryUsageAnnotation); ok {
		memory = q / float64(share)
	}
	cpu *= 1 + 0.05*wave(now, time.Minute, seed)
	memory *= 1 + 0.01*wave(now, 5*time.Minute, seed)
	return math.Max(cpu, minCPU), math.Max(math.Round(memory), minMemory)
}

// nodeOverhead is what a simulated node's system (kubelet, runtime, OS) uses besides its pods.
func nodeOverhead(name string, now time.Time) (cpu, memory float64) {
	seed := unit("node/" + name)
	cpu = (0.05 + 0.1*seed) * (1 + 0.05*wave(now, time.Minute, seed))
	memory = (float64(300<<20) + float64(200<<20)*seed) * (1 + 0.01*wave(now, 5*time.Minute, seed))
	return cpu, math.Round(memory)
}

func annotated(pod *corev1.Pod, key string) (float64, bool) {
	v, ok := pod.Annotations[key]
	if !ok {
		return 0, false
	}
	q, err := resource.ParseQuantity(v)
	if err != nil || q.Sign() < 0 {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// unit maps s to [0, 1), the same for the same s.
func unit(s string) float64 {
	sum := sha256.Sum256([]byte(s))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// wave is a slow oscillation in [-1, 1] with the given period, shifted by phase (in periods).
func wave(now time.Time, period time.Duration, phase float64) float64 {
	t := float64(now.UnixNano()) / float64(period)
	return math.Sin(2 * math.Pi * (t + phase))
}

// meteredContainers are the containers of a pod that run alongside each other, and so have
// usage: the regular containers and the sidecars (restartable init containers).
func meteredContainers(pod *corev1.Pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, c)
		}
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}
