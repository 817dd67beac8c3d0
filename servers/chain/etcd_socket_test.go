package chain_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/commands"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestEtcdSocketServesEtcdctlAndASecondInstance: the embedded etcd is a unix socket in the
// data dir, named in <data-dir>/etcd-endpoints; through it `chain etcdctl` reads, and a second
// instance (docs/07, docs/examples/second-instance.sh) serves the same objects.
func TestEtcdSocketServesEtcdctlAndASecondInstance(t *testing.T) {
	dir := filepath.Dir(shared.KubeconfigPath)
	b, err := os.ReadFile(filepath.Join(dir, "etcd-endpoints"))
	if err != nil {
		t.Fatal(err)
	}
	endpoints := strings.Fields(string(b))
	if want := "unix://" + filepath.Join(dir, "etcd", "etcd.sock"); len(endpoints) != 1 || endpoints[0] != want {
		t.Fatalf("etcd-endpoints %q, want %s", b, want)
	}

	cmd := commands.NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"etcdctl", "--data-dir", dir, "get", "/registry/namespaces/kube-system"})
	if err := cmd.ExecuteContext(context.Background()); err != nil || !strings.Contains(out.String(), "kind: Namespace") {
		t.Errorf("chain etcdctl get: %v\n%s", err, out.String())
	}

	second := testchain.Start(t, func(o *chain.Options) {
		o.EtcdServers = endpoints
		o.PKIDir = filepath.Join(dir, "pki")
	})
	ctx := context.Background()
	name := "through-the-second-instance"
	if _, err := kubernetes.NewForConfigOrDie(second.Admin).CoreV1().ConfigMaps("default").Create(ctx,
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer kubernetes.NewForConfigOrDie(shared.Admin).CoreV1().ConfigMaps("default").Delete(ctx, name, metav1.DeleteOptions{})
	if _, err := kubernetes.NewForConfigOrDie(shared.Admin).CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Errorf("the first instance does not see what the second wrote: %v", err)
	}
}
