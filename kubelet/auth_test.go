package kubelet_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/internal/pki"
)

// TestEndpointAuthenticatesAndAuthorizes: the kubelet endpoint answers only callers the chain
// vouches for (client certificates of its client CA, tokens it accepts) and lets them do only
// what RBAC allows on the node's subresources, as a kubelet with webhook authorization does.
func TestEndpointAuthenticatesAndAuthorizes(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	node := cl.readyNode(t, "sim-node-1")
	metrics := metricsURL(node)
	healthz := "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))) + "/healthz"

	certOf := func(files pki.Files, user string, groups ...string) *tls.Certificate {
		certPEM, keyPEM, err := pki.IssueClientCert(files, user, groups)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	// Another PKI: its client CA is not the chain's.
	other := pki.FilesIn(t.TempDir())
	if _, err := pki.Ensure(other, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	// A service account the chain knows, allowed nothing on nodes.
	ns := newNamespace(t, cl.client)
	if _, err := cl.client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cl.client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		cert     *tls.Certificate
		token    string
		url      string
		want     int
		wantBody string
	}{
		{name: "no credentials", url: metrics, want: http.StatusUnauthorized, wantBody: "Unauthorized"},
		{name: "admin of another CA", cert: certOf(other, "admin", "system:masters"), url: metrics, want: http.StatusUnauthorized},
		{name: "unknown token", token: "not-a-token", url: metrics, want: http.StatusUnauthorized},
		{name: "a user of the client CA allowed nothing", cert: certOf(cl.files, "nobody"), url: metrics, want: http.StatusForbidden,
			wantBody: "Forbidden (user=nobody, verb=get, resource=nodes, subresource(s)=[metrics])"},
		{name: "a service account allowed nothing", token: tr.Status.Token, url: metrics, want: http.StatusForbidden,
			wantBody: "user=system:serviceaccount:" + ns + ":robot"},
		{name: "the metrics server reads metrics", cert: certOf(cl.files, "system:metrics-server"), url: metrics, want: http.StatusOK},
		{name: "but nothing else", cert: certOf(cl.files, "system:metrics-server"), url: healthz, want: http.StatusForbidden,
			wantBody: "subresource(s)=[healthz proxy]"},
		{name: "admin", cert: certOf(cl.files, "admin", "system:masters"), url: healthz, want: http.StatusOK, wantBody: "ok"},
	} {
		client, err := httpsClient(cl.files, tc.cert)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodGet, tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || !strings.Contains(string(body), tc.wantBody) {
			t.Errorf("%s: %s %q, want %d and %q", tc.name, resp.Status, body, tc.want, tc.wantBody)
		}
	}
}
