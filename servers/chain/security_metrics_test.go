package chain_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// TestSecurityAndBadRequestsMetricsServer runs a chain with its metrics server and sends the
// metrics.k8s.io API malformed requests, through the Aggregator and straight to the metrics
// server with the Aggregator's own front-proxy certificate; then it tries to get past the
// Aggregator: no certificate, another CA's certificate, the chain's client CA instead of the
// front-proxy CA, each with forged X-Remote-User and X-Remote-Group headers.
func TestSecurityAndBadRequestsMetricsServer(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Metrics = chain.MetricsInProcess
		o.Controllers = []string{"*"}
		o.MetricResolution = time.Second
	})
	ctx := context.Background()
	ac := aggregatorclient.NewForConfigOrDie(c.Admin)
	for _, name := range []string{"v1.metrics.k8s.io", "v1beta1.metrics.k8s.io"} {
		testchain.WaitFor(t, func() bool {
			s, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
			return err == nil && coretest.Available(s)
		})
	}
	// Available is the availability controller's view; wait until the proxy routes too.
	expectCode(t, c, "/apis/metrics.k8s.io/v1/nodes", http.StatusOK)
	addr := metricsServerAddr(t, c)
	files := c.PKI
	frontProxy := loadKeyPair(t, files.FrontProxyClientCert, files.FrontProxyClientKey)
	direct := directClient(t, c, &frontProxy)
	asAdmin := map[string]string{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"}

	// Bad input: the same requests through the Aggregator and directly.
	nodes, pods := "/apis/metrics.k8s.io/v1/nodes", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"
	corpus := []badCase{
		{name: "bad label selector", method: "GET", path: nodes + "?labelSelector=a%3D%3D%3Db", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unparsable label selector", method: "GET", path: pods + "?labelSelector=a+in+(b", code: 400, reason: metav1.StatusReasonBadRequest, message: "unable to parse requirement"},
		{name: "unknown field selector", method: "GET", path: pods + "?fieldSelector=spec.nodeName%3Dx", code: 400, reason: metav1.StatusReasonBadRequest, message: "spec.nodeName"},
		{name: "field selector without an operator", method: "GET", path: nodes + "?fieldSelector=metadata.name", code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid selector"},
		{name: "path traversal in a name, escaped slashes", method: "GET", path: nodes + "/..%2F..%2Fsecrets", code: 404, anyServer: true},
		// The metrics server has no name check of its own: ".." is a node it does not know.
		{name: "path traversal in a name, dot-dot", method: "GET", path: nodes + "/%2E%2E", code: 404, reason: metav1.StatusReasonNotFound, message: `".." not found`},
		{name: "missing node", method: "GET", path: nodes + "/nope", code: 404, reason: metav1.StatusReasonNotFound, message: `"nope" not found`},
		{name: "create (read-only API)", method: "POST", path: nodes, contentType: "application/json", body: `{"apiVersion":"metrics.k8s.io/v1","kind":"NodeMetrics","metadata":{"name":"x"}}`, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "broken JSON to a read-only API", method: "POST", path: pods, contentType: "application/json", body: `{"kind":`, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "body over 3 MiB", method: "POST", path: nodes, contentType: "application/json", body: `{"x":"` + strings.Repeat("x", maxBody) + `"}`, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "JSON nested 10001 levels", method: "PUT", path: nodes + "/x", contentType: "application/json", body: nested(10001), code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "patch", method: "PATCH", path: nodes + "/x", contentType: "application/merge-patch+json", body: `{`, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "delete", method: "DELETE", path: pods + "/x", code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "unknown resource", method: "GET", path: "/apis/metrics.k8s.io/v1/frobs", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "unknown version", method: "GET", path: "/apis/metrics.k8s.io/v9/nodes", code: 404, anyServer: true},
	}
	t.Run("bad input through the aggregator", func(t *testing.T) {
		for _, tc := range corpus {
			t.Run(tc.name, func(t *testing.T) { checkBadRequest(t, c.Admin, "remote:", tc) })
		}
	})
	t.Run("bad input to the metrics server", func(t *testing.T) {
		for _, tc := range corpus {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := directRequest(t, direct, addr, tc.method, tc.path, tc.contentType, tc.body, asAdmin)
				if resp.StatusCode >= 500 || resp.StatusCode != tc.code {
					t.Fatalf("%d, want %d: %s", resp.StatusCode, tc.code, truncate(body))
				}
				var st metav1.Status
				if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" || st.Code != int32(tc.code) || st.Message == "" ||
					(tc.reason != "" && st.Reason != tc.reason) || !strings.Contains(st.Message, tc.message) {
					t.Errorf("not the Status wanted (%s, %q): %v %s", tc.reason, tc.message, err, truncate(body))
				}
			})
		}
	})

	// Intruders: requests that do not come from the Aggregator.
	clientCA := func(user string, groups ...string) tls.Certificate {
		certPEM, keyPEM, err := pki.IssueClientCert(files, user, groups)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return pair
	}
	foreignCert, foreignKey := foreignAdminCert(t)
	foreign, err := tls.X509KeyPair(foreignCert, foreignKey)
	if err != nil {
		t.Fatal(err)
	}
	proxyNameFromClientCA := clientCA(pki.FrontProxyClientName)
	for _, tc := range []struct {
		name    string
		cert    *tls.Certificate
		headers map[string]string
		code    int
		message string
	}{
		{name: "no certificate, forged headers: anonymous, and denied", headers: asAdmin, code: 403, message: `User "system:anonymous" cannot list resource "nodes"`},
		{name: "another CA's admin certificate", cert: &foreign, code: 401},
		{name: "another CA's certificate with forged headers", cert: &foreign, headers: asAdmin, code: 401},
		{name: "the chain's client CA, named front-proxy-client, with forged headers: only the x509 name counts", cert: &proxyNameFromClientCA, headers: asAdmin, code: 403,
			message: `User "front-proxy-client" cannot list resource "nodes"`},
		{name: "the front-proxy certificate without X-Remote-User", cert: &frontProxy, code: 401},
		{name: "the front-proxy certificate speaking for bob", cert: &frontProxy, headers: map[string]string{"X-Remote-User": "bob"}, code: 403, message: `User "bob" cannot list resource "nodes"`},
	} {
		t.Run("intruder: "+tc.name, func(t *testing.T) {
			resp, body := directRequest(t, directClient(t, c, tc.cert), addr, "GET", nodes, "", "", tc.headers)
			var st metav1.Status
			_ = json.Unmarshal(body, &st)
			if resp.StatusCode != tc.code || !strings.Contains(st.Message, tc.message) {
				t.Errorf("%d %s\nwant %d with %q", resp.StatusCode, truncate(body), tc.code, tc.message)
			}
		})
	}

	// Both servers are still up and ready.
	expectReady(t, c)
	// The metrics server's /readyz also waits for a second scrape; /livez is whether it is
	// healthy and serving.
	testchain.WaitFor(t, func() bool {
		resp, _ := directRequest(t, directClient(t, c, nil), addr, "GET", "/livez", "", "", nil)
		return resp.StatusCode == http.StatusOK
	})
}

// metricsServerAddr is where the in-process metrics server listens, as its registration
// publishes it (the EndpointSlice's port, on the loopback address).
func metricsServerAddr(t *testing.T, c *chain.Chain) string {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	var port int32
	testchain.WaitFor(t, func() bool {
		s, err := cs.DiscoveryV1().EndpointSlices("kube-system").Get(context.Background(), "metrics-server-fqdn", metav1.GetOptions{})
		if err != nil || len(s.Ports) != 1 || s.Ports[0].Port == nil {
			return false
		}
		port = *s.Ports[0].Port
		return true
	})
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// directClient is an HTTPS client to the metrics server that verifies it by its own serving
// CA, presenting cert (none if nil).
func directClient(t *testing.T, c *chain.Chain, cert *tls.Certificate) *http.Client {
	t.Helper()
	pemBytes, err := os.ReadFile(filepath.Join(filepath.Dir(c.KubeconfigPath), "metrics-server", "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("no certificate in the metrics server's apiserver.crt")
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: "metrics-server.kube-system.svc"}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	transport := &http.Transport{TLSClientConfig: cfg}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport, Timeout: 30 * time.Second}
}

func directRequest(t *testing.T, client *http.Client, addr, method, path, contentType, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "https://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func loadKeyPair(t *testing.T, certFile, keyFile string) tls.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return pair
}
