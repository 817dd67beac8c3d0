package scraper

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/servers/metrics/storage"
)

// decodeBatch decodes b with a new decoder, as metrics-server's function of that name does.
func decodeBatch(b []byte, defaultTime time.Time, nodeName string) (*storage.MetricsBatch, error) {
	return newDecoder().decode(b, defaultTime, nodeName)
}

func ms(v int64) time.Time { return time.UnixMilli(v) }

func pods(m map[apitypes.NamespacedName][]storage.ContainerMetricsPoint) map[apitypes.NamespacedName]storage.PodMetricsPoint {
	out := map[apitypes.NamespacedName]storage.PodMetricsPoint{}
	for k, v := range m {
		out[k] = storage.PodMetricsPoint{Containers: v}
	}
	return out
}

var coredns = apitypes.NamespacedName{Name: "coredns-558bd4d5db-4dpjz", Namespace: "kube-system"}

const corednsLines = `
container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.710169 1633253812125
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.253376e+07 1633253812125
container_start_time_seconds{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.633252712e+9 1633253812125
`

// TestDecode has the cases of metrics-server's pkg/scraper/client/resource/decode_test.go, and
// a few about the text format itself.
func TestDecode(t *testing.T) {
	empty := &storage.MetricsBatch{Nodes: map[string]storage.MetricsPoint{}, Pods: map[apitypes.NamespacedName]storage.PodMetricsPoint{}}
	node1 := storage.MetricsPoint{Timestamp: ms(1633253809720), CumulativeCPUUsed: 357354910000, MemoryUsage: 1616273408}
	corednsPoint := storage.MetricsPoint{
		Timestamp: ms(1633253812125), CumulativeCPUUsed: 4710169000, MemoryUsage: 12533760,
		StartTime: time.Date(2021, 10, 3, 9, 18, 32, 0, time.UTC),
	}
	tests := []struct {
		name        string
		input       string
		defaultTime time.Time
		want        *storage.MetricsBatch
		wantError   bool
	}{{
		name: "normal",
		input: `
# HELP container_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.710169 1633253812125
# HELP container_memory_working_set_bytes [ALPHA] Current working set of the container in bytes
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.253376e+07 1633253812125
# TYPE container_start_time_seconds gauge
container_start_time_seconds{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.633252712e+9 1633253812125
# HELP node_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the node in core-seconds
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total 357.35491 1633253809720
# HELP node_memory_working_set_bytes [ALPHA] Current working set of the node in bytes
# TYPE node_memory_working_set_bytes gauge
node_memory_working_set_bytes 1.616273408e+09 1633253809720
# HELP pod_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the pod in core-seconds
# TYPE pod_cpu_usage_seconds_total counter
pod_cpu_usage_seconds_total{namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.67812 1633253803935
# HELP pod_memory_working_set_bytes [ALPHA] Current working set of the pod in bytes
# TYPE pod_memory_working_set_bytes gauge
pod_memory_working_set_bytes{namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.2627968e+07 1633253803935
# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise
# TYPE scrape_error gauge
scrape_error 0
`,
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{"node1": node1},
			Pods:  pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{coredns: {{Name: "coredns", MetricsPoint: corednsPoint}}}),
		},
	}, {
		name: "without timestamp uses the request time",
		input: `
container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.710169
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.253376e+07
container_start_time_seconds{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.633252712e+9
node_cpu_usage_seconds_total 357.35491
node_memory_working_set_bytes 1.616273408e+09
`,
		defaultTime: time.Date(2077, 7, 7, 7, 7, 7, 0, time.UTC),
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{"node1": {Timestamp: time.Date(2077, 7, 7, 7, 7, 7, 0, time.UTC), CumulativeCPUUsed: 357354910000, MemoryUsage: 1616273408}},
			Pods: pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{coredns: {{Name: "coredns", MetricsPoint: storage.MetricsPoint{
				Timestamp: time.Date(2077, 7, 7, 7, 7, 7, 0, time.UTC), CumulativeCPUUsed: 4710169000, MemoryUsage: 12533760, StartTime: corednsPoint.StartTime,
			}}}}),
		},
	}, {
		name:  "containers only",
		input: corednsLines,
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{},
			Pods:  pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{coredns: {{Name: "coredns", MetricsPoint: corednsPoint}}}),
		},
	}, {
		name:  "no container CPU drops the pod",
		input: `container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.253376e+07 1633253812125`,
		want:  empty,
	}, {
		name: "zero container CPU drops the pod",
		input: `container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 0 1633253812125
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1.253376e+07 1633253812125`,
		want: empty,
	}, {
		name:  "no container memory drops the pod",
		input: `container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.710169 1633253812125`,
		want:  empty,
	}, {
		name: "zero container memory drops the pod",
		input: `container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 4.710169 1633253812125
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 0 1633253812125`,
		want: empty,
	}, {
		name: "one incomplete container drops the whole pod",
		input: corednsLines + `
container_cpu_usage_seconds_total{container="sidecar",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 0 1633253812125
container_memory_working_set_bytes{container="sidecar",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} 1 1633253812125`,
		want: empty,
	}, {
		name: "node only",
		input: `node_cpu_usage_seconds_total 357.35491 1633253809720
node_memory_working_set_bytes 1.616273408e+09 1633253809720`,
		want: &storage.MetricsBatch{Nodes: map[string]storage.MetricsPoint{"node1": node1}, Pods: map[apitypes.NamespacedName]storage.PodMetricsPoint{}},
	}, {
		name:  "no node CPU drops the node",
		input: `node_memory_working_set_bytes 1.616273408e+09 1633253809720`,
		want:  empty,
	}, {
		name: "zero node CPU drops the node",
		input: `node_cpu_usage_seconds_total 0 1633253809720
node_memory_working_set_bytes 1.616273408e+09 1633253809720`,
		want: empty,
	}, {
		name:  "no node memory drops the node",
		input: `node_cpu_usage_seconds_total 357.35491 1633253809720`,
		want:  empty,
	}, {
		name: "zero node memory drops the node",
		input: `node_cpu_usage_seconds_total 357.35491 1633253809720
node_memory_working_set_bytes 0 1633253809720`,
		want: empty,
	}, {
		name: "negative or NaN values read as zero, which drops the node",
		input: `node_cpu_usage_seconds_total -3 1633253809720
node_memory_working_set_bytes NaN 1633253809720`,
		want: empty,
	}, {
		name: "negative timestamp fails the scrape",
		input: `# HELP container_start_time_seconds [ALPHA] Start time of the container since unix epoch in seconds
# TYPE container_start_time_seconds gauge
container_start_time_seconds{container="metrics-server",namespace="kubernetes-dashboard",pod="kubernetes-dashboard-metrics-server-77db45cdf4-fppzx"} -6.7953645788713455e+09 -62135596800000
container_start_time_seconds{container="metrics-server",namespace="kubernetes-dashboard",pod="kubernetes-dashboard-metrics-server-77db45cdf4-tpx4v"} 1.6509742024191372e+09 1650974202419`,
		wantError: true,
	}, {
		name: "blanks, CRLF, label order, escapes and a trailing comma",
		input: "node_cpu_usage_seconds_total\t357.35491  1633253809720\r\n" +
			"  node_memory_working_set_bytes 1.616273408e+09 1633253809720\r\n" +
			`container_cpu_usage_seconds_total{ pod = "p\"1" , namespace="n\\s",container="c\n",} 2 1633253812125` + "\n" +
			`container_memory_working_set_bytes{namespace="n\\s",container="c\n",pod="p\"1"} 3 1633253812125` + "\n",
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{"node1": node1},
			Pods: pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{{Namespace: `n\s`, Name: `p"1`}: {{Name: "c\n", MetricsPoint: storage.MetricsPoint{
				Timestamp: ms(1633253812125), CumulativeCPUUsed: 2e9, MemoryUsage: 3,
			}}}}),
		},
	}, {
		name:      "unterminated label value",
		input:     `container_cpu_usage_seconds_total{pod="p 1 2`,
		wantError: true,
	}, {
		name:      "missing value",
		input:     `node_cpu_usage_seconds_total`,
		wantError: true,
	}, {
		name:      "bad value",
		input:     `node_cpu_usage_seconds_total one`,
		wantError: true,
	}, {
		name:      "bad metric name",
		input:     `node-cpu 1`,
		wantError: true,
	}, {
		name:  "empty",
		input: "",
		want:  empty,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeBatch([]byte(tc.input), tc.defaultTime, "node1")
			if (err != nil) != tc.wantError {
				t.Fatalf("error = %v, want error: %v", err, tc.wantError)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("batch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeRecorded decodes recorded kubelet output and checks every value against
// Prometheus' own parser (github.com/prometheus/common/expfmt).
func TestDecodeRecorded(t *testing.T) {
	for _, tc := range []struct {
		file          string
		pods, withCPU int
	}{
		{file: "kind-70pods.txt", pods: 70},
		{file: "kubelet-v1.37.txt", pods: 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile("../testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeBatch(body, time.Now(), "node1")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Nodes) != 1 || len(got.Pods) != tc.pods {
				t.Fatalf("got %d nodes and %d pods, want 1 and %d", len(got.Nodes), len(got.Pods), tc.pods)
			}

			parser := expfmt.NewTextParser(model.UTF8Validation)
			families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("expfmt: %v", err)
			}
			value := func(family string, labels map[string]string) (float64, int64) {
				for _, m := range families[family].GetMetric() {
					match := true
					for _, l := range m.GetLabel() {
						if labels[l.GetName()] != l.GetValue() {
							match = false
						}
					}
					if match {
						v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
						return v, m.GetTimestampMs()
					}
				}
				t.Fatalf("%s%v not found by expfmt", family, labels)
				return 0, 0
			}
			n := got.Nodes["node1"]
			if v, ts := value("node_cpu_usage_seconds_total", nil); n.CumulativeCPUUsed != uint64(v*1e9) || !n.Timestamp.Equal(ms(ts)) {
				t.Errorf("node CPU %d at %v, expfmt %v at %d", n.CumulativeCPUUsed, n.Timestamp, v, ts)
			}
			if v, _ := value("node_memory_working_set_bytes", nil); n.MemoryUsage != uint64(v) {
				t.Errorf("node memory %d, expfmt %v", n.MemoryUsage, v)
			}
			containers := 0
			for ref, p := range got.Pods {
				for _, c := range p.Containers {
					containers++
					labels := map[string]string{"namespace": ref.Namespace, "pod": ref.Name, "container": c.Name}
					if v, ts := value("container_cpu_usage_seconds_total", labels); c.CumulativeCPUUsed != uint64(v*1e9) || !c.Timestamp.Equal(ms(ts)) {
						t.Errorf("%v CPU %d at %v, expfmt %v at %d", labels, c.CumulativeCPUUsed, c.Timestamp, v, ts)
					}
					if v, _ := value("container_memory_working_set_bytes", labels); c.MemoryUsage != uint64(v) {
						t.Errorf("%v memory %d, expfmt %v", labels, c.MemoryUsage, v)
					}
					if f := families["container_start_time_seconds"]; f != nil {
						if v, _ := value("container_start_time_seconds", labels); math.Abs(float64(c.StartTime.UnixNano())/1e9-v) > 1e-6 {
							t.Errorf("%v start %v, expfmt %v", labels, c.StartTime, v)
						}
					}
				}
			}
			if want := len(families["container_cpu_usage_seconds_total"].GetMetric()); containers != want {
				t.Errorf("decoded %d containers, expfmt sees %d", containers, want)
			}
		})
	}
}

// TestDecodeReuse decodes with one decoder twice: nothing of the first body may leak into, or be
// overwritten by, the second.
func TestDecodeReuse(t *testing.T) {
	d := newDecoder()
	first, err := d.decode([]byte(corednsLines), time.Now(), "node1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.decode([]byte(`container_cpu_usage_seconds_total{container="x",namespace="y",pod="z"} 1 1
container_memory_working_set_bytes{container="x",namespace="y",pod="z"} 1 1`), time.Now(), "node1")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := first.Pods[coredns]; !ok || p.Containers[0].Name != "coredns" || len(first.Pods) != 1 {
		t.Errorf("first batch changed: %+v", first.Pods)
	}
	if _, ok := second.Pods[apitypes.NamespacedName{Namespace: "y", Name: "z"}]; !ok || len(second.Pods) != 1 {
		t.Errorf("second batch: %+v", second.Pods)
	}
}

// FuzzDecode follows metrics-server's Fuzz_decodeBatchPrometheusFormat: well-formed input with
// a non-negative timestamp always decodes.
func FuzzDecode(f *testing.F) {
	for _, v := range []float64{0, -10000, 10000, 0.5, -0.000000001, 1e100, -1e100} {
		for _, ts := range []int64{0, -10000, 10000, 5, -1} {
			f.Add(v, v, v, ts)
		}
	}
	f.Fuzz(func(t *testing.T, cpu, mem, start float64, ts int64) {
		input := fmt.Sprintf(`container_cpu_usage_seconds_total{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} %f %d
container_memory_working_set_bytes{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} %e %d
container_start_time_seconds{container="coredns",namespace="kube-system",pod="coredns-558bd4d5db-4dpjz"} %E %d`, cpu, ts, mem, ts, start, ts)
		if _, err := decodeBatch([]byte(input), time.Unix(0, 0), "node1"); err != nil && ts >= 0 {
			t.Errorf("unexpected error: %v\n%s", err, input)
		}
	})
}

// FuzzDecodeRandom: arbitrary input never panics.
func FuzzDecodeRandom(f *testing.F) {
	for _, s := range []string{"", "abc", "_ab{", `x{a="\`, "!@~#$%^&*()[]{}\"',.?/\\`", corednsLines} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		_, _ = decodeBatch([]byte(input), time.Unix(0, 0), "node1")
	})
}
