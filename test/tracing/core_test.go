package tracing_test

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/testchain"
)

// TestCoreGet: a GET that Core answers passes the Aggregator, which hands it on, then Core,
// which answers; the trace says who asked, how they were authenticated and authorized.
func TestCoreGet(t *testing.T) {
	c := shared
	cs, _ := testchain.Clients(t, c)
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := waitForTrace(t, c, "the GET", requestTo("get", "/api/v1/namespaces/kube-system"))
	if tr.Request.User != "admin" || tr.Request.Code != http.StatusOK || tr.Request.Server != "core" {
		t.Errorf("request: %+v\n%s", tr.Request, tree(tr))
	}
	if len(tr.Spans) != 1 || tr.Spans[0].Kind != "server" {
		t.Fatalf("want one root, the request's server span:\n%s", tree(tr))
	}
	hops := names(tr, func(n string) bool {
		return n == "aggregator" || n == "core" || n == "extensions" || n == tracing.SpanAuthentication || n == tracing.SpanAuthorization
	})
	if want := []string{tracing.SpanAuthentication, tracing.SpanAuthorization, "aggregator", "core"}; !ordered(hops, want) || find(tr, "extensions") != nil {
		t.Errorf("hops %v, want %v in order and no extensions\n%s", hops, want, tree(tr))
	}
	authn := mustFind(t, tr, tracing.SpanAuthentication)
	if authn.Attributes[tracing.AttrAuthenticator] != "x509" || authn.Attributes[tracing.AttrUser] != "admin" {
		t.Errorf("authentication: %v", authn.Attributes)
	}
	authz := mustFind(t, tr, tracing.SpanAuthorization)
	if a := authz.Attributes; a[tracing.AttrDecision] != "allow" || a[tracing.AttrAuthorizer] != "kubernetes.io/system-privileged-group" || a[tracing.AttrVerb] != "get" {
		t.Errorf("authorization: %v", a)
	}
	agg := mustFind(t, tr, "aggregator")
	if agg.Attributes[tracing.AttrHandedOnBecause] == "" || agg.Attributes[tracing.AttrAnswered] == "true" {
		t.Errorf("aggregator: %v", agg.Attributes)
	}
	if core := mustFind(t, tr, "core"); core.Attributes[tracing.AttrAnswered] != "true" {
		t.Errorf("core: %v", core.Attributes)
	}
}
