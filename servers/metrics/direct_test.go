package metrics_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/chain"
)

// direct sends requests straight to the metrics server, bypassing the Aggregator.
func direct(t *testing.T, c *chain.Chain, addr, certDir string) {
	files := pki.FilesIn(filepath.Join(filepath.Dir(c.KubeconfigPath), "pki"))
	servingCA := x509.NewCertPool()
	if pemBytes, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt")); err != nil || !servingCA.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("serving certificate: %v", err)
	}
	client := func(cert *tls.Certificate) *http.Client {
		cfg := &tls.Config{RootCAs: servingCA, ServerName: "metrics-server.kube-system.svc"}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
	}
	loadPair := func(certFile, keyFile string) *tls.Certificate {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		return &pair
	}
	alicePEM, aliceKey, err := pki.IssueClientCert(files, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := tls.X509KeyPair(alicePEM, aliceKey)
	if err != nil {
		t.Fatal(err)
	}
	// A client certificate of a CA the chain does not know.
	strangerDir := t.TempDir()
	stranger := pki.FilesIn(strangerDir)
	if _, err := pki.Ensure(stranger, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	frontProxy := loadPair(files.FrontProxyClientCert, files.FrontProxyClientKey)

	nodes := "https://" + addr + "/apis/metrics.k8s.io/v1/nodes"
	forged := map[string]string{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"}
	for _, tc := range []struct {
		name    string
		client  *http.Client
		path    string
		headers map[string]string
		code    int
		// body, if set, must appear in the response.
		body string
	}{{
		name: "no credentials: anonymous, denied by the chain's SubjectAccessReview", client: client(nil), path: nodes,
		code: http.StatusForbidden, body: `User \"system:anonymous\" cannot list resource \"nodes\" in API group \"metrics.k8s.io\"`,
	}, {
		name: "a client certificate of an unknown CA", client: client(loadPair(stranger.AdminCert, stranger.AdminKey)), path: nodes,
		code: http.StatusUnauthorized,
	}, {
		name: "a bearer token the chain's TokenReview rejects", client: client(nil), path: nodes,
		headers: map[string]string{"Authorization": "Bearer not-a-token"}, code: http.StatusUnauthorized,
	}, {
		name: "forged X-Remote-User without a client certificate", client: client(nil), path: nodes, headers: forged,
		code: http.StatusForbidden, body: `User \"system:anonymous\"`,
	}, {
		name: "forged X-Remote-User with a client certificate that is not the front proxy's", client: client(&alice), path: nodes, headers: forged,
		code: http.StatusForbidden, body: `User \"alice\" cannot list resource \"nodes\"`,
	}, {
		name: "alice may read discovery: the chain's SubjectAccessReview allows it", client: client(&alice), path: "/apis/metrics.k8s.io/v1",
		code: http.StatusOK,
	}, {
		name: "the front proxy's certificate and X-Remote-User: what the Aggregator sends", client: client(frontProxy), path: nodes,
		headers: map[string]string{"X-Remote-User": "bob", "X-Remote-Group": "system:masters"}, code: http.StatusOK, body: `"kind":"NodeMetricsList"`,
	}, {
		name: "the front proxy's certificate without X-Remote-User", client: client(frontProxy), path: nodes,
		code: http.StatusUnauthorized,
	}, {
		name: "/metrics: the apiserver's and the metrics server's own", client: client(frontProxy), path: "/metrics",
		headers: map[string]string{"X-Remote-User": "bob", "X-Remote-Group": "system:masters"}, code: http.StatusOK,
		body: `metrics_server_kubelet_request_total{success="true"}`,
	}, {
		name: "health checks are open to all: /readyz", client: client(nil), path: "/readyz?verbose", code: http.StatusOK,
		body: "[+]metric-storage-ready ok",
	}, {
		name: "/livez", client: client(nil), path: "/livez?verbose", code: http.StatusOK, body: "[+]metric-collection-timely ok",
	}, {
		name: "/healthz", client: client(nil), path: "/healthz", code: http.StatusOK,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.path
			if strings.HasPrefix(url, "/") {
				url = "https://" + addr + url
			}
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
				t.Errorf("status %d, want %d (and %q in the body); body:\n%s", resp.StatusCode, tc.code, tc.body, body)
			}
		})
	}
}
