package rootcacertpublisher_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/controllers/rootcacertpublisher"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestRootCAConfigMap: every namespace gets kube-root-ca.crt holding the chain's server CA, the
// CA that verifies the chain's serving certificate; a changed copy is put back.
func TestRootCAConfigMap(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.RootCACertificatePublisher} })
	cs, _ := testchain.Clients(t, c)
	ctx := context.Background()
	ca, err := os.ReadFile(filepath.Join(filepath.Dir(c.KubeconfigPath), "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fresh"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"default", "kube-system", "fresh"} {
		waitCA(t, c, ns, string(ca))
	}

	// The published CA verifies the chain's serving certificate, as a pod would use it.
	cm, err := cs.CoreV1().ConfigMaps("fresh").Get(ctx, rootcacertpublisher.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Annotations[rootcacertpublisher.DescriptionAnnotation] != rootcacertpublisher.Description {
		t.Errorf("annotations %v", cm.Annotations)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data[rootcacertpublisher.CertKey])) {
		t.Fatal("ca.crt holds no certificate")
	}
	servingPEM, err := os.ReadFile(filepath.Join(filepath.Dir(c.KubeconfigPath), "pki", "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(servingPEM)
	serving, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serving.Verify(x509.VerifyOptions{Roots: pool, DNSName: "kubernetes.default.svc"}); err != nil {
		t.Errorf("kube-root-ca.crt does not verify the chain's serving certificate for kubernetes.default.svc: %v", err)
	}

	// Tampered with: put back.
	cm.Data[rootcacertpublisher.CertKey] = "tampered"
	if _, err := cs.CoreV1().ConfigMaps("fresh").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCA(t, c, "fresh", string(ca))
	// Deleted: made again.
	if err := cs.CoreV1().ConfigMaps("fresh").Delete(ctx, rootcacertpublisher.ConfigMapName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCA(t, c, "fresh", string(ca))
}

func waitCA(t *testing.T, c *chain.Chain, ns, ca string) {
	t.Helper()
	cs, _ := testchain.Clients(t, c)
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, rootcacertpublisher.ConfigMapName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && cm.Data[rootcacertpublisher.CertKey] == ca, err
	})
	if err != nil {
		t.Fatalf("kube-root-ca.crt in %s: %v", ns, err)
	}
}
