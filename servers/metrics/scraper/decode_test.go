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

// decodeBatch decodes b with a decoder of its own.
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

// noTime leaves the timestamp out of a line.
const noTime = math.MinInt64

// line is one sample in the kubelet's text format.
func line(metric, namespace, pod, container string, value string, ts int64) string {
	var labels string
	if pod != "" {
		labels = fmt.Sprintf(`{container=%q,namespace=%q,pod=%q}`, container, namespace, pod)
	}
	if ts == noTime {
		return fmt.Sprintf("%s%s %s\n", metric, labels, value)
	}
	return fmt.Sprintf("%s%s %s %d\n", metric, labels, value, ts)
}

// The fixture: node n1 and the container nginx of pod shop/web-5f7c, as a kubelet reports them.
const (
	nodeAt, webAt = 1767225600250, 1767225601500 // when the kubelet read them, in ms
	webStarted    = 1767225000                   // s
)

var web = apitypes.NamespacedName{Namespace: "shop", Name: "web-5f7c"}

func webLines(cpu, mem string, ts int64) string {
	return line("container_cpu_usage_seconds_total", web.Namespace, web.Name, "nginx", cpu, ts) +
		line("container_memory_working_set_bytes", web.Namespace, web.Name, "nginx", mem, ts) +
		line("container_start_time_seconds", web.Namespace, web.Name, "nginx", "1.767225e+09", ts)
}

func nodeLines(cpu, mem string, ts int64) string {
	return line("node_cpu_usage_seconds_total", "", "", "", cpu, ts) + line("node_memory_working_set_bytes", "", "", "", mem, ts)
}

var webComplete = webLines("12.5", "4.194304e+07", webAt) // a complete pod, for the tests below

// TestDecode: which series make a point, what drops a node or a pod, and the text format.
func TestDecode(t *testing.T) {
	empty := &storage.MetricsBatch{Nodes: map[string]storage.MetricsPoint{}, Pods: map[apitypes.NamespacedName]storage.PodMetricsPoint{}}
	n1 := storage.MetricsPoint{Timestamp: ms(nodeAt), CumulativeCPUUsed: 86_400_500_000_000, MemoryUsage: 2 << 30}
	nginx := storage.MetricsPoint{Timestamp: ms(webAt), CumulativeCPUUsed: 12_500_000_000, MemoryUsage: 40 << 20, StartTime: time.Unix(webStarted, 0)}
	both := &storage.MetricsBatch{
		Nodes: map[string]storage.MetricsPoint{"n1": n1},
		Pods:  pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{web: {{Name: "nginx", MetricsPoint: nginx}}}),
	}
	requestTime := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name        string
		input       string
		defaultTime time.Time
		want        *storage.MetricsBatch
		wantError   bool
	}{{
		name: "node and container, with comments and series the decoder does not use",
		input: "# HELP node_cpu_usage_seconds_total core-seconds used\n# TYPE node_cpu_usage_seconds_total counter\n" +
			nodeLines("86400.5", "2.147483648e+09", nodeAt) + webComplete +
			`pod_cpu_usage_seconds_total{namespace="shop",pod="web-5f7c"} 13 1767225601500` + "\nscrape_error 0\n",
		want: both,
	}, {
		name:        "without timestamps: the time of the request",
		input:       nodeLines("86400.5", "2.147483648e+09", noTime) + webLines("12.5", "4.194304e+07", noTime),
		defaultTime: requestTime,
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{"n1": {Timestamp: requestTime, CumulativeCPUUsed: n1.CumulativeCPUUsed, MemoryUsage: n1.MemoryUsage}},
			Pods: pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{web: {{Name: "nginx", MetricsPoint: storage.MetricsPoint{
				Timestamp: requestTime, CumulativeCPUUsed: nginx.CumulativeCPUUsed, MemoryUsage: nginx.MemoryUsage, StartTime: nginx.StartTime,
			}}}}),
		},
	}, {
		name:  "a pod without the node",
		input: webComplete,
		want:  &storage.MetricsBatch{Nodes: map[string]storage.MetricsPoint{}, Pods: both.Pods},
	}, {
		name:  "the node without pods",
		input: nodeLines("86400.5", "2.147483648e+09", nodeAt),
		want:  &storage.MetricsBatch{Nodes: both.Nodes, Pods: map[apitypes.NamespacedName]storage.PodMetricsPoint{}},
	}, {
		name:  "container CPU missing",
		input: line("container_memory_working_set_bytes", "shop", "web-5f7c", "nginx", "1e6", webAt),
		want:  empty,
	}, {
		name:  "container memory missing",
		input: line("container_cpu_usage_seconds_total", "shop", "web-5f7c", "nginx", "1", webAt),
		want:  empty,
	}, {
		name:  "container CPU zero",
		input: webLines("0", "4.194304e+07", webAt),
		want:  empty,
	}, {
		name:  "container memory zero",
		input: webLines("12.5", "0", webAt),
		want:  empty,
	}, {
		name: "one incomplete container drops its pod",
		input: webComplete + line("container_cpu_usage_seconds_total", "shop", "web-5f7c", "istio-proxy", "0", webAt) +
			line("container_memory_working_set_bytes", "shop", "web-5f7c", "istio-proxy", "1", webAt),
		want: empty,
	}, {
		name:  "node CPU missing",
		input: line("node_memory_working_set_bytes", "", "", "", "2e9", nodeAt),
		want:  empty,
	}, {
		name:  "node memory missing",
		input: line("node_cpu_usage_seconds_total", "", "", "", "1", nodeAt),
		want:  empty,
	}, {
		name:  "node CPU zero",
		input: nodeLines("0", "2e9", nodeAt),
		want:  empty,
	}, {
		name:  "node memory zero",
		input: nodeLines("1", "0", nodeAt),
		want:  empty,
	}, {
		name:  "negative and NaN read as zero",
		input: nodeLines("-1.5", "NaN", nodeAt),
		want:  empty,
	}, {
		name: "a negative timestamp fails the scrape",
		input: line("container_start_time_seconds", "shop", "web-5f7c", "nginx", "-1e9", -1000) +
			line("container_start_time_seconds", "shop", "web-6a1b", "nginx", "1.7e9", webAt),
		wantError: true,
	}, {
		name: "blanks, CRLF, label order, escapes and a trailing comma",
		input: "node_cpu_usage_seconds_total\t86400.5  1767225600250\r\n" +
			"  node_memory_working_set_bytes 2.147483648e+09 1767225600250\r\n" +
			`container_cpu_usage_seconds_total{ pod = "p\"1" , namespace="n\\s",container="c\n",} 2 1767225601500` + "\n" +
			`container_memory_working_set_bytes{namespace="n\\s",container="c\n",pod="p\"1"} 3 1767225601500` + "\n",
		want: &storage.MetricsBatch{
			Nodes: map[string]storage.MetricsPoint{"n1": n1},
			Pods: pods(map[apitypes.NamespacedName][]storage.ContainerMetricsPoint{{Namespace: `n\s`, Name: `p"1`}: {{Name: "c\n", MetricsPoint: storage.MetricsPoint{
				Timestamp: ms(webAt), CumulativeCPUUsed: 2e9, MemoryUsage: 3,
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
			got, err := decodeBatch([]byte(tc.input), tc.defaultTime, "n1")
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
	first, err := d.decode([]byte(webComplete), time.Now(), "node1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.decode([]byte(`container_cpu_usage_seconds_total{container="x",namespace="y",pod="z"} 1 1
container_memory_working_set_bytes{container="x",namespace="y",pod="z"} 1 1`), time.Now(), "node1")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := first.Pods[web]; !ok || p.Containers[0].Name != "nginx" || len(first.Pods) != 1 {
		t.Errorf("first batch changed: %+v", first.Pods)
	}
	if _, ok := second.Pods[apitypes.NamespacedName{Namespace: "y", Name: "z"}]; !ok || len(second.Pods) != 1 {
		t.Errorf("second batch: %+v", second.Pods)
	}
}

// FuzzDecode: a well-formed body with any values and a timestamp that is not negative always
// decodes.
func FuzzDecode(f *testing.F) {
	for _, v := range []float64{0, -10000, 10000, 0.5, -0.000000001, 1e100, -1e100} {
		for _, ts := range []int64{0, -10000, 10000, 5, -1} {
			f.Add(v, v, v, ts)
		}
	}
	f.Fuzz(func(t *testing.T, cpu, mem, start float64, ts int64) {
		input := line("container_cpu_usage_seconds_total", "shop", "web-5f7c", "nginx", fmt.Sprintf("%f", cpu), ts) +
			line("container_memory_working_set_bytes", "shop", "web-5f7c", "nginx", fmt.Sprintf("%e", mem), ts) +
			line("container_start_time_seconds", "shop", "web-5f7c", "nginx", fmt.Sprintf("%E", start), ts)
		if _, err := decodeBatch([]byte(input), time.Unix(0, 0), "node1"); err != nil && ts >= 0 {
			t.Errorf("unexpected error: %v\n%s", err, input)
		}
	})
}

// FuzzDecodeRandom: arbitrary input never panics.
func FuzzDecodeRandom(f *testing.F) {
	for _, s := range []string{"", "abc", "_ab{", `x{a="\`, "!@~#$%^&*()[]{}\"',.?/\\`", webComplete} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		_, _ = decodeBatch([]byte(input), time.Unix(0, 0), "node1")
	})
}
