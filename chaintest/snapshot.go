package chaintest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apichain/apichain/internal/etcd"
)

// The bootstrap snapshot. Every chain, once it serves, writes the same objects into its new
// etcd through its post-start hooks, each a request through the whole chain: about 150 RBAC
// roles and bindings of the bootstrap policy, the API Priority and Fairness configuration, and
// an APIService for every built-in group version. The first Environment of the process that
// starts on a new data dir leaves a copy of those keys here once it is ready; a later
// Environment's etcd is given them before its servers start (servers/chain's EtcdSeed), so
// its hooks find them in place, compare, and write nothing.
//
// What the copy holds is chosen by what marks each object as bootstrap's own, so nothing of
// one Environment's own reaches another: the RBAC objects labelled
// kubernetes.io/bootstrapping=rbac-defaults, except the aggregated ClusterRoles (admin, edit,
// view, …), whose rules the clusterrole-aggregation controller fills in when an Environment
// runs it; the FlowSchemas and PriorityLevelConfigurations annotated as bootstrap's
// (apf.kubernetes.io/autoupdate-spec); the APIServices registered at start
// (kube-aggregator.kubernetes.io/automanaged=onstart). Everything tied to one Environment
// stays out and is written by its own hooks and controllers as before: the namespaces (their
// UIDs), the kubernetes Service and its ClusterIP, the ConfigMaps that carry its CAs, its
// ServiceAccounts, its Leases. The copied objects keep the first Environment's UIDs and
// creation times: no two Environments share a store, so no one can tell.
//
// One copy per value of what changes those objects: with API Priority and Fairness on, its
// controller writes the FlowSchemas' status, which a chain without it never does.
//
// Environments started side by side before any copy exists (t.Parallel tests, a suite's
// Environments started at once) would each write the objects themselves: the first makes the
// copy, and the others wait for it (awaitSnapshot). Twenty at once were ready in ~6 s instead
// of ~8 on two cores (docs/performance.md).
var snapshots struct {
	sync.Mutex
	byKind map[string][]etcd.KeyValue
	making map[string]chan struct{} // closed once the Environment making that copy is done
}

// snapshotsOff turns the snapshot off for this process: for the benchmark that measures it.
var snapshotsOff atomic.Bool

// snapshotKind names the copy an Environment with these options starts from.
func snapshotKind(apf bool) string { return "priority-and-fairness=" + strconv.FormatBool(apf) }

// snapshotFor returns the copy for an Environment of that kind, nil if there is none yet.
// The slice and its values are never written after they are stored: Environments starting
// at once read them without a lock.
func snapshotFor(kind string) []etcd.KeyValue {
	if snapshotsOff.Load() {
		return nil
	}
	snapshots.Lock()
	defer snapshots.Unlock()
	return snapshots.byKind[kind]
}

// awaitSnapshot returns the copy of kind. If there is none yet and another Environment is
// making it, it waits for that one's start to end (at most timeout, then the caller goes on
// without a copy). If none is being made, the caller makes it: awaitSnapshot returns no copy
// and made, a func that the caller calls once its start is over, copy left or not; if not,
// one of those waiting makes it next. made is nil for every other caller.
func awaitSnapshot(kind string, timeout time.Duration) (kvs []etcd.KeyValue, made func()) {
	if snapshotsOff.Load() {
		return nil, nil
	}
	deadline := time.After(timeout)
	for {
		snapshots.Lock()
		if kvs, ok := snapshots.byKind[kind]; ok {
			snapshots.Unlock()
			return kvs, nil
		}
		if making, ok := snapshots.making[kind]; ok {
			snapshots.Unlock()
			select {
			case <-making:
				continue
			case <-deadline:
				return nil, nil
			}
		}
		if snapshots.making == nil {
			snapshots.making = map[string]chan struct{}{}
		}
		making := make(chan struct{})
		snapshots.making[kind] = making
		snapshots.Unlock()
		return nil, sync.OnceFunc(func() {
			snapshots.Lock()
			delete(snapshots.making, kind)
			snapshots.Unlock()
			close(making)
		})
	}
}

// snapshotPrefixes are where the copied kinds live in etcd, and which of their objects are
// bootstrap's.
var snapshotPrefixes = []struct {
	prefix string
	keep   func(*storedObject) bool
}{
	{registryPrefix + "clusterroles/", rbacDefault(true)},
	{registryPrefix + "clusterrolebindings/", rbacDefault(false)},
	{registryPrefix + "roles/", rbacDefault(false)},
	{registryPrefix + "rolebindings/", rbacDefault(false)},
	{registryPrefix + "flowschemas/", apfBootstrap},
	{registryPrefix + "prioritylevelconfigurations/", apfBootstrap},
	{registryPrefix + "apiregistration.k8s.io/apiservices/", func(o *storedObject) bool {
		return o.meta.Labels["kube-aggregator.kubernetes.io/automanaged"] == "onstart"
	}},
}

// rbacDefault keeps the bootstrap policy's objects; for ClusterRoles, not the aggregated ones.
func rbacDefault(clusterRoles bool) func(*storedObject) bool {
	return func(o *storedObject) bool {
		if o.meta.Labels["kubernetes.io/bootstrapping"] != "rbac-defaults" {
			return false
		}
		// A ClusterRole's field 3 is its aggregationRule.
		_, err := protobufField(o.proto, 3)
		return !clusterRoles || err != nil
	}
}

func apfBootstrap(o *storedObject) bool {
	_, ok := o.meta.Annotations["apf.kubernetes.io/autoupdate-spec"]
	return ok
}

// leaveSnapshot reads the bootstrap's keys from a ready Environment that started on a new
// data dir and keeps them as the copy of its kind, unless there is one already.
func leaveSnapshot(ctx context.Context, client *clientv3.Client, kind string) error {
	if snapshotsOff.Load() {
		return nil
	}
	snapshots.Lock()
	_, done := snapshots.byKind[kind]
	snapshots.Unlock()
	if done {
		return nil
	}
	// One read at one revision, so the copy is one moment of one store.
	var ops []clientv3.Op
	for _, p := range snapshotPrefixes {
		ops = append(ops, clientv3.OpGet(p.prefix, clientv3.WithPrefix()))
	}
	resp, err := client.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("reading the bootstrap objects: %w", err)
	}
	var kvs []etcd.KeyValue
	for i, r := range resp.Responses {
		for _, kv := range r.GetResponseRange().Kvs {
			o, err := decodeStored(string(kv.Key), kv.Value)
			if err != nil {
				return err
			}
			if snapshotPrefixes[i].keep(o) {
				kvs = append(kvs, etcd.KeyValue{Key: string(kv.Key), Value: kv.Value})
			}
		}
	}
	snapshots.Lock()
	defer snapshots.Unlock()
	if snapshots.byKind == nil {
		snapshots.byKind = map[string][]etcd.KeyValue{}
	}
	if _, done := snapshots.byKind[kind]; !done {
		snapshots.byKind[kind] = kvs
	}
	return nil
}
