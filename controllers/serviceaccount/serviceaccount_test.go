package serviceaccount_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestDefaultServiceAccount: every namespace, the ones the chain starts with and new ones, gets
// its default ServiceAccount, and gets it back after it is deleted.
func TestDefaultServiceAccount(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.ServiceAccount} })
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var first types.UID
	for _, ns := range []string{"default", "kube-system", "kube-public", "fresh"} {
		sa := waitDefault(t, c, ns)
		if ns == "fresh" {
			first = sa.UID
		}
	}

	if err := cs.CoreV1().ServiceAccounts("fresh").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if sa := waitDefaultNot(t, c, "fresh", first); sa.Namespace != "fresh" {
		t.Errorf("recreated ServiceAccount %+v", sa.ObjectMeta)
	}
}

func waitDefault(t *testing.T, c *chain.Chain, ns string) *corev1.ServiceAccount {
	t.Helper()
	return waitDefaultNot(t, c, ns, "")
}

// waitDefaultNot waits for the default ServiceAccount of ns whose UID is not old.
func waitDefaultNot(t *testing.T, c *chain.Chain, ns string, old types.UID) *corev1.ServiceAccount {
	t.Helper()
	cs, _ := testchain.Clients(t, c)
	var sa *corev1.ServiceAccount
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		sa, err = cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && sa.UID != old, err
	})
	if err != nil {
		t.Fatalf("default ServiceAccount in %s: %v", ns, err)
	}
	return sa
}
