package etcdstorage

import (
	"context"
	"strconv"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"

	"github.com/apichain/apichain/internal/tracing"
)

// TestEtcdCallsInTheTrace: with a provider that only records (as `chain` runs), each etcd call
// of a recorded request is a client span below the store's, named and described as otelgrpc
// names and describes it, with the call's gRPC status; calls of no recorded request add
// nothing to the ring.
func TestEtcdCallsInTheTrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	configMaps := configMapsOnEtcd(ctx, t)
	provider, err := tracing.New(ctx, tracing.Options{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Shutdown(ctx)
	clients := NewClients().WithTracing(provider)
	store, destroy, err := clients.NewStore(configMaps, newConfigMap, newConfigMapList, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	defer destroy()

	// Not recorded: the ring hears of none of it.
	first := &corev1.ConfigMap{}
	if err := store.Create(ctx, "/configmaps/default/a", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}}, first, 0); err != nil {
		t.Fatal(err)
	}
	if err := store.GuaranteedUpdate(ctx, "/configmaps/default/a", &corev1.ConfigMap{}, false, nil,
		func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			in.(*corev1.ConfigMap).Data = map[string]string{"k": "v"}
			return in, nil, nil
		}, nil); err != nil {
		t.Fatal(err)
	}
	if traces := provider.Ring().Since(0); len(traces) != 0 {
		t.Fatalf("%d traces of calls no recorded request made", len(traces))
	}
	// Compact past the first revision, so that a read at it fails in etcd.
	clients.mu.Lock()
	var client *cluster
	for _, cl := range clients.byCluster {
		client = cl
	}
	clients.mu.Unlock()
	firstRev, _ := strconv.ParseInt(first.ResourceVersion, 10, 64)
	if _, err := client.client.Compact(ctx, firstRev+1); err != nil {
		t.Fatal(err)
	}

	// A recorded request: a server span, as the chain's head makes for each.
	reqCtx, request := provider.Tracer("test").Start(ctx, "GET", trace.WithSpanKind(trace.SpanKindServer))
	if err := store.Get(reqCtx, "/configmaps/default/a", storage.GetOptions{}, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	// The store refuses a compacted revision itself; the client asks etcd.
	if _, err := client.client.KV.Get(reqCtx, "/registry/configmaps/default/a", clientv3.WithRev(firstRev)); err == nil {
		t.Fatal("a read at a compacted revision succeeded")
	}
	request.End()
	traces := provider.Ring().Since(0)
	if len(traces) != 1 {
		t.Fatalf("%d traces, want the request's", len(traces))
	}
	var calls []*tracing.Span
	under := map[*tracing.Span]string{} // a span -> its parent's name
	var visit func(parent string, s *tracing.Span)
	visit = func(parent string, s *tracing.Span) {
		under[s] = parent
		if s.Kind == "client" {
			calls = append(calls, s)
		}
		for _, c := range s.Children {
			visit(s.Name, c)
		}
	}
	for _, s := range traces[0].Spans {
		visit("", s)
	}
	if len(calls) != 2 {
		t.Fatalf("%d etcd call spans, want the get's and the list's: %+v", len(calls), calls)
	}
	for i, want := range []struct{ method, code, status, parent string }{
		{"etcdserverpb.KV/Range", "OK", "", "Get etcd3"},
		{"etcdserverpb.KV/Range", "OUT_OF_RANGE", "error", "GET"},
	} {
		c := calls[i]
		a := c.Attributes
		if c.Name != want.method || a["rpc.method"] != want.method || a["rpc.system.name"] != "grpc" ||
			a["rpc.response.status_code"] != want.code || c.Status != want.status || a["server.address"] == "" {
			t.Errorf("call %d: %s %v status %q %q; want %s, code %s, status %q, a server", i, c.Name, a, c.Status, c.Message, want.method, want.code, want.status)
		}
		if under[c] != want.parent {
			t.Errorf("call %d hangs below %q, want %q", i, under[c], want.parent)
		}
	}
}
