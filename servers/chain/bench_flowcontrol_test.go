package chain_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	certutil "k8s.io/client-go/util/cert"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// BenchmarkPriorityAndFairness measures what API Priority and Fairness costs a request: the
// same create and get of a ConfigMap sent to the head of a chain with APF (the default) and of
// one with --enable-priority-and-fairness=false (the max-in-flight limits), alternating, both
// in-process like BenchmarkDelegation. The user is an ordinary one (not system:masters, whose
// requests APF exempts), so its requests take APF's whole path: classification by the
// FlowSchemas, the global-default level's queues, the seat accounting. It reports both and the
// overhead in percent.
//
//	go test -run '^$' -bench PriorityAndFairness ./servers/chain
func BenchmarkPriorityAndFairness(b *testing.B) {
	type side struct {
		head http.Handler
		cert *x509.Certificate
	}
	sides := map[bool]*side{}
	for _, apf := range []bool{true, false} {
		c := testchain.Start(b, func(o *chain.Options) { o.EnablePriorityAndFairness = apf })
		head, _ := chain.Handlers(c)
		sides[apf] = &side{head: head, cert: benchUser(b, c)}
	}
	send := func(s *side, method, path string, body []byte, want int) time.Duration {
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Content-Type", "application/json")
		r.TLS = &tls.ConnectionState{HandshakeComplete: true, PeerCertificates: []*x509.Certificate{s.cert}}
		w := httptest.NewRecorder()
		t := time.Now()
		s.head.ServeHTTP(w, r)
		d := time.Since(t)
		if w.Code != want {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return d
	}
	const configMaps = "/api/v1/namespaces/default/configmaps"
	create := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"bench-"},"data":{"k":"v"}}`)
	for _, s := range sides {
		send(s, http.MethodPost, configMaps, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench"},"data":{"k":"v"}}`), http.StatusCreated)
	}
	var creates, gets [2]time.Duration // [0] with APF, [1] without
	round := func() {
		for i, apf := range []bool{true, false} {
			creates[i] += send(sides[apf], http.MethodPost, configMaps, create, http.StatusCreated)
			gets[i] += send(sides[apf], http.MethodGet, configMaps+"/bench", nil, http.StatusOK)
		}
	}
	for range 200 { // warm both (caches, authorizer decisions, APF's queues)
		round()
	}
	creates, gets = [2]time.Duration{}, [2]time.Duration{}
	b.ResetTimer()
	for b.Loop() {
		round()
	}
	n := float64(b.N)
	b.ReportMetric(float64(creates[0].Nanoseconds())/n, "apf-ns/create")
	b.ReportMetric(float64(creates[1].Nanoseconds())/n, "max-in-flight-ns/create")
	b.ReportMetric(float64(gets[0].Nanoseconds())/n, "apf-ns/get")
	b.ReportMetric(float64(gets[1].Nanoseconds())/n, "max-in-flight-ns/get")
	b.ReportMetric(100*(float64(creates[0])/float64(creates[1])-1), "apf-overhead-create-%")
	b.ReportMetric(100*(float64(gets[0])/float64(gets[1])-1), "apf-overhead-get-%")
}

// benchUser is the certificate of user bench, who may create and get ConfigMaps in default
// (once RBAC's informers have the binding).
func benchUser(b *testing.B, c *chain.Chain) *x509.Certificate {
	b.Helper()
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	if _, err := cs.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"create", "get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "bench"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bench"}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	user := testchain.UserConfig(b, c, "bench")
	certs, err := certutil.ParseCertsPEM(user.TLSClientConfig.CertData)
	if err != nil {
		b.Fatal(err)
	}
	userClient := kubernetes.NewForConfigOrDie(user)
	testchain.Eventually(b, "bench's grant in effect", func(ctx context.Context) (bool, error) {
		_, err := userClient.CoreV1().ConfigMaps("default").Get(ctx, "absent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	return certs[0]
}
