package testchain

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/chain"
)

// Get does a raw GET of path as c's admin and returns the response and its body.
func Get(t testing.TB, c *chain.Chain, path string) (*http.Response, []byte) {
	t.Helper()
	return Do(t, c.Admin, http.MethodGet, path, nil, "")
}

// Metrics reads c's /metrics as its admin and parses it into metric families by name.
func Metrics(t testing.TB, c *chain.Chain) map[string]*dto.MetricFamily {
	t.Helper()
	resp, body := Get(t, c, "/metrics")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d\n%s", resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// Do sends one raw request with cfg's credentials, its body of contentType (if not empty), and
// returns the response and its body.
func Do(t testing.TB, cfg *rest.Config, method, path string, body []byte, contentType string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	if contentType != "" {
		h["Content-Type"] = contentType
	}
	return Request(t, cfg, method, path, body, h)
}

// Request sends one raw request with cfg's credentials and headers, and returns the response
// and its body, read and closed.
func Request(t testing.TB, cfg *rest.Config, method, path string, body []byte, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, cfg.Host+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Namespace creates a namespace of its own for one test on c and returns its name.
func Namespace(t testing.TB, c *chain.Chain) string {
	t.Helper()
	cs, _ := Clients(t, c)
	ns, err := cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// UserConfig is a client configuration for user name in groups on c: a client certificate
// from c's client CA, as a cluster's users have.
func UserConfig(t testing.TB, c *chain.Chain, name string, groups ...string) *rest.Config {
	t.Helper()
	certPEM, keyPEM, err := pki.IssueClientCert(c.PKI, name, groups)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(c.Admin)
	cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = certPEM, keyPEM
	return cfg
}

// WaitFor polls cond every 20 ms until it holds, and fails t if it does not within two
// minutes: Eventually for a condition that needs no context and cannot fail.
func WaitFor(t testing.TB, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 2*time.Minute, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatal(err)
	}
}
