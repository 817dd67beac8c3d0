package controllers_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestControllersFinishAfterARestart: work left when the chain stopped — a namespace deleted
// while no namespace controller ran, an owner deleted while no garbage collector ran — is done
// by the controllers of the next chain on the same data dir.
func TestControllersFinishAfterARestart(t *testing.T) {
	dir := t.TempDir()
	start := func(enabled ...string) (*testchain.Chain, kubernetes.Interface) {
		c, err := testchain.StartIn(dir, nil, func(o *chain.Options) { o.Controllers = enabled })
		if err != nil {
			t.Fatal(err)
		}
		return c, kubernetes.NewForConfigOrDie(c.Admin)
	}
	ctx := context.Background()

	c, cs := start() // no controllers at all
	for _, ns := range []string{"doomed", "kept"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := cs.CoreV1().ConfigMaps("doomed").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	owner, err := cs.CoreV1().ConfigMaps("kept").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("kept").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps("kept").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Nothing finalizes the namespace nor collects the dependent.
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("deleted namespace before the restart: %v %+v", err, ns)
	}
	if _, err := cs.CoreV1().ConfigMaps("kept").Get(ctx, "dependent", metav1.GetOptions{}); err != nil {
		t.Fatalf("dependent before the restart: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	c, cs = start(controllers.Namespace, controllers.GarbageCollector)
	defer c.Stop()
	poll(t, "the namespace finalized", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if l, err := cs.CoreV1().ConfigMaps("doomed").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("content of the finalized namespace: %v %v", err, l)
	}
	poll(t, "the dependent collected", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ConfigMaps("kept").Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
