package chaintest_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/chaintest"
	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/servers/chain"
)

// TestSnapshotStartsLikeAFreshEnvironment: an Environment started from the bootstrap snapshot
// that an earlier one left ends up with the same keys in etcd as one that wrote everything
// itself, the same RBAC policy, and its own CA where the CA is published.
func TestSnapshotStartsLikeAFreshEnvironment(t *testing.T) {
	// The first of the process leaves the snapshot, if no Environment has yet.
	start(t, &chaintest.Environment{})

	var progress bytes.Buffer
	seeded := &chaintest.Environment{Progress: &progress}
	start(t, seeded)
	if !strings.Contains(progress.String(), "etcd: seeded with") {
		t.Fatalf("the second Environment did not start from the snapshot; its progress:\n%s", progress.String())
	}
	// An empty seed: the snapshot is not used, every bootstrap object is written by the hooks.
	fresh := &chaintest.Environment{ChainOptions: func(o *chain.Options) { o.EtcdSeed = []etcd.KeyValue{} }}
	start(t, fresh)

	// The controllers add ServiceAccounts and ConfigMaps after Start: wait for both stores
	// to hold the same keys.
	var got, want []string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, want = storedKeys(t, seeded.DataDir), storedKeys(t, fresh.DataDir)
		return slices.Equal(got, want), nil
	})
	if err != nil {
		t.Fatalf("keys in etcd\nfrom the snapshot: %v\nfresh:             %v", got, want)
	}

	// The policy as the API serves it, the aggregated roles' rules included (filled in by
	// each Environment's own clusterrole-aggregation controller).
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return reflect.DeepEqual(clusterRoles(t, seeded), clusterRoles(t, fresh)), nil
	})
	if err != nil {
		t.Errorf("the ClusterRoles differ:\nfrom the snapshot: %v\nfresh:             %v", clusterRoles(t, seeded), clusterRoles(t, fresh))
	}

	// Without the clusterrole-aggregation controller the aggregated roles stay as the policy
	// has them, empty: the copy must not carry the rules another Environment's controller added.
	bare := &chaintest.Environment{Controllers: []string{}}
	start(t, bare)
	if admin := clusterRoles(t, bare)["admin"]; admin.AggregationRule == nil || len(admin.Rules) > 0 {
		t.Errorf("ClusterRole admin without the aggregation controller: %d rules, aggregation rule %v; want none and one", len(admin.Rules), admin.AggregationRule)
	}

	// What names this Environment's CAs is its own.
	pem := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	cs := kubernetes.NewForConfigOrDie(seeded.Config)
	auth, err := cs.CoreV1().ConfigMaps("kube-system").Get(context.Background(), "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(auth.Data["client-ca-file"], pem(seeded.Chain().PKI.ClientCACert)) {
		t.Errorf("extension-apiserver-authentication's client-ca-file is not this Environment's client CA")
	}
	root, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(root.Data["ca.crt"]) != pem(seeded.Chain().PKI.ServerCACert) {
		t.Errorf("kube-root-ca.crt is not this Environment's CA")
	}
}

// storedKeys lists the keys in an Environment's etcd; the apiserver identity Lease's name,
// which differs from one chain to another, is cut to its prefix.
func storedKeys(t *testing.T, dataDir string) []string {
	t.Helper()
	endpoints, err := etcd.ReadEndpoints(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	resp, err := client.Get(context.Background(), "/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		key := string(kv.Key)
		if rest, ok := strings.CutPrefix(key, "/registry/leases/kube-system/apiserver-"); ok && rest != "" {
			key = "/registry/leases/kube-system/apiserver-…"
		}
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// clusterRoles is what the API serves of every ClusterRole, without what differs between any
// two stores (UIDs, times, resource versions).
func clusterRoles(t *testing.T, env *chaintest.Environment) map[string]rbacv1.ClusterRole {
	t.Helper()
	list, err := kubernetes.NewForConfigOrDie(env.Config).RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]rbacv1.ClusterRole{}
	for _, r := range list.Items {
		r.ObjectMeta = metav1.ObjectMeta{Name: r.Name, Labels: r.Labels, Annotations: r.Annotations}
		out[r.Name] = r
	}
	return out
}
