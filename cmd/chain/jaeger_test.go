package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/testchain"
)

// TestExportToJaeger is docs/09's "Export to a collector" with the real Jaeger (v1.75.0, the
// all-in-one: an OpenTelemetry collector with an OTLP receiver, in-memory storage and the query
// service): kubectl top node against a chain started with --tracing-config-file gives Jaeger one
// trace with the spans of both processes, the metrics server's below the chain's call to it.
// Jaeger takes minutes to build, so the test runs only where APICHAIN_JAEGER names the binary
// (.ci/run builds it):
//
//	go build -C tools/jaeger -o /tmp/jaeger github.com/jaegertracing/jaeger/cmd/jaeger
//	APICHAIN_JAEGER=/tmp/jaeger go test -run TestExportToJaeger ./cmd/chain
func TestExportToJaeger(t *testing.T) {
	bin := os.Getenv("APICHAIN_JAEGER")
	if bin == "" {
		t.Skip("APICHAIN_JAEGER is not set (see the test's comment to build Jaeger)")
	}
	otlp, query := startJaeger(t, bin)

	config := testchain.TracingConfigFile(t, otlp)
	r := startBinary(t, "--nodes", "1", "--metric-resolution", "1s", "--tracing-config-file", config)
	defer r.stop(t)
	kubeconfig := filepath.Join(r.dir, "admin.kubeconfig")
	top := topNode(t, kubeconfig)

	var found *jaegerTrace
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		// Again until Jaeger holds a trace of both (the first may find no metrics server
		// yet, and both processes export in batches).
		top(ctx)
		traces, err := jaegerTraces(ctx, query, "metrics-server")
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprintf("%d traces of service metrics-server", len(traces))
		for i := range traces {
			if traces[i].root(tracing.ServiceName, "/apis/metrics.k8s.io/v1beta1/nodes") != nil {
				found = &traces[i]
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("Jaeger holds no trace of kubectl top node with spans of both %s and metrics-server: %v (last: %s)", tracing.ServiceName, err, last)
	}
	// The metrics server's server span hangs below a span of the chain: the proxy's call.
	var server *jaegerSpan
	for i, s := range found.Spans {
		if found.service(s) == "metrics-server" && s.tag("span.kind") == "server" {
			server = &found.Spans[i]
		}
	}
	if server == nil {
		t.Fatalf("no server span of metrics-server in trace %s", found.TraceID)
	}
	parent := found.parent(*server)
	if parent == nil || found.service(*parent) != tracing.ServiceName || parent.tag("span.kind") != "client" {
		t.Errorf("the metrics server's span %q is not below the chain's call to it: parent %+v", server.OperationName, parent)
	}
}

// startJaeger runs Jaeger with a configuration of its own (the all-in-one's, on free ports) and
// returns its OTLP/gRPC endpoint and the address of its query service, once that answers.
func startJaeger(t *testing.T, bin string) (otlp, query string) {
	t.Helper()
	otlp, query, queryGRPC := testchain.FreeAddress(t), testchain.FreeAddress(t), testchain.FreeAddress(t)
	config := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(config, []byte(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: `+query+`
    grpc:
      endpoint: `+queryGRPC+`
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: `+otlp+`
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "jaeger.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", config)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = logFile.Close()
	})
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case <-exited:
			return false, fmt.Errorf("jaeger exited")
		default:
		}
		_, err := jaegerGet(ctx, "http://"+query+"/api/services")
		return err == nil, nil
	})
	if err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("Jaeger's query service at %s: %v\n%s", query, err, log)
	}
	return otlp, query
}

// topNode returns what asks for node metrics as `kubectl top node` does: kubectl itself where it
// is installed, else the same list with client-go.
func topNode(t *testing.T, kubeconfig string) func(context.Context) {
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		return func(ctx context.Context) {
			_ = exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "top", "node").Run()
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(cfg)
	return func(ctx context.Context) {
		_, _ = mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	}
}

// jaegerTrace is a trace as Jaeger's query service answers /api/traces (the API of its UI).
type jaegerTrace struct {
	TraceID   string                   `json:"traceID"`
	Spans     []jaegerSpan             `json:"spans"`
	Processes map[string]jaegerProcess `json:"processes"`
}

type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	ProcessID     string `json:"processID"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

type jaegerProcess struct {
	ServiceName string `json:"serviceName"`
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (tr *jaegerTrace) service(s jaegerSpan) string { return tr.Processes[s.ProcessID].ServiceName }

// root is the trace's server span of service for path, if the trace has one and also spans of
// the metrics server.
func (tr *jaegerTrace) root(service, path string) *jaegerSpan {
	var root *jaegerSpan
	remote := false
	for i, s := range tr.Spans {
		switch {
		case tr.service(s) == service && s.tag("span.kind") == "server" && s.tag("url.path") == path:
			root = &tr.Spans[i]
		case tr.service(s) == "metrics-server":
			remote = true
		}
	}
	if !remote {
		return nil
	}
	return root
}

func (tr *jaegerTrace) parent(s jaegerSpan) *jaegerSpan {
	for _, ref := range s.References {
		if ref.RefType != "CHILD_OF" {
			continue
		}
		for i := range tr.Spans {
			if tr.Spans[i].SpanID == ref.SpanID {
				return &tr.Spans[i]
			}
		}
	}
	return nil
}

// jaegerTraces asks Jaeger's query service for the recent traces with spans of service.
func jaegerTraces(ctx context.Context, query, service string) ([]jaegerTrace, error) {
	body, err := jaegerGet(ctx, "http://"+query+"/api/traces?limit=50&lookback=1h&service="+service)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Data []jaegerTrace `json:"data"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("jaeger's answer: %v", err)
	}
	return answer.Data, nil
}

func jaegerGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
