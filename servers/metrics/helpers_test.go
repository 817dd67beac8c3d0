package metrics_test

import (
	"context"
	"encoding/json"
	"net"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	metricsv1 "k8s.io/metrics/pkg/apis/metrics/v1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/servers/metrics"
)

// startServer runs a metrics server against c with a resolution of 1 s, changed by mods.
func startServer(t *testing.T, c *chain.Chain, kubeletCA, certDir string, mods ...func(*metrics.Options)) (*metrics.Server, func()) {
	t.Helper()
	o := metrics.NewOptions()
	o.Kubeconfig = c.KubeconfigPath
	o.KubeletCAFile = kubeletCA
	o.MetricResolution = time.Second
	o.BindAddress, o.SecurePort = "127.0.0.1", 0
	o.CertDir = certDir
	for _, m := range mods {
		m(o)
	}
	completed, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	if errs := completed.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	cfg, err := metrics.NewConfig(completed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfg.Complete().New()
	if err != nil {
		t.Fatal(err)
	}
	prepared, err := s.PrepareRun()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- prepared.Run(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("metrics server: %v", err)
		}
	}
	t.Cleanup(stop)
	return s, stop
}

// waitForReviews waits until the chain serves TokenReview and SubjectAccessReview, which
// delegated authentication and authorization call.
func waitForReviews(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	for gv, resource := range map[string]string{"authentication.k8s.io/v1": "tokenreviews", "authorization.k8s.io/v1": "subjectaccessreviews"} {
		poll(t, "the chain to serve "+gv+" "+resource, func() bool {
			rl, err := cs.Discovery().ServerResourcesForGroupVersion(gv)
			return err == nil && slices.ContainsFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == resource })
		})
	}
}

func waitAvailable(t *testing.T, ac aggregatorclient.Interface) {
	t.Helper()
	for _, name := range []string{"v1beta1.metrics.k8s.io", "v1.metrics.k8s.io"} {
		var last *apiregistrationv1.APIService
		poll(t, name+" to be Available", func() bool {
			s, err := ac.ApiregistrationV1().APIServices().Get(context.Background(), name, metav1.GetOptions{})
			last = s
			if err != nil {
				return false
			}
			for _, c := range s.Status.Conditions {
				if c.Type == apiregistrationv1.Available {
					return c.Status == apiregistrationv1.ConditionTrue
				}
			}
			return false
		}, func() string {
			if last == nil {
				return "no APIService"
			}
			b, _ := json.Marshal(last.Status)
			return string(b)
		})
	}
}

func createNode(t *testing.T, cs kubernetes.Interface, n *corev1.Node) {
	t.Helper()
	ctx := context.Background()
	created, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = n.Status
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createPod(t *testing.T, cs kubernetes.Interface, name, node string, labels map[string]string, phase corev1.PodPhase, containers ...string) {
	t.Helper()
	ctx := context.Background()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "registry.k8s.io/pause:3.10"})
	}
	created, err := cs.CoreV1().Pods(testNamespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Phase = phase
	if _, err := cs.CoreV1().Pods(testNamespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func metricsClient(t *testing.T, admin *rest.Config, contentType string) metricsclient.Interface {
	cfg := rest.CopyConfig(admin)
	cfg.ContentType, cfg.AcceptContentTypes = contentType, contentType
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return mc
}

func getTable(t *testing.T, admin *rest.Config, path string) *metav1.Table {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(admin)
	body, err := cs.Discovery().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	return &table
}

// poll waits for cond, checking every 100ms for up to a minute.
func poll(t *testing.T, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		msg := ""
		for _, e := range explain {
			msg += ": " + e()
		}
		t.Fatalf("waiting for %s: %v%s", what, err, msg)
	}
}

func port(t *testing.T, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func podNames(items []metricsv1.PodMetrics) []string {
	var out []string
	for _, i := range items {
		out = append(out, i.Name)
	}
	return out
}

// metricsGoroutines are the goroutines running code of the metrics server's packages.
func metricsGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := goruntime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "apichain/servers/metrics.") || strings.Contains(g, "apichain/servers/metrics/") {
			if !strings.Contains(g, "metrics_test.") {
				out = append(out, g)
			}
		}
	}
	return out
}
