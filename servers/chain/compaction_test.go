package chain_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestEtcdCompactionIntervalOption: --etcd-compaction-interval parses into the options,
// defaults to kube-apiserver's 5 minutes, and may not be negative.
func TestEtcdCompactionIntervalOption(t *testing.T) {
	o := chain.NewOptions()
	if o.EtcdCompactionInterval != 5*time.Minute {
		t.Errorf("default %v, want 5m", o.EtcdCompactionInterval)
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	if err := fss.FlagSet("etcd").Parse([]string{"--etcd-compaction-interval=30s"}); err != nil {
		t.Fatal(err)
	}
	if o.EtcdCompactionInterval != 30*time.Second {
		t.Errorf("parsed %v, want 30s", o.EtcdCompactionInterval)
	}
	for _, tc := range []struct {
		interval time.Duration
		want     string // "" for valid
	}{
		{0, ""},
		{time.Second, ""},
		{-time.Second, "--etcd-compaction-interval -1s must not be negative"},
	} {
		all := validationErrors(t, func(o *chain.Options) { o.EtcdCompactionInterval = tc.interval })
		if (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("interval %v: errors %q, want %q", tc.interval, all, tc.want)
		}
	}
}

// TestEtcdCompactionIntervalCompacts: with a one-second interval the chain compacts etcd's
// history within seconds. The first value of a ConfigMap, overwritten since, is then gone
// from etcd: reading the key at its old revision says "compacted".
func TestEtcdCompactionIntervalCompacts(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.EtcdCompactionInterval = time.Second })
	ctx := context.Background()
	cms := kubernetes.NewForConfigOrDie(c.Admin).CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "compacted"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	client := etcdClient(t, c)
	key := "/registry/configmaps/default/compacted"
	// The compactor compacts, at each tick, up to the revision it saw at the tick before: two
	// or three ticks after the update, the first revision is gone.
	testchain.Eventually(t, "etcd compacted past the ConfigMap's first revision", func(ctx context.Context) (bool, error) {
		_, err := client.Get(ctx, key, clientv3.WithRev(first))
		if errors.Is(err, rpctypes.ErrCompacted) {
			return true, nil
		}
		return false, err
	})
}
