package etcd_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/apichain/apichain/internal/etcd"
)

// TestSeedOnlyAnEmptyMember: a new member gets every key of its seed, more than one
// transaction holds; a member restarted on its data keeps what it holds and is not seeded.
func TestSeedOnlyAnEmptyMember(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "etcd")
	var seed []etcd.KeyValue
	for i := range 300 {
		seed = append(seed, etcd.KeyValue{Key: fmt.Sprintf("/registry/things/%03d", i), Value: []byte(fmt.Sprint(i))})
	}
	member, err := etcd.Start(context.Background(), etcd.Config{Dir: dir, UnsafeNoFsync: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if !member.Seeded {
		t.Error("a new member was not seeded")
	}
	if got := count(t, member); got != len(seed) {
		t.Errorf("%d keys after seeding, want %d", got, len(seed))
	}
	member.Close()

	member, err = etcd.Start(context.Background(), etcd.Config{Dir: dir, UnsafeNoFsync: true, Seed: []etcd.KeyValue{{Key: "/registry/other", Value: []byte("x")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	if member.Seeded {
		t.Error("a member with keys was seeded again")
	}
	if got := count(t, member); got != len(seed) {
		t.Errorf("%d keys after a restart, want the %d it held", got, len(seed))
	}
}

func count(t *testing.T, member *etcd.Server) int {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{member.ClientURL}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	resp, err := client.Get(context.Background(), "/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return int(resp.Count)
}
