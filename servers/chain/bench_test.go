package chain_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// BenchmarkDelegation measures what the chain's delegation costs: the same GET of a ConfigMap,
// answered by Core, sent to the head (the Aggregator's filters and mux, then Core through the
// local APIService's delegate) and to Core's own full handler, as if Core were served alone
// with the same filter chain. Both run in-process (no TLS, no network), alternating, so that the
// difference is the delegation and nothing else; it reports both and the overhead in percent.
//
//	go test -run '^$' -bench Delegation ./servers/chain
func BenchmarkDelegation(b *testing.B) {
	c := testchain.Start(b)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "bench"}, Data: map[string]string{"k": "v"},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	head, core := chain.Handlers(c)
	if core == nil {
		b.Fatal("no Core handler")
	}
	// The request the x509 authenticator sees from a TLS connection with admin's certificate.
	cert := adminCert(b, c.Admin)
	get := func(h http.Handler) time.Duration {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps/bench", nil)
		r.Header.Set("Accept", "application/json")
		r.TLS = &tls.ConnectionState{HandshakeComplete: true, PeerCertificates: []*x509.Certificate{cert}}
		w := httptest.NewRecorder()
		t := time.Now()
		h.ServeHTTP(w, r)
		d := time.Since(t)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
		return d
	}
	var viaHead, alone time.Duration
	for range 200 { // warm both paths (caches, authorizer decisions)
		get(head)
		get(core)
	}
	b.ResetTimer()
	for b.Loop() {
		viaHead += get(head)
		alone += get(core)
	}
	n := float64(b.N)
	b.ReportMetric(float64(alone.Nanoseconds())/n, "core-alone-ns/get")
	b.ReportMetric(float64(viaHead.Nanoseconds())/n, "through-aggregator-ns/get")
	b.ReportMetric(100*(float64(viaHead)/float64(alone)-1), "delegation-overhead-%")
}

func adminCert(b *testing.B, cfg *rest.Config) *x509.Certificate {
	b.Helper()
	data := cfg.CertData
	if len(data) == 0 {
		var err error
		if data, err = os.ReadFile(cfg.CertFile); err != nil {
			b.Fatal(err)
		}
	}
	certs, err := certutil.ParseCertsPEM(data)
	if err != nil {
		b.Fatalf("admin certificate: %v", err)
	}
	return certs[0]
}

// BenchmarkProxiedMetricsGet compares, over HTTPS with client-go as kubectl does, a GET the
// Aggregator proxies to the metrics server (NodeMetrics of the host node: proxy, front-proxy
// authentication, a SubjectAccessReview back to the chain, cached, and the metrics storage)
// with a GET Core answers (the host Node), alternating, and reports the ratio.
//
//	go test -run '^$' -bench ProxiedMetrics ./servers/chain
func BenchmarkProxiedMetricsGet(b *testing.B) {
	c := testchain.Start(b, func(o *chain.Options) {
		o.Metrics = chain.MetricsInProcess
		o.Controllers = []string{"*"}
		o.MetricResolution = time.Second
	})
	ctx := context.Background()
	cfg := rest.CopyConfig(c.Admin)
	cfg.QPS = -1
	cs := kubernetes.NewForConfigOrDie(cfg)
	mc := metricsclient.NewForConfigOrDie(cfg)
	host, err := os.Hostname()
	if err != nil {
		b.Fatal(err)
	}
	var node string
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		nodes, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) == 0 {
			return false, nil
		}
		node = nodes.Items[0].Name
		for _, n := range nodes.Items {
			if n.Name == host {
				node = n.Name
			}
		}
		return true, nil
	}); err != nil {
		b.Fatalf("no node metrics: %v", err)
	}
	var viaProxy, core time.Duration
	timed := func(get func() error) time.Duration {
		t := time.Now()
		if err := get(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	getNode := func() error { _, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); return err }
	getMetrics := func() error {
		_, err := mc.MetricsV1beta1().NodeMetricses().Get(ctx, node, metav1.GetOptions{})
		return err
	}
	for range 50 {
		timed(getNode)
		timed(getMetrics)
	}
	b.ResetTimer()
	for b.Loop() {
		core += timed(getNode)
		viaProxy += timed(getMetrics)
	}
	n := float64(b.N)
	b.ReportMetric(float64(core.Microseconds())/n, "core-us/get")
	b.ReportMetric(float64(viaProxy.Microseconds())/n, "proxied-metrics-us/get")
	b.ReportMetric(float64(viaProxy)/float64(core), "proxied/core")
}
