package etcdstorage

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/apichain/apichain/internal/etcd"
)

// TestStoresShareOneClient builds two stores of one etcd on the real embedded etcd and checks
// that they share one client, that what one writes the other reads and watches, and that the
// client is closed with the last store.
func TestStoresShareOneClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	configMaps := configMapsOnEtcd(ctx, t)
	clients := NewClients()
	writer, destroyWriter, err := clients.NewStore(configMaps, newConfigMap, newConfigMapList, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	reader, destroyReader, err := clients.NewStore(configMaps, newConfigMap, newConfigMapList, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	clients.mu.Lock()
	if len(clients.byCluster) != 1 {
		t.Errorf("%d clients for one etcd, want 1", len(clients.byCluster))
	}
	var shared *cluster
	for _, cl := range clients.byCluster {
		if shared = cl; cl.stores != 2 {
			t.Errorf("the client has %d stores, want 2", cl.stores)
		}
	}
	clients.mu.Unlock()

	w, err := reader.Watch(ctx, "/configmaps/default/", storage.ListOptions{ResourceVersion: "0", Predicate: storage.Everything, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if err := writer.Create(ctx, "/configmaps/default/a", in, &corev1.ConfigMap{}, 0); err != nil {
		t.Fatal(err)
	}
	got := &corev1.ConfigMap{}
	if err := reader.Get(ctx, "/configmaps/default/a", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if got.Data["k"] != "v" {
		t.Errorf("read %v, want the data written", got.Data)
	}
	select {
	case ev := <-w.ResultChan():
		if cm, ok := ev.Object.(*corev1.ConfigMap); !ok || cm.Name != "a" {
			t.Errorf("watched %s %#v, want the ConfigMap written", ev.Type, ev.Object)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the watch of the second store saw nothing of the first's write")
	}

	destroyWriter()
	destroyWriter() // destroy funcs run more than once upstream; only the first counts
	if err := reader.Get(ctx, "/configmaps/default/a", storage.GetOptions{}, got); err != nil {
		t.Errorf("the second store after the first is gone: %v", err)
	}
	destroyReader()
	clients.mu.Lock()
	left := len(clients.byCluster)
	clients.mu.Unlock()
	if left != 0 {
		t.Errorf("%d clients left after the last store, want 0", left)
	}
	if shared.client.Ctx().Err() == nil {
		t.Error("the shared client is still open after the last store")
	}
}

// configMapsOnEtcd starts the real embedded etcd, stopped with ctx or the test, and returns
// the storage configuration of ConfigMaps in it, as the chain's would be.
func configMapsOnEtcd(ctx context.Context, t *testing.T) *storagebackend.ConfigForResource {
	t.Helper()
	server, err := etcd.Start(ctx, etcd.Config{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	v1 := corev1.SchemeGroupVersion
	config := storagebackend.NewDefaultConfig("/registry", codecs.CodecForVersions(codecs.LegacyCodec(v1), codecs.UniversalDecoder(v1), v1, v1))
	config.Transport.ServerList = []string{server.ClientURL}
	return config.ForResource(schema.GroupResource{Resource: "configmaps"})
}

func newConfigMap() runtime.Object     { return &corev1.ConfigMap{} }
func newConfigMapList() runtime.Object { return &corev1.ConfigMapList{} }
