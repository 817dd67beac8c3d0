package scraper

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	apitypes "k8s.io/apimachinery/pkg/types"
)

// escapeLabel writes a label value as the Prometheus text format (0.0.4) escapes it: \\, \" and \n.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

// FuzzDecodeRoundTrip writes one container's series, with any namespace, pod and container
// names and any values, the way a kubelet writes them, and decodes them. Properties:
//   - the body is well-formed, so decoding never fails;
//   - the names come back exactly as written (escapes undone), as Prometheus' own parser
//     (expfmt) reads them too;
//   - the pod is kept if and only if its CPU and memory are positive (metrics-server drops zeros),
//     and then with the values written.
func FuzzDecodeRoundTrip(f *testing.F) {
	f.Add("kube-system", "coredns-558bd4d5db-4dpjz", "coredns", 4.710169, 1.253376e+07, int64(1633253812125))
	f.Add(`we"ird`, "back\\slash", "new\nline", 1.0, 1.0, int64(0))
	f.Add("", "", "", 0.0, 0.0, int64(5))
	f.Add("ns", "p", "c", -1.0, 1e300, int64(1))
	f.Add("ns", "p", "c", 1e-10, 0.5, int64(1))
	f.Add("ns", "p\\", "c\\\\\"", 2.0, 3.0, int64(9))
	f.Fuzz(func(t *testing.T, ns, pod, container string, cpu, mem float64, ts int64) {
		if ts < 0 {
			ts = -ts // a timestamp has no sign in the text format (see parseSample)
			if ts < 0 {
				ts = 0
			}
		}
		var body bytes.Buffer
		labels := fmt.Sprintf(`{container="%s",namespace="%s",pod="%s"}`, escapeLabel(container), escapeLabel(ns), escapeLabel(pod))
		fmt.Fprintf(&body, "# TYPE container_cpu_usage_seconds_total counter\ncontainer_cpu_usage_seconds_total%s %s %d\n", labels, strconv.FormatFloat(cpu, 'g', -1, 64), ts)
		fmt.Fprintf(&body, "# TYPE container_memory_working_set_bytes gauge\ncontainer_memory_working_set_bytes%s %s %d\n", labels, strconv.FormatFloat(mem, 'g', -1, 64), ts)

		got, err := newDecoder().decode(body.Bytes(), time.Unix(0, 0), "node1")
		if err != nil {
			t.Fatalf("well-formed body not decoded: %v\n%s", err, body.String())
		}
		ref := apitypes.NamespacedName{Namespace: ns, Name: pod}
		p, kept := got.Pods[ref]
		wantKept := nanos(cpu) > 0 && uint64OrZero(mem) > 0
		if kept != wantKept || len(got.Pods) > 1 {
			t.Fatalf("pod %v kept=%v (pods %v), want kept=%v (cpu %v, mem %v)", ref, kept, got.Pods, wantKept, cpu, mem)
		}
		if kept {
			if len(p.Containers) != 1 || p.Containers[0].Name != container {
				t.Fatalf("containers %+v, want one named %q", p.Containers, container)
			}
			c := p.Containers[0]
			if c.CumulativeCPUUsed != nanos(cpu) || c.MemoryUsage != uint64OrZero(mem) || !c.Timestamp.Equal(time.UnixMilli(ts)) {
				t.Errorf("point %+v, want cpu %v mem %v at %d", c.MetricsPoint, cpu, mem, ts)
			}
		}

		// Prometheus' parser reads the same names (it insists on UTF-8).
		if !utf8.ValidString(ns + pod + container) {
			return
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(body.Bytes()))
		if err != nil {
			return // expfmt has rules of its own (e.g. on values); the names are what is compared
		}
		for _, l := range families["container_cpu_usage_seconds_total"].GetMetric()[0].GetLabel() {
			want := map[string]string{"namespace": ns, "pod": pod, "container": container}[l.GetName()]
			if l.GetValue() != want {
				t.Errorf("expfmt reads %s=%q, written %q", l.GetName(), l.GetValue(), want)
			}
		}
	})
}
