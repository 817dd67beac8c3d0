package chain_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// TestRestartKeepsObjectsAndPKI stops a chain and starts another on the same data dir: objects,
// allocations and certificates are all still there.
func TestRestartKeepsObjectsAndPKI(t *testing.T) {
	dir := t.TempDir()
	start := func() *testchain.Chain {
		c, err := testchain.StartIn(dir, nil, func(o *chain.Options) {
			o.UnsafeNoFsync = false // this is about durability
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()

	c := start()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "survivor"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := cs.CoreV1().Services("default").Create(ctx, coretest.Service("kept", "", ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A Service whose address has no IPAddress, as one stored before the chain allocated
	// addresses as IPAddress objects: the start gives it one back.
	orphan, err := cs.CoreV1().Services("default").Create(ctx, coretest.Service("unrecorded", "", ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.NetworkingV1().IPAddresses().Delete(ctx, orphan.Spec.ClusterIP, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err := c.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	c = start()
	defer c.Stop()
	cs = kubernetes.NewForConfigOrDie(c.Admin)
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "survivor", metav1.GetOptions{})
	if err != nil || cm.Data["k"] != "v" {
		t.Fatalf("configmap after restart: %v %v", err, cm)
	}
	again, err := cs.CoreV1().Services("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || again.Spec.ClusterIP != svc.Spec.ClusterIP {
		t.Fatalf("service after restart: %v", err)
	}
	// The allocation survived too: the address cannot be handed out again.
	for _, ip := range []string{svc.Spec.ClusterIP, orphan.Spec.ClusterIP} {
		if _, err := cs.CoreV1().Services("default").Create(ctx, coretest.Service("thief", "", ip), metav1.CreateOptions{}); err == nil {
			t.Errorf("clusterIP %s was allocated twice after a restart", ip)
		}
	}
	if a, err := cs.NetworkingV1().IPAddresses().Get(ctx, orphan.Spec.ClusterIP, metav1.GetOptions{}); err != nil || a.Spec.ParentRef.Name != "unrecorded" {
		t.Errorf("the IPAddress of a Service that had none: %v %+v", err, a)
	}
	ca2, _ := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if !bytes.Equal(ca, ca2) || len(ca) == 0 {
		t.Errorf("the server CA changed across a restart")
	}
}
