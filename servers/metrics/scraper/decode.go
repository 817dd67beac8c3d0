package scraper

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unsafe"

	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/servers/metrics/storage"
)

// The series of a kubelet's /metrics/resource that make the resource metrics
// (kubernetes pkg/kubelet/metrics/collectors/resource_metrics.go).
var (
	nodeCPUUsageMetricName       = []byte("node_cpu_usage_seconds_total")
	nodeMemUsageMetricName       = []byte("node_memory_working_set_bytes")
	containerCPUUsageMetricName  = []byte("container_cpu_usage_seconds_total")
	containerMemUsageMetricName  = []byte("container_memory_working_set_bytes")
	containerStartTimeMetricName = []byte("container_start_time_seconds")
)

// decoder turns the Prometheus text exposition of one kubelet into a batch, following
// metrics-server's pkg/scraper/client/resource/decode.go.
//
// metrics-server parses with github.com/prometheus/prometheus/model/textparse; this is a parser
// of the same text format for the lines the kubelet writes (name, labels, value, optional
// timestamp; comments skipped), which allocates only for what it keeps: one string per
// container (holding its namespace, pod and container names) and the batch itself. A decoder
// is reused across scrapes; it is not safe for concurrent use.
type decoder struct {
	// index finds a container's entry by its key, without allocating on a hit.
	index      map[string]int
	containers []decodedContainer
	key        []byte
}

// decodedContainer is one container's point while its lines are read. key is
// namespace NUL pod NUL container; the three names are substrings of it.
type decodedContainer struct {
	key, namespace, pod, name string
	point                     storage.MetricsPoint
}

func newDecoder() *decoder { return &decoder{index: map[string]int{}} }

// decode reads b, the body of nodeName's /metrics/resource. Lines without a timestamp take
// defaultTime, the time of the request. A node point or a pod is dropped, as metrics-server
// drops them, when a CPU or memory value is missing or zero.
func (d *decoder) decode(b []byte, defaultTime time.Time, nodeName string) (*storage.MetricsBatch, error) {
	defer d.reset()
	defaultTimestamp := defaultTime.UnixMilli()
	var node storage.MetricsPoint
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b, _ = bytes.Cut(b, newline)
		line = trimBlank(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, fmt.Errorf("failed parsing metrics: line %d: %v", lineNo, err)
		}
		ts := defaultTimestamp
		if s.hasTimestamp {
			ts = s.timestamp
		}
		switch {
		case bytes.Equal(s.name, nodeCPUUsageMetricName):
			node.CumulativeCPUUsed = nanos(s.value)
			node.Timestamp = time.UnixMilli(ts)
		case bytes.Equal(s.name, nodeMemUsageMetricName):
			node.MemoryUsage = uint64OrZero(s.value)
			node.Timestamp = time.UnixMilli(ts)
		case bytes.Equal(s.name, containerCPUUsageMetricName):
			if p := d.container(&s); p != nil {
				p.CumulativeCPUUsed = nanos(s.value)
				p.Timestamp = time.UnixMilli(ts)
			}
		case bytes.Equal(s.name, containerMemUsageMetricName):
			if p := d.container(&s); p != nil {
				p.MemoryUsage = uint64OrZero(s.value)
				p.Timestamp = time.UnixMilli(ts)
			}
		case bytes.Equal(s.name, containerStartTimeMetricName):
			if p := d.container(&s); p != nil {
				p.StartTime = unixSeconds(s.value)
			}
		}
	}

	res := &storage.MetricsBatch{Nodes: make(map[string]storage.MetricsPoint, 1)}
	if node.Timestamp.IsZero() || node.CumulativeCPUUsed == 0 || node.MemoryUsage == 0 {
		klog.V(1).InfoS("Failed getting complete node metric", "node", nodeName, "metric", node)
	} else {
		res.Nodes[nodeName] = node
	}
	res.Pods = d.pods()
	return res, nil
}

// container returns the point of the container s is about, creating it on first sight; nil if
// s lacks one of the container, pod and namespace labels.
func (d *decoder) container(s *sample) *storage.MetricsPoint {
	if !s.namespace.set || !s.pod.set || !s.container.set {
		klog.V(1).InfoS("Skipping container series without namespace, pod and container labels", "series", string(s.name))
		return nil
	}
	d.key = s.namespace.appendTo(d.key[:0])
	nsEnd := len(d.key)
	d.key = append(d.key, 0)
	d.key = s.pod.appendTo(d.key)
	podEnd := len(d.key)
	d.key = append(d.key, 0)
	d.key = s.container.appendTo(d.key)
	if i, ok := d.index[string(d.key)]; ok {
		return &d.containers[i].point
	}
	key := string(d.key)
	d.index[key] = len(d.containers)
	d.containers = append(d.containers, decodedContainer{key: key, namespace: key[:nsEnd], pod: key[nsEnd+1 : podEnd], name: key[podEnd+1:]})
	return &d.containers[len(d.containers)-1].point
}

// pods groups the containers by pod, keeping the order in which the kubelet listed each pod's
// containers, and drops every pod with an incomplete container.
func (d *decoder) pods() map[apitypes.NamespacedName]storage.PodMetricsPoint {
	slices.SortStableFunc(d.containers, func(a, b decodedContainer) int {
		return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.pod, b.pod))
	})
	npods := 0
	for i := range d.containers {
		if i == 0 || !samePod(&d.containers[i-1], &d.containers[i]) {
			npods++
		}
	}
	pods := make(map[apitypes.NamespacedName]storage.PodMetricsPoint, npods)
	// One array holds the containers of every pod of the node.
	all := make([]storage.ContainerMetricsPoint, 0, len(d.containers))
	for start := 0; start < len(d.containers); {
		end := start + 1
		for end < len(d.containers) && samePod(&d.containers[start], &d.containers[end]) {
			end++
		}
		first := len(all)
		complete := true
		for _, c := range d.containers[start:end] {
			if c.point == (storage.MetricsPoint{}) {
				continue
			}
			if c.point.CumulativeCPUUsed == 0 || c.point.MemoryUsage == 0 {
				klog.V(1).InfoS("Failed getting complete container metric", "containerName", c.name, "containerMetric", c.point)
				complete = false
				break
			}
			all = append(all, storage.ContainerMetricsPoint{Name: c.name, MetricsPoint: c.point})
		}
		ref := apitypes.NamespacedName{Namespace: d.containers[start].namespace, Name: d.containers[start].pod}
		switch {
		case !complete:
			all = all[:first]
			klog.V(1).InfoS("Failed getting complete Pod metric", "pod", klog.KRef(ref.Namespace, ref.Name))
		case len(all) > first:
			pods[ref] = storage.PodMetricsPoint{Containers: all[first:len(all):len(all)]}
		}
		start = end
	}
	return pods
}

func samePod(a, b *decodedContainer) bool { return a.pod == b.pod && a.namespace == b.namespace }

func (d *decoder) reset() {
	clear(d.index)
	clear(d.containers) // drop the strings, so that the pool does not keep them alive
	d.containers = d.containers[:0]
}

// nanos converts cumulative CPU seconds to nanoseconds; what is not a non-negative number
// reads as 0, which drops the point.
func nanos(seconds float64) uint64 { return uint64OrZero(seconds * 1e9) }

func uint64OrZero(v float64) uint64 {
	if !(v >= 0) || v >= math.MaxUint64 { // NaN, negative, +Inf, or too large
		return 0
	}
	return uint64(v)
}

func unixSeconds(v float64) time.Time {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxInt64/1e9 {
		return time.Time{}
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9))
}

var newline = []byte{'\n'}

// sample is one parsed line: the metric name, the labels the decoder needs, the value and the
// timestamp (milliseconds since the epoch). Its slices point into the body.
type sample struct {
	name                      []byte
	namespace, pod, container labelValue
	value                     float64
	timestamp                 int64
	hasTimestamp              bool
}

// labelValue is a label's value as written, quotes removed, escapes not yet undone.
type labelValue struct {
	raw          []byte
	escaped, set bool
}

// appendTo appends the value with its escapes (\\, \" and \n) undone.
func (v labelValue) appendTo(dst []byte) []byte {
	if !v.escaped {
		return append(dst, v.raw...)
	}
	for i := 0; i < len(v.raw); i++ {
		c := v.raw[i]
		if c == '\\' && i+1 < len(v.raw) {
			i++
			c = v.raw[i]
			if c == 'n' {
				c = '\n'
			}
		}
		dst = append(dst, c)
	}
	return dst
}

var (
	errNoName      = errors.New("expected a metric name")
	errBadLabels   = errors.New("malformed label set")
	errNoValue     = errors.New("expected a value")
	errBadTrailing = errors.New("expected a timestamp or the end of the line")
)

// parseSample parses `name{label="value",...} value [timestamp]` (the Prometheus text format,
// version 0.0.4).
func parseSample(line []byte) (sample, error) {
	var s sample
	i := 0
	for i < len(line) && isNameChar(line[i], i == 0) {
		i++
	}
	if i == 0 {
		return s, errNoName
	}
	s.name = line[:i]
	rest := trimBlankLeft(line[i:])
	if len(rest) > 0 && rest[0] == '{' {
		var err error
		if rest, err = s.parseLabels(rest[1:]); err != nil {
			return s, err
		}
	} else if len(rest) > 0 && len(rest) == len(line[i:]) {
		// Neither a label set nor a blank after the name.
		return s, errNoName
	}
	rest = trimBlankLeft(rest)
	valueEnd := bytes.IndexAny(rest, " \t")
	if valueEnd < 0 {
		valueEnd = len(rest)
	}
	if valueEnd == 0 {
		return s, errNoValue
	}
	v, err := strconv.ParseFloat(unsafeString(rest[:valueEnd]), 64)
	if err != nil {
		return s, fmt.Errorf("invalid value %q", rest[:valueEnd])
	}
	s.value = v
	rest = trimBlank(rest[valueEnd:])
	if len(rest) == 0 {
		return s, nil
	}
	// A timestamp is an integer number of milliseconds; textparse, which metrics-server uses,
	// takes no sign, so a negative timestamp fails the scrape there and here.
	for _, c := range rest {
		if c < '0' || c > '9' {
			return s, errBadTrailing
		}
	}
	ts, err := strconv.ParseInt(unsafeString(rest), 10, 64)
	if err != nil {
		return s, fmt.Errorf("invalid timestamp %q", rest)
	}
	s.timestamp, s.hasTimestamp = ts, true
	return s, nil
}

// parseLabels parses the label set after its '{' and returns what follows its '}'.
func (s *sample) parseLabels(b []byte) ([]byte, error) {
	for {
		b = trimBlankLeft(b)
		if len(b) == 0 {
			return nil, errBadLabels
		}
		if b[0] == '}' {
			return b[1:], nil
		}
		i := 0
		for i < len(b) && isNameChar(b[i], i == 0) && b[i] != ':' {
			i++
		}
		if i == 0 {
			return nil, errBadLabels
		}
		name := b[:i]
		b = trimBlankLeft(b[i:])
		if len(b) == 0 || b[0] != '=' {
			return nil, errBadLabels
		}
		b = trimBlankLeft(b[1:])
		if len(b) == 0 || b[0] != '"' {
			return nil, errBadLabels
		}
		b = b[1:]
		v := labelValue{set: true}
		end := -1
		for j := 0; j < len(b); j++ {
			if b[j] == '\\' {
				v.escaped = true
				j++
				continue
			}
			if b[j] == '"' {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, errBadLabels
		}
		v.raw = b[:end]
		switch string(name) {
		case "namespace":
			s.namespace = v
		case "pod":
			s.pod = v
		case "container":
			s.container = v
		}
		b = trimBlankLeft(b[end+1:])
		if len(b) > 0 && b[0] == ',' {
			b = b[1:]
		} else if len(b) == 0 || b[0] != '}' {
			return nil, errBadLabels
		}
	}
}

func isNameChar(c byte, first bool) bool {
	return c == '_' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && '0' <= c && c <= '9')
}

func trimBlankLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimBlank(b []byte) []byte {
	b = trimBlankLeft(b)
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// unsafeString views b as a string for strconv, which would otherwise copy it. The string
// must not outlive the call: errors quote b themselves rather than wrap strconv's.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
