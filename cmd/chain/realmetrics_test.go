package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// TestRealMetricsServer runs the real kubernetes-sigs/metrics-server against the chain, as the
// README describes. It needs the binary, which takes minutes to build, so it runs only when
// APICHAIN_REAL_METRICS_SERVER names it:
//
//	GOBIN=/tmp/ms go install sigs.k8s.io/metrics-server/cmd/metrics-server@v0.8.0
//	APICHAIN_REAL_METRICS_SERVER=/tmp/ms/metrics-server go test -run TestRealMetricsServer ./cmd/chain
func TestRealMetricsServer(t *testing.T) {
	bin := os.Getenv("APICHAIN_REAL_METRICS_SERVER")
	if bin == "" {
		t.Skip("APICHAIN_REAL_METRICS_SERVER is not set")
	}
	r := startBinary(t, "--metrics", "off", "--nodes", "1")
	defer r.stop(t)
	kubeconfig := filepath.Join(r.dir, "admin.kubeconfig")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// kubectl apply -f docs/real-metrics-server.yaml, with client-go.
	manifest, err := os.ReadFile("../../docs/real-metrics-server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memoryDiscovery(t, cfg))
	dyn := dynamic.NewForConfigOrDie(cfg)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		m, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := obj.MarshalJSON()
		if _, err := dyn.Resource(m.Resource).Namespace(obj.GetNamespace()).Patch(context.Background(), obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "test"}); err != nil {
			t.Fatalf("apply %s: %v", obj.GetName(), err)
		}
	}

	// Its own user, as the README runs it: system:metrics-server, whose client certificate it
	// also presents to the kubelets, which ask the chain whether it may get nodes/metrics.
	own := filepath.Join(r.dir, "metrics-server.kubeconfig")
	cmd := exec.Command(bin, "--kubeconfig", own, "--authentication-kubeconfig", own, "--authorization-kubeconfig", own,
		"--secure-port", "4443", "--bind-address", "127.0.0.1", "--cert-dir", t.TempDir(),
		"--kubelet-certificate-authority", filepath.Join(r.dir, "pki", "ca.crt"),
		"--kubelet-preferred-address-types", "InternalIP", "--kubelet-use-node-status-port")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	mc := metricsclient.NewForConfigOrDie(cfg)
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 2, nil
	})
	if err != nil {
		t.Fatalf("no node metrics from the real metrics-server: %v", err)
	}
}

func memoryDiscovery(t *testing.T, cfg *rest.Config) discovery.CachedDiscoveryInterface {
	t.Helper()
	return memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg))
}
