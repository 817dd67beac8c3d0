package kubelet_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/controllers/scheduler"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/sharedinformers"
	"github.com/apichain/apichain/kubelet"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// The tests against a chain share one: the host and two simulated nodes, and a scheduler.
var (
	sharedOnce sync.Once
	shared     *cluster
	sharedErr  error
	stopShared func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stopShared != nil {
		stopShared()
	}
	os.Exit(code)
}

// cluster is a chain with simulated kubelets (and maybe a scheduler) running against it.
type cluster struct {
	chain  *chain.Chain
	client kubernetes.Interface
	sim    *kubelet.Simulator
	https  *http.Client // trusts the chain's server CA, nothing else; presents admin's certificate
	files  pki.Files
}

func sharedCluster(t *testing.T) *cluster {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubelet-test-")
		if err != nil {
			sharedErr = err
			return
		}
		// New nodes are tainted not-ready until the node lifecycle controller sees them Ready.
		c, err := testchain.StartIn(dir, nil, func(o *chain.Options) { o.Controllers = []string{controllers.NodeLifecycle, controllers.NodeIPAM} })
		if err != nil {
			os.RemoveAll(dir)
			sharedErr = err
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		cl, stopSim, err := startCluster(ctx, c.Chain, kubelet.Config{Host: true, Nodes: 2})
		if err != nil {
			cancel()
			c.Stop()
			os.RemoveAll(dir)
			sharedErr = err
			return
		}
		factory := sharedinformers.New(cl.client)
		sched, err := scheduler.New(cl.client, factory.Core().V1().Pods(), factory.Core().V1().Nodes())
		if err != nil {
			cancel()
			stopSim()
			c.Stop()
			os.RemoveAll(dir)
			sharedErr = err
			return
		}
		schedDone := make(chan struct{})
		go func() { sched.Run(ctx); close(schedDone) }()
		factory.Start(ctx.Done())
		shared = cl
		stopShared = func() {
			cancel()
			<-schedDone
			factory.Shutdown()
			stopSim()
			c.Stop()
			os.RemoveAll(dir)
		}
	})
	if sharedErr != nil {
		t.Fatalf("starting the shared cluster: %v", sharedErr)
	}
	return shared
}

// startCluster runs a Simulator configured by cfg (client and certificate filled in) against c.
// stop ends it and waits until it has returned.
func startCluster(ctx context.Context, c *chain.Chain, cfg kubelet.Config) (*cluster, func(), error) {
	// A kubelet's client: --kube-api-qps 50, --kube-api-burst 100.
	restConfig := rest.CopyConfig(c.Admin)
	restConfig.QPS, restConfig.Burst = 50, 100
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, err
	}
	files := pki.FilesIn(filepath.Join(filepath.Dir(c.KubeconfigPath), "pki"))
	cfg.Client = client
	if cfg.ClientCA, err = os.ReadFile(files.ClientCACert); err != nil {
		return nil, nil, err
	}
	cfg.ServingCert, cfg.ServingKey, err = pki.IssueServingCert(files, "system:node:kubelets",
		pki.ServingNames{DNS: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		return nil, nil, err
	}
	sim, err := kubelet.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	kubelet.SetHeartbeat(sim, time.Second)
	admin, err := tls.LoadX509KeyPair(files.AdminCert, files.AdminKey)
	if err != nil {
		return nil, nil, err
	}
	https, err := httpsClient(files, &admin)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sim.Run(ctx) }()
	stop := func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintf(os.Stderr, "simulator: %v\n", err)
		}
	}
	return &cluster{chain: c, client: client, sim: sim, https: https, files: files}, stop, nil
}

// httpsClient trusts the chain's server CA, which signs the kubelets' serving certificate,
// and presents cert (none if nil).
func httpsClient(files pki.Files, cert *tls.Certificate) (*http.Client, error) {
	caPEM, err := os.ReadFile(files.ServerCACert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	config := &tls.Config{RootCAs: pool}
	if cert != nil {
		config.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: config}}, nil
}

// eventually polls cond every 100ms for up to 30s, failing t with what it last said.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (done bool, err error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// readyNode waits until node name is registered and Ready, and returns it.
func (cl *cluster) readyNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	var node *corev1.Node
	eventually(t, "node "+name+" Ready", func(ctx context.Context) (bool, error) {
		n, err := cl.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				node = n
				return true, nil
			}
		}
		return false, nil
	})
	return node
}

// metricsURL is where node's kubelet serves its resource metrics, as the metrics server works
// it out: InternalIP, the kubelet port, and the path annotation if any.
func metricsURL(node *corev1.Node) string {
	host := ""
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			host = a.Address
		}
	}
	path := "/metrics/resource"
	if p, ok := node.Annotations[kubelet.MetricsPathAnnotation]; ok {
		path = p
	}
	return "https://" + net.JoinHostPort(host, strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))) + path
}

// scrape fetches and parses a node's resource metrics.
func (cl *cluster) scrape(t *testing.T, node *corev1.Node) (map[string]*dto.MetricFamily, []byte) {
	t.Helper()
	resp, err := cl.https.Get(metricsURL(node))
	if err != nil {
		t.Fatalf("scraping %s: %v", node.Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s %v\n%s", node.Name, resp.Status, err, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != kubelet.ContentType {
		t.Errorf("content type %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing the metrics of %s: %v\n%s", node.Name, err, body)
	}
	return families, body
}

// value is the value of the sample of family with the given label values (in label order).
func value(families map[string]*dto.MetricFamily, family string, labelValues ...string) (float64, bool) {
	f := families[family]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labelValues) {
			continue
		}
		for i, l := range m.Label {
			if l.GetValue() != labelValues[i] {
				continue next
			}
		}
		return m.GetCounter().GetValue() + m.GetGauge().GetValue(), true
	}
	return 0, false
}

func newNamespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "kubelet-test-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}
