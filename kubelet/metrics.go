package kubelet

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// ContentType is what the kubelet's /metrics/resource answers with (client_golang's text
// format, with the default name escaping).
const ContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

func (s *Simulator) serveMetrics(w http.ResponseWriter, n *node) {
	w.Header().Set("Content-Type", ContentType)
	_, _ = w.Write(s.resourceMetrics(n, time.Now()))
}

// Metric families of the kubelet's /metrics/resource (kubelet
// pkg/kubelet/metrics/collectors/resource_metrics.go), in the order the Prometheus registry
// writes them: by name.
var (
	containerCPU       = family{"container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", "counter"}
	containerMemory    = family{"container_memory_working_set_bytes", "Current working set of the container in bytes", "gauge"}
	containerStartTime = family{"container_start_time_seconds", "Start time of the container since unix epoch in seconds", "gauge"}
	nodeCPU            = family{"node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", "counter"}
	nodeMemory         = family{"node_memory_working_set_bytes", "Current working set of the node in bytes", "gauge"}
	podCPU             = family{"pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", "counter"}
	podMemory          = family{"pod_memory_working_set_bytes", "Current working set of the pod in bytes", "gauge"}
	scrapeError        = family{"resource_scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge"}
)

type family struct{ name, help, kind string }

// sample is one line: labels in name order (container, namespace, pod), a value, and a
// timestamp in milliseconds (0: none).
type sample struct {
	labels []string // name, value, name, value...
	value  float64
	ts     int64
}

// nodeUsage is what a node and its running pods use at a moment: what /metrics/resource and
// /stats/summary report, each in its own format.
type nodeUsage struct {
	at       time.Time
	cpuTotal float64 // core-seconds since the node booted
	cpuRate  float64 // cores; 0 for the host, whose rate is only known between two reads
	memory   float64 // bytes
	pods     []podUsage
}

type podUsage struct {
	pod                       *corev1.Pod
	containers                []containerUsage
	cpuTotal, cpuRate, memory float64
}

type containerUsage struct {
	name                      string
	started                   time.Time
	cpuTotal, cpuRate, memory float64
}

// usageOf is node n's usage at now: its running pods', simulated, and its own, from /proc for
// the host.
func (s *Simulator) usageOf(n *node, now time.Time) (nodeUsage, error) {
	u := nodeUsage{at: now}
	for _, pod := range s.runningPods(n) {
		containers := meteredContainers(pod)
		pu := podUsage{pod: pod}
		for _, c := range containers {
			started := startedAt(pod, c.Name)
			rate, mem := simulatedUsage(pod, c, len(containers), now)
			total := s.usage.cpu(string(pod.UID)+"/"+c.Name, rate, started, now)
			pu.containers = append(pu.containers, containerUsage{c.Name, started, total, rate, mem})
			pu.cpuTotal, pu.cpuRate, pu.memory = pu.cpuTotal+total, pu.cpuRate+rate, pu.memory+mem
		}
		u.pods = append(u.pods, pu)
		u.cpuRate, u.memory = u.cpuRate+pu.cpuRate, u.memory+pu.memory
	}
	if n.host {
		cpu, errCPU := s.hostsys.cpuSeconds()
		mem, errMem := s.hostsys.workingSet()
		if errCPU != nil || errMem != nil {
			return u, fmt.Errorf("reading host usage: cpu: %v, memory: %v", errCPU, errMem)
		}
		u.cpuTotal, u.cpuRate, u.memory = cpu, 0, float64(mem)
		return u, nil
	}
	cpu, mem := nodeOverhead(n.name, now)
	u.cpuRate, u.memory = u.cpuRate+cpu, u.memory+mem
	u.cpuTotal = s.usage.cpu("node/"+n.name, u.cpuRate, now.Add(-time.Hour), now)
	return u, nil
}

// resourceMetrics is node n's /metrics/resource at now.
func (s *Simulator) resourceMetrics(n *node, now time.Time) []byte {
	u, err := s.usageOf(n, now)
	if err != nil {
		// As the kubelet does when it cannot read stats: the error gauge, nothing else.
		klog.V(2).InfoS("kubelet endpoint: no usage", "node", n.name, "err", err)
		return render([]family{scrapeError}, [][]sample{{{value: 1}}})
	}
	ts := now.UnixMilli()
	var ctrCPU, ctrMem, ctrStart, pCPU, pMem []sample
	for _, pu := range u.pods {
		pod := pu.pod
		for _, c := range pu.containers {
			labels := []string{"container", c.name, "namespace", pod.Namespace, "pod", pod.Name}
			ctrCPU = append(ctrCPU, sample{labels, c.cpuTotal, ts})
			ctrMem = append(ctrMem, sample{labels, c.memory, ts})
			ctrStart = append(ctrStart, sample{labels, float64(c.started.UnixNano()) / 1e9, 0})
		}
		labels := []string{"namespace", pod.Namespace, "pod", pod.Name}
		pCPU = append(pCPU, sample{labels, pu.cpuTotal, ts})
		pMem = append(pMem, sample{labels, pu.memory, ts})
	}
	nCPU, nMem := []sample{{nil, u.cpuTotal, ts}}, []sample{{nil, u.memory, ts}}

	// The registry sorts each family's samples by label values.
	for _, ss := range [][]sample{ctrCPU, ctrMem, ctrStart, pCPU, pMem} {
		slices.SortFunc(ss, func(a, b sample) int {
			for i := 1; i < len(a.labels); i += 2 {
				if c := cmp.Compare(a.labels[i], b.labels[i]); c != 0 {
					return c
				}
			}
			return 0
		})
	}
	return render(
		[]family{containerCPU, containerMemory, containerStartTime, nodeCPU, nodeMemory, podCPU, podMemory, scrapeError},
		[][]sample{ctrCPU, ctrMem, ctrStart, nCPU, nMem, pCPU, pMem, {{value: 0}}})
}

// startedAt is when the pod's container started, as its status says.
func startedAt(pod *corev1.Pod, name string) time.Time {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for _, cs := range list {
			if cs.Name == name && cs.State.Running != nil {
				return cs.State.Running.StartedAt.Time
			}
		}
	}
	if pod.Status.StartTime != nil {
		return pod.Status.StartTime.Time
	}
	return pod.CreationTimestamp.Time
}

// render writes families in the Prometheus text format, byte for byte as client_golang's
// expfmt writes them; a family without samples is left out, as the registry leaves it out.
func render(families []family, samples [][]sample) []byte {
	var b bytes.Buffer
	for i, f := range families {
		if len(samples[i]) == 0 {
			continue
		}
		b.WriteString("# HELP " + f.name + " [STABLE] " + escapeHelp(f.help) + "\n")
		b.WriteString("# TYPE " + f.name + " " + f.kind + "\n")
		for _, s := range samples[i] {
			b.WriteString(f.name)
			if len(s.labels) > 0 {
				b.WriteByte('{')
				for j := 0; j < len(s.labels); j += 2 {
					if j > 0 {
						b.WriteByte(',')
					}
					b.WriteString(s.labels[j] + `="` + escapeLabel(s.labels[j+1]) + `"`)
				}
				b.WriteByte('}')
			}
			b.WriteByte(' ')
			b.WriteString(formatFloat(s.value))
			if s.ts != 0 {
				b.WriteByte(' ')
				b.WriteString(strconv.FormatInt(s.ts, 10))
			}
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// formatFloat is expfmt's writeFloat.
func formatFloat(f float64) string {
	switch {
	case f == 1:
		return "1"
	case f == 0:
		return "0"
	case f == -1:
		return "-1"
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, +1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }
