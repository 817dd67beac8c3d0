package tracing_test

import (
	"context"
	"net/http"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestTokenAuthenticationCached: as kube-apiserver, the chain keeps a token's successful
// authentication for a while (10 s) and does not check the token again when it comes back; the
// trace of a request it let in that way still names the authenticator that accepted the token.
func TestTokenAuthenticationCached(t *testing.T) {
	c := shared
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	ns := testchain.Namespace(t, c)
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "cached"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "cached", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	robot := rest.AnonymousClientConfig(c.Admin)
	robot.BearerToken = tr.Status.Token
	user := "system:serviceaccount:" + ns + ":cached"

	hits := cacheHits(t, c)
	const requests = 3
	for range requests {
		if resp, body := testchain.Do(t, robot, http.MethodGet, "/api", nil, ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api with the token: %d %s", resp.StatusCode, body)
		}
	}
	if now := cacheHits(t, c); now < hits+requests-1 {
		t.Errorf("authentication_token_cache_request_total{status=\"hit\"} went from %d to %d over %d requests with one token; want the token checked once", hits, now, requests)
	}

	checked := map[string]bool{} // trace IDs
	waitForTrace(t, c, "the three GETs of /api with the token", func(tr *tracing.Trace) bool {
		if tr.Request.Path != "/api" || tr.Request.User != user {
			return false
		}
		if !checked[tr.TraceID] {
			checked[tr.TraceID] = true
			a := mustFind(t, tr, tracing.SpanAuthentication).Attributes
			if a[tracing.AttrAuthenticator] != "service-account" || a[tracing.AttrUser] != user {
				t.Errorf("authentication of a GET with the token: %v", a)
			}
		}
		return len(checked) == requests
	})
}

// cacheHits reads k8s.io/apiserver's count of token authentications its cache answered.
func cacheHits(t *testing.T, c *chain.Chain) int {
	t.Helper()
	hits := 0.0
	for _, m := range testchain.Metrics(t, c)["authentication_token_cache_request_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "status" && l.GetValue() == "hit" {
				hits += m.GetCounter().GetValue()
			}
		}
	}
	return int(hits)
}
