package chain_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/servers/chain"
)

// validationErrors completes the default options changed by mod (in a temp data dir) and
// returns what Validate says of them, one error a line; "" when they are valid.
func validationErrors(t *testing.T, mod func(*chain.Options)) string {
	t.Helper()
	o := chain.NewOptions()
	o.DataDir = t.TempDir()
	mod(o)
	c, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range c.Validate() {
		got = append(got, e.Error())
	}
	return strings.Join(got, "\n")
}

// etcdClient is a client of c's embedded etcd, found beside its kubeconfig in the data dir, to
// look below the API at what the chain stored; closed when the test ends.
func etcdClient(t *testing.T, c *chain.Chain) *clientv3.Client {
	t.Helper()
	endpoints, err := etcd.ReadEndpoints(filepath.Dir(c.KubeconfigPath))
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}
