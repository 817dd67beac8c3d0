package chaintest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apichain/apichain/internal/etcd"
)

// TestSnapshotHoldsOnlyBootstrapObjects: the copy a ready Environment leaves holds the
// bootstrap policy, the APF configuration and the built-in APIServices, and nothing of the
// Environment's own: no namespace, ConfigMap, ServiceAccount, Service, IP address or Lease,
// and no aggregated ClusterRole (whose rules a controller fills in).
func TestSnapshotHoldsOnlyBootstrapObjects(t *testing.T) {
	env := &Environment{}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	}()
	kvs := snapshotFor(snapshotKind(true))
	held := map[string]bool{}
	for _, kv := range kvs {
		held[kv.Key] = true
		allowed := false
		for _, p := range snapshotPrefixes {
			allowed = allowed || strings.HasPrefix(kv.Key, p.prefix)
		}
		if !allowed {
			t.Errorf("the snapshot holds %s", kv.Key)
		}
	}
	for _, key := range []string{"clusterroles/cluster-admin", "clusterrolebindings/cluster-admin", "roles/kube-system/extension-apiserver-authentication-reader",
		"flowschemas/exempt", "prioritylevelconfigurations/catch-all", "apiregistration.k8s.io/apiservices/v1.apps"} {
		if !held[registryPrefix+key] {
			t.Errorf("the snapshot lacks %s (it holds %d keys)", key, len(kvs))
		}
	}
	for _, key := range []string{"clusterroles/admin", "clusterroles/edit", "clusterroles/view"} {
		if held[registryPrefix+key] {
			t.Errorf("the snapshot holds the aggregated %s", key)
		}
	}
}

// keep stores kvs as the copy of kind, as leaveSnapshot does.
func keep(kind string, kvs []etcd.KeyValue) {
	snapshots.Lock()
	defer snapshots.Unlock()
	if snapshots.byKind == nil {
		snapshots.byKind = map[string][]etcd.KeyValue{}
	}
	snapshots.byKind[kind] = kvs
}

type awaited struct {
	kvs  []etcd.KeyValue
	done func()
}

func await(kind string, timeout time.Duration) <-chan awaited {
	c := make(chan awaited, 1)
	go func() {
		kvs, done := awaitSnapshot(kind, timeout)
		c <- awaited{kvs, done}
	}()
	return c
}

func receive(t *testing.T, c <-chan awaited) awaited {
	t.Helper()
	select {
	case a := <-c:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("awaitSnapshot did not return")
		return awaited{}
	}
}

// TestAwaitSnapshotWaitsForTheOneMakingIt: of Environments starting at once with no copy yet,
// the first makes it and the others wait, then start from it; if the first ends without one,
// the next waiting makes it; a wait ends at the caller's timeout.
func TestAwaitSnapshotWaitsForTheOneMakingIt(t *testing.T) {
	kind := fmt.Sprintf("test=%s-%d", t.Name(), time.Now().UnixNano()) // a kind no run has made
	want := []etcd.KeyValue{{Key: "/registry/clusterroles/cluster-admin", Value: []byte("k8s")}}

	kvs, first := awaitSnapshot(kind, time.Minute)
	if kvs != nil || first == nil {
		t.Fatalf("the first: copy %v, makes it %v; want no copy, and that it makes one", kvs, first != nil)
	}
	second := await(kind, time.Minute)
	select {
	case a := <-second:
		t.Fatalf("the second returned (%v) while the first was making the copy", a.kvs)
	default:
	}
	if a := receive(t, await(kind, time.Millisecond)); a.kvs != nil || a.done != nil {
		t.Errorf("a wait past its timeout: copy %v, makes it %v; want neither", a.kvs, a.done != nil)
	}

	first() // ended without a copy (its start failed): the second makes it
	made := receive(t, second)
	if made.kvs != nil || made.done == nil {
		t.Fatalf("the second: copy %v, makes it %v; want no copy, and that it makes one", made.kvs, made.done != nil)
	}
	third := await(kind, time.Minute)
	keep(kind, want)
	made.done()
	if a := receive(t, third); !slices.EqualFunc(a.kvs, want, func(x, y etcd.KeyValue) bool { return x.Key == y.Key }) || a.done != nil {
		t.Errorf("the third: started from %v, makes one %v; want the copy the second left, and not to make one", a.kvs, a.done != nil)
	}
}
