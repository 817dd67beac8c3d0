package chain_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/servers/metrics"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// TestKubectlTopPath follows the path `kubectl top` takes, with client-go: the aggregator routes
// metrics.k8s.io to the metrics server (a remote APIService), which scrapes the simulated
// kubelets; v1beta1 and v1, JSON and protobuf.
func TestKubectlTopPath(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Metrics = chain.MetricsInProcess
		o.Controllers = []string{"*"}
		o.Nodes = 2
		o.MetricResolution = time.Second
	})
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)

	ac := aggregatorclient.NewForConfigOrDie(c.Admin)
	for _, name := range []string{"v1beta1.metrics.k8s.io", "v1.metrics.k8s.io"} {
		poll(t, 60*time.Second, func() bool {
			s, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
			return err == nil && coretest.Available(s) && s.Spec.Service != nil && s.Spec.Service.Name == "metrics-server" &&
				len(s.Spec.CABundle) > 0 && !s.Spec.InsecureSkipTLSVerify
		})
	}

	// A pod, scheduled and running, with its usage set by annotation.
	p := coretest.Pod("web")
	p.Annotations = map[string]string{"apichain.io/cpu-usage": "250m", "apichain.io/memory-usage": "64Mi"}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 60*time.Second, func() bool {
		got, err := cs.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodRunning
	})

	for _, ct := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		cfg := rest.CopyConfig(c.Admin)
		cfg.AcceptContentTypes, cfg.ContentType = ct, ct
		mc := metricsclient.NewForConfigOrDie(cfg)
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 3 {
			t.Fatalf("nodes: %v %d", err, len(nodes.Items))
		}
		poll(t, 60*time.Second, func() bool {
			l, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 3
		})
		poll(t, 60*time.Second, func() bool {
			m, err := mc.MetricsV1().PodMetricses("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil || len(m.Containers) != 1 {
				return false
			}
			cpu, mem := m.Containers[0].Usage.Cpu().MilliValue(), m.Containers[0].Usage.Memory().Value()
			return cpu > 150 && cpu < 350 && mem > 48<<20 && mem < 80<<20
		})
		// Selectors.
		l, err := mc.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=sim-node-1"})
		if err != nil || len(l.Items) != 1 || l.Items[0].Name != "sim-node-1" {
			t.Errorf("%s: node metrics by name: %v %v", ct, err, l)
		}
		l, err = mc.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/control-plane"})
		if err != nil || len(l.Items) != 1 {
			t.Errorf("%s: node metrics by label: %v %v", ct, err, l)
		}
		for _, n := range l.Items {
			if n.Usage.Cpu().IsZero() || n.Usage.Memory().IsZero() {
				t.Errorf("zero usage for %s: %v", n.Name, n.Usage)
			}
		}
	}
	// The header names the remote server that answered.
	resp, _ := testchain.Request(t, c.Admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes", nil, nil)
	if got := resp.Header.Get(chain.ChainServerHeader); got != "remote:v1beta1.metrics.k8s.io" {
		t.Errorf("%s = %q", chain.ChainServerHeader, got)
	}
	// Deleting the pod ends its metrics.
	if err := cs.CoreV1().Pods("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(c.Admin)
	poll(t, 60*time.Second, func() bool {
		_, err := mc.MetricsV1beta1().PodMetricses("default").Get(ctx, "web", metav1.GetOptions{})
		return err != nil
	})
}

func poll(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("condition not met within %v", timeout)
	}
}

// TestMetricsServerDeathAndRecovery stops the metrics server: its APIServices turn
// Available=False, the aggregator answers 503 for metrics.k8s.io while Core is unaffected, and
// everything recovers on its own when a metrics server is back.
func TestMetricsServerDeathAndRecovery(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{"*"}
		o.MetricResolution = time.Second
	})
	ctx := context.Background()
	ac := aggregatorclient.NewForConfigOrDie(c.Admin)
	availability := func(want bool) func() bool {
		return func() bool {
			s, err := ac.ApiregistrationV1().APIServices().Get(ctx, "v1beta1.metrics.k8s.io", metav1.GetOptions{})
			return err == nil && coretest.Available(s) == want
		}
	}

	stop := startMetricsServer(t, c)
	poll(t, 60*time.Second, availability(true))
	stop()

	poll(t, 90*time.Second, availability(false))
	s, _ := ac.ApiregistrationV1().APIServices().Get(ctx, "v1beta1.metrics.k8s.io", metav1.GetOptions{})
	for _, cond := range s.Status.Conditions {
		if cond.Reason == "" || cond.Message == "" {
			t.Errorf("unavailable without a reason: %+v", cond)
		}
	}
	start := time.Now()
	resp, body := testchain.Request(t, c.Admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes", nil, nil)
	if resp.StatusCode != 503 || time.Since(start) > 30*time.Second {
		t.Errorf("metrics with the server down: %d after %v: %s", resp.StatusCode, time.Since(start), body)
	}
	if resp, _ := testchain.Request(t, c.Admin, "GET", "/api/v1/namespaces", nil, nil); resp.StatusCode != 200 {
		t.Errorf("core with the metrics server down: %d", resp.StatusCode)
	}

	// Back, as the chain runs its own: withdrawing its registration on a graceful stop.
	stop = startMetricsServer(t, c, func(o *metrics.Options) { o.WithdrawOnStop = true })
	defer stop()
	poll(t, 90*time.Second, availability(true))
	poll(t, 60*time.Second, func() bool {
		resp, _ := testchain.Request(t, c.Admin, "GET", "/apis/metrics.k8s.io/v1beta1/nodes", nil, nil)
		return resp.StatusCode == 200
	})
	stop()
	for _, v := range []string{"v1beta1", "v1"} {
		poll(t, 30*time.Second, func() bool {
			_, err := ac.ApiregistrationV1().APIServices().Get(ctx, v+".metrics.k8s.io", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	}
}

// startMetricsServer runs a metrics server in-process against c, as --metrics=in-process does,
// and returns how to stop it.
func startMetricsServer(t *testing.T, c *chain.Chain, mods ...func(*metrics.Options)) func() {
	t.Helper()
	o := metrics.NewOptions()
	o.Kubeconfig = c.KubeconfigPath
	dir := filepath.Dir(c.KubeconfigPath)
	o.KubeletCAFile = filepath.Join(dir, "pki", "ca.crt")
	o.MetricResolution = time.Second
	o.BindAddress, o.SecurePort = "127.0.0.1", 0
	o.CertDir = filepath.Join(dir, "metrics-server")
	o.KubeletPreferredAddressTypes = []string{"InternalIP"}
	for _, mod := range mods {
		mod(o)
	}
	completed, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := metrics.Run(ctx, completed); err != nil {
			t.Errorf("metrics server: %v", err)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}
