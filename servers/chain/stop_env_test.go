package chain_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestStopCleansUpThroughTheChain stops a chain that leads the controllers and runs a metrics
// server, on an etcd of the test's own, and reads what it left with a second chain on that
// etcd: its pre-shutdown work, whose steps run side by side, still went through the first
// chain before it stopped taking requests. Its identity Lease is deleted, the controllers'
// Lease handed over (no holder: the next leader takes it at once), and the metrics server's
// APIServices withdrawn.
func TestStopCleansUpThroughTheChain(t *testing.T) {
	member, err := etcd.Start(context.Background(), etcd.Config{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	onMember := func(o *chain.Options) { o.EtcdServers = []string{member.ClientURL} }
	ctx := context.Background()

	first, err := testchain.StartIn(t.TempDir(), nil, onMember, func(o *chain.Options) {
		o.Controllers = []string{controllers.Namespace} // with --leader-elect, the default
		o.Metrics = chain.MetricsInProcess
	})
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(first.Admin)
	ac := aggregatorclient.NewForConfigOrDie(first.Admin)
	var identity string
	testchain.Eventually(t, "the first chain's identity Lease and the controllers' Lease", func(ctx context.Context) (bool, error) {
		ids, err := cs.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity"})
		if err != nil || len(ids.Items) != 1 {
			return false, nil
		}
		identity = ids.Items[0].Name
		l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, "apichain-controller-manager", metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == identity, nil
	})
	testchain.Eventually(t, "the metrics server's registration", func(ctx context.Context) (bool, error) {
		_, err := ac.ApiregistrationV1().APIServices().Get(ctx, "v1beta1.metrics.k8s.io", metav1.GetOptions{})
		return err == nil, nil
	})
	if err := first.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	second := testchain.Start(t, onMember) // no controllers, no metrics server: it changes none of these
	cs = kubernetes.NewForConfigOrDie(second.Admin)
	ac = aggregatorclient.NewForConfigOrDie(second.Admin)
	if _, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, identity, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the stopped chain's identity Lease %s: %v, want NotFound", identity, err)
	}
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, "apichain-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := l.Spec.HolderIdentity; h != nil && *h != "" {
		t.Errorf("the controllers' Lease is still held by %q after a graceful stop", *h)
	}
	for _, name := range []string{"v1beta1.metrics.k8s.io", "v1.metrics.k8s.io"} {
		if _, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("APIService %s after the metrics server stopped: %v, want NotFound", name, err)
		}
	}
}
