package chaintest

import (
	"strings"
	"testing"
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
