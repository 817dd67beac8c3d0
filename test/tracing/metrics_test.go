package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestMetricsHop: a NodeMetrics GET (what `kubectl top node` sends) passes the Aggregator, which
// proxies it to the metrics server (APIService, Service, endpoint, status); in the same trace,
// the metrics server's own span, its delegated authorization's SubjectAccessReview back to the
// chain (a request of the chain's, traced as such), and its storage read.
func TestMetricsHop(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.RecordTraces = true
		o.Metrics = chain.MetricsInProcess
		o.Controllers = []string{"*"}
		o.MetricResolution = time.Second
	})
	mc := metricsclient.NewForConfigOrDie(c.Admin)
	var node string
	testchain.WaitFor(t, func() bool {
		nodes, err := mc.MetricsV1beta1().NodeMetricses().List(context.Background(), metav1.ListOptions{})
		if err != nil || len(nodes.Items) == 0 {
			return false
		}
		node = nodes.Items[0].Name
		return true
	})
	// The user is one the metrics server has not seen, so its SubjectAccessReview is not
	// cached: it is sent back to the chain within this request.
	// Not in system:masters, which the metrics server allows without asking.
	cs, _ := testchain.Clients(t, c)
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "test-node-metrics-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"nodes"}, Verbs: []string{"get"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "metrics-viewer"}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	vc := metricsclient.NewForConfigOrDie(testchain.UserConfig(t, c, "metrics-viewer"))
	testchain.WaitFor(t, func() bool {
		_, err := vc.MetricsV1beta1().NodeMetricses().Get(context.Background(), node, metav1.GetOptions{})
		return err == nil
	})
	path := "/apis/metrics.k8s.io/v1beta1/nodes/" + node
	tr := waitForTrace(t, c, "the NodeMetrics GET", func(tr *tracing.Trace) bool {
		return tr.Request.Path == path && tr.Request.User == "metrics-viewer" && tr.Request.Code == http.StatusOK
	})
	if tr.Request.Code != http.StatusOK || tr.Request.Server != "remote:v1beta1.metrics.k8s.io" {
		t.Errorf("request: %+v\n%s", tr.Request, tree(tr))
	}
	agg := mustFind(t, tr, "aggregator")
	if why := agg.Attributes[tracing.AttrHandedOnBecause]; !strings.Contains(why, "APIService v1beta1.metrics.k8s.io names Service kube-system/metrics-server:443") {
		t.Errorf("aggregator handed on because %q", why)
	}
	proxy := mustFind(t, tr, tracing.SpanProxy)
	if a := proxy.Attributes; a[tracing.AttrAPIService] != "v1beta1.metrics.k8s.io" || a[tracing.AttrService] != "kube-system/metrics-server:443" ||
		a[tracing.AttrEndpoint] == "" || a[tracing.AttrStatusCode] != "200" {
		t.Errorf("proxy: %v", a)
	}
	// The metrics server serves the request for a user outside system:masters, whose trace
	// context k8s.io/apiserver does not continue (a public endpoint): its spans are a trace of
	// their own, linked to the proxy's call.
	call := find(tr, "HTTP GET")
	if call == nil || !within(proxy, call) {
		t.Fatalf("no call below the proxy:\n%s", tree(tr))
	}
	remote := waitForTrace(t, c, "the metrics server's side", func(other *tracing.Trace) bool {
		return other.TraceID != tr.TraceID && len(other.Spans) > 0 && other.Spans[0].Service == "metrics-server" &&
			other.Request.Path == path && linksTo(other.Spans[0], tr.TraceID, call.SpanID)
	})
	if find(remote, "Get") == nil {
		t.Errorf("the metrics server's storage read is not in its trace:\n%s", tree(remote))
	}
	// Its SubjectAccessReview back to the chain: a request of the chain's, linked to the
	// metrics server's trace.
	review := waitForTrace(t, c, "the SubjectAccessReview", func(other *tracing.Trace) bool {
		return other.Request.Path == "/apis/authorization.k8s.io/v1/subjectaccessreviews" && other.Request.User == "system:metrics-server" &&
			len(other.Spans) > 0 && linksTo(other.Spans[0], remote.TraceID, "")
	})
	if a := mustFind(t, review, tracing.SpanAuthorization).Attributes; a[tracing.AttrDecision] != "allow" {
		t.Errorf("the review's authorization: %v", a)
	}
}

// linksTo says whether s links to a span of trace traceID (spanID too, unless empty).
func linksTo(s *tracing.Span, traceID, spanID string) bool {
	for _, l := range s.Links {
		if l.TraceID == traceID && (spanID == "" || l.SpanID == spanID) {
			return true
		}
	}
	return false
}

// within says whether inner is below outer in the tree.
func within(outer, inner *tracing.Span) bool {
	found := false
	walk(outer.Children, func(s *tracing.Span, _ int) { found = found || s == inner })
	return found
}
