package metrics_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/servers/metrics"
	"github.com/apichain/apichain/test/testchain"
)

const testNamespace = "metrics-test"

// TestThroughAggregator runs a real chain, a fake kubelet playing two nodes, and a metrics server
// in-process against the chain's kubeconfig, and then asks the chain, as kubectl top does:
// the request goes through the Aggregator, the APIService, the Service and its EndpointSlice
// (metrics-server.localhost) to the metrics server, which authenticates the Aggregator by its
// front-proxy certificate.
func TestThroughAggregator(t *testing.T) {
	c := testchain.Start(t)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	waitForReviews(t, cs)

	kubelet := newFakeKubelet(t)
	kubelet.setNode("node-a", &fakeNode{cpuCores: 1.5, memory: 2 << 30, pods: []fakePod{
		{testNamespace, "web-1", []fakeContainer{{"app", 0.25, 64 << 20}, {"sidecar", 0.05, 16 << 20}}},
		{testNamespace, "pending-1", []fakeContainer{{"app", 0.1, 8 << 20}}},
	}})
	kubelet.setNode("node-b", &fakeNode{cpuCores: 0.5, memory: 1 << 30, pods: []fakePod{
		{testNamespace, "db-1", []fakeContainer{{"db", 0.75, 512 << 20}}},
	}})
	createNode(t, cs, kubelet.node("node-a", map[string]string{"zone": "a"}))
	createNode(t, cs, kubelet.node("node-b", map[string]string{"zone": "b"}))
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createPod(t, cs, "web-1", "node-a", map[string]string{"app": "web"}, corev1.PodRunning, "app", "sidecar")
	createPod(t, cs, "db-1", "node-b", map[string]string{"app": "db"}, corev1.PodRunning, "db")
	// The kubelet reports it, but it is not running: no metrics (metrics-server lists running pods).
	createPod(t, cs, "pending-1", "node-a", map[string]string{"app": "web"}, corev1.PodPending, "app")

	certDir := filepath.Join(t.TempDir(), "certs")
	// As the chain runs its own metrics server: withdrawing its registration when it stops.
	server, stop := startServer(t, c, kubelet.caFile(t), certDir, func(o *metrics.Options) { o.WithdrawOnStop = true })
	ac := aggregatorclient.NewForConfigOrDie(c.Admin)
	waitAvailable(t, ac)

	// Two scrapes, one resolution apart, and there are metrics.
	mc := metricsClient(t, c.Admin, runtime.ContentTypeJSON)
	poll(t, "metrics for both nodes and both running pods", func() bool {
		nodes, err := mc.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 2 {
			return false
		}
		pods, err := mc.MetricsV1().PodMetricses(testNamespace).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 2
	})

	t.Run("v1beta1 and v1, JSON and protobuf", func(t *testing.T) {
		for _, ct := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
			mc := metricsClient(t, c.Admin, ct)
			nodes, err := mc.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("%s: %v", ct, err)
			}
			beta, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("%s: %v", ct, err)
			}
			if len(nodes.Items) != 2 || len(beta.Items) != 2 || nodes.Items[0].Name != "node-a" || beta.Items[1].Name != "node-b" {
				t.Fatalf("%s: %d nodes, %d in v1beta1", ct, len(nodes.Items), len(beta.Items))
			}
			a := nodes.Items[0]
			if cpu := a.Usage.Cpu().MilliValue(); cpu < 1485 || cpu > 1515 {
				t.Errorf("%s: node-a CPU %dm, want 1500m (the rate between two scrapes)", ct, cpu)
			}
			if mem := a.Usage.Memory().Value(); mem != 2<<30 {
				t.Errorf("%s: node-a memory %d, want %d", ct, mem, 2<<30)
			}
			if a.Labels["zone"] != "a" || a.Window.Duration <= 0 || a.Timestamp.IsZero() {
				t.Errorf("%s: node-a metadata %+v", ct, a)
			}

			web, err := mc.MetricsV1().PodMetricses(testNamespace).Get(ctx, "web-1", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: %v", ct, err)
			}
			if len(web.Containers) != 2 || web.Containers[0].Name != "app" || web.Containers[1].Name != "sidecar" {
				t.Fatalf("%s: web-1 containers %+v", ct, web.Containers)
			}
			if cpu := web.Containers[0].Usage.Cpu().MilliValue(); cpu < 245 || cpu > 255 {
				t.Errorf("%s: web-1/app CPU %dm, want 250m", ct, cpu)
			}
			if mem := web.Containers[1].Usage.Memory().Value(); mem != 16<<20 {
				t.Errorf("%s: web-1/sidecar memory %d", ct, mem)
			}
			betaDB, err := mc.MetricsV1beta1().PodMetricses(testNamespace).Get(ctx, "db-1", metav1.GetOptions{})
			if err != nil || len(betaDB.Containers) != 1 || betaDB.Containers[0].Usage.Memory().Value() != 512<<20 {
				t.Errorf("%s: v1beta1 db-1: %v %+v", ct, err, betaDB)
			}
			if _, err := mc.MetricsV1().PodMetricses(testNamespace).Get(ctx, "pending-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s: a pending pod: want NotFound, got %v", ct, err)
			}
			if _, err := mc.MetricsV1().NodeMetricses().Get(ctx, "node-z", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s: no such node: want NotFound, got %v", ct, err)
			}
		}
	})

	t.Run("selectors", func(t *testing.T) {
		for _, ct := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
			mc := metricsClient(t, c.Admin, ct)
			for _, tc := range []struct {
				opts metav1.ListOptions
				ns   string
				want []string
			}{
				{opts: metav1.ListOptions{LabelSelector: "app=web"}, ns: testNamespace, want: []string{"web-1"}},
				{opts: metav1.ListOptions{LabelSelector: "app in (web,db)"}, want: []string{"db-1", "web-1"}},
				{opts: metav1.ListOptions{FieldSelector: "metadata.name=db-1"}, ns: testNamespace, want: []string{"db-1"}},
				{opts: metav1.ListOptions{FieldSelector: "metadata.namespace=" + testNamespace + ",metadata.name!=db-1"}, want: []string{"web-1"}},
				{opts: metav1.ListOptions{FieldSelector: "metadata.namespace=default"}},
			} {
				pods, err := mc.MetricsV1().PodMetricses(tc.ns).List(ctx, tc.opts)
				if err != nil {
					t.Fatalf("%s %+v: %v", ct, tc.opts, err)
				}
				if got := podNames(pods.Items); !slices.Equal(got, tc.want) {
					t.Errorf("%s pods in %q %+v: %v, want %v", ct, tc.ns, tc.opts, got, tc.want)
				}
			}
			for _, tc := range []struct {
				opts metav1.ListOptions
				want []string
			}{
				{opts: metav1.ListOptions{LabelSelector: "zone=b"}, want: []string{"node-b"}},
				{opts: metav1.ListOptions{FieldSelector: "metadata.name=node-a"}, want: []string{"node-a"}},
				{opts: metav1.ListOptions{FieldSelector: "metadata.name=node-a", LabelSelector: "zone=b"}},
			} {
				nodes, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, tc.opts)
				if err != nil {
					t.Fatalf("%s %+v: %v", ct, tc.opts, err)
				}
				var got []string
				for _, n := range nodes.Items {
					got = append(got, n.Name)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s nodes %+v: %v, want %v", ct, tc.opts, got, tc.want)
				}
			}
		}
	})

	t.Run("table and discovery", func(t *testing.T) {
		table := getTable(t, c.Admin, "/apis/metrics.k8s.io/v1/namespaces/"+testNamespace+"/pods")
		if len(table.Rows) != 2 || len(table.ColumnDefinitions) != 4 || table.ColumnDefinitions[1].Name != "cpu" {
			t.Fatalf("table: %+v", table)
		}
		if cells := table.Rows[1].Cells; cells[0] != "web-1" || cells[2] != "80Mi" {
			t.Errorf("web-1 row %v (memory is app + sidecar)", cells)
		}
		dc := discovery.NewDiscoveryClientForConfigOrDie(c.Admin)
		groups, err := dc.ServerGroups()
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, g := range groups.Groups {
			if g.Name == "metrics.k8s.io" {
				found = true
				if g.PreferredVersion.Version != "v1" || len(g.Versions) != 2 {
					t.Errorf("metrics.k8s.io in /apis: %+v", g)
				}
			}
		}
		if !found {
			t.Error("metrics.k8s.io missing from the chain's /apis")
		}
		rl, err := dc.ServerResourcesForGroupVersion("metrics.k8s.io/v1")
		if err != nil || len(rl.APIResources) != 2 {
			t.Errorf("metrics.k8s.io/v1 resources: %v %+v", err, rl)
		}
	})

	t.Run("registration", func(t *testing.T) {
		checkRegistration(t, cs, ac, server.Addr(), certDir)
	})

	t.Run("direct requests", func(t *testing.T) {
		direct(t, c, server.Addr(), certDir)
	})

	t.Run("deleted pod", func(t *testing.T) {
		kubelet.removePod("node-b", testNamespace, "db-1")
		if err := cs.CoreV1().Pods(testNamespace).Delete(ctx, "db-1", *metav1.NewDeleteOptions(0)); err != nil {
			t.Fatal(err)
		}
		poll(t, "db-1 to lose its metrics", func() bool {
			_, err := mc.MetricsV1().PodMetricses(testNamespace).Get(ctx, "db-1", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	})

	t.Run("restart", func(t *testing.T) {
		before, err := ac.ApiregistrationV1().APIServices().Get(ctx, "v1.metrics.k8s.io", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stop()
		// Stopped, it withdrew its APIServices (--withdraw-on-stop): the aggregator has no
		// unavailable one to report.
		for _, name := range []string{"v1.metrics.k8s.io", "v1beta1.metrics.k8s.io"} {
			if _, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("APIService %s after the metrics server stopped: %v, want NotFound", name, err)
			}
		}
		// Nor a route to either version: a download of its OpenAPI that the Aggregator queued
		// would be refused by the closed listener and logged as an error by the chain. (The
		// group path alone says less: the Aggregator answers it from its lister, which drops
		// the APIServices before its routes go.)
		for _, path := range []string{"/apis/metrics.k8s.io/v1", "/apis/metrics.k8s.io/v1beta1", "/apis/metrics.k8s.io"} {
			err := cs.Discovery().RESTClient().Get().AbsPath(path).Do(ctx).Error()
			if !apierrors.IsNotFound(err) {
				t.Errorf("GET %s after the metrics server stopped: %v, want NotFound", path, err)
			}
		}
		// Another free port, the same certificate directory: the registration follows.
		server, stop := startServer(t, c, kubelet.caFile(t), certDir)
		poll(t, "the EndpointSlice to name the new port", func() bool {
			s, err := cs.DiscoveryV1().EndpointSlices("kube-system").Get(ctx, "metrics-server-fqdn", metav1.GetOptions{})
			return err == nil && len(s.Ports) == 1 && *s.Ports[0].Port == int32(port(t, server.Addr()))
		})
		var after *apiregistrationv1.APIService
		poll(t, "v1.metrics.k8s.io to be registered again", func() bool {
			after, err = ac.ApiregistrationV1().APIServices().Get(ctx, "v1.metrics.k8s.io", metav1.GetOptions{})
			return err == nil
		})
		if !equality.Semantic.DeepEqual(before.Spec, after.Spec) {
			t.Errorf("the APIService changed across a restart with the same certificate:\n%+v\n%+v", before.Spec, after.Spec)
		}
		waitAvailable(t, ac)
		poll(t, "metrics from the restarted server", func() bool {
			m, err := mc.MetricsV1().PodMetricses(testNamespace).Get(ctx, "web-1", metav1.GetOptions{})
			return err == nil && len(m.Containers) == 2
		})
		checkRegistration(t, cs, ac, server.Addr(), certDir)

		// Stopped, it leaves nothing running.
		stop()
		poll(t, "the metrics server's goroutines to end", func() bool { return len(metricsGoroutines()) == 0 },
			func() string { return strings.Join(metricsGoroutines(), "\n\n") })
	})
}

func checkRegistration(t *testing.T, cs kubernetes.Interface, ac aggregatorclient.Interface, addr, certDir string) {
	ctx := context.Background()
	svc, err := cs.CoreV1().Services("kube-system").Get(ctx, "metrics-server", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := svc.Spec.Ports; svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Selector != nil || len(p) != 1 ||
		p[0].Name != "https" || p[0].Port != 443 || p[0].TargetPort.IntValue() != port(t, addr) {
		t.Errorf("service: %+v", svc.Spec)
	}
	slices, err := cs.DiscoveryV1().EndpointSlices("kube-system").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=metrics-server"})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) != 1 {
		t.Fatalf("%d EndpointSlices for metrics-server, want 1", len(slices.Items))
	}
	s := slices.Items[0]
	if s.AddressType != discoveryv1.AddressTypeFQDN || len(s.Endpoints) != 1 || s.Endpoints[0].Addresses[0] != "metrics-server.localhost" ||
		!*s.Endpoints[0].Conditions.Ready || *s.Ports[0].Name != "https" || int(*s.Ports[0].Port) != port(t, addr) {
		t.Errorf("endpointslice: %+v", s)
	}
	crt, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"v1beta1.metrics.k8s.io", "v1.metrics.k8s.io"} {
		as, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if as.Spec.InsecureSkipTLSVerify || len(as.Spec.CABundle) == 0 || !strings.HasSuffix(string(crt), string(as.Spec.CABundle)) {
			t.Errorf("%s: caBundle is not the serving CA (the last certificate of apiserver.crt)", name)
		}
	}
}
