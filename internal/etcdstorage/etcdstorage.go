// Package etcdstorage builds the etcd3 stores under every server of the chain (Core,
// ApiExtensions, the Aggregator) on one etcd client per etcd cluster.
//
// It sits where k8s.io/apiserver's storage factory (storagebackend/factory) sits: below each
// resource's registry and its watch cache, above etcd. The factory dials a new etcd client,
// one gRPC connection, for every resource it is asked for (~50 in the chain, one more per
// CRD; kubernetes/kubernetes#111622, still open). With the embedded etcd both ends of each of
// those connections are in the chain's process: some 600 goroutines and ~10 MiB of buffers
// for connections that carry the same requests one shared connection carries. Here every
// store shares one client (its KV, Lease and connection) and keeps a watcher of its own, so
// each watch cache still has its own gRPC watch stream, as upstream (one stream for all
// watches becomes a bottleneck at scale: see the notes on milo-os/milo's shared client).
//
// The pieces are copies of upstream's with the client acquired here instead of dialled:
// NewRawStorage of the factory's newETCD3Storage, StorageWithCacher of
// k8s.io/apiserver/pkg/registry/generic/registry.StorageWithCacher. The watch cache (cacher)
// on top is upstream's, unchanged. Left out of the copy: the gRPC client Prometheus metrics
// (their collector is the factory's, unexported) and the egress dialer and tracing options,
// which the chain does not configure.
package etcdstorage

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc/connectivity"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/etcd3"
	etcdfeature "k8s.io/apiserver/pkg/storage/feature"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
)

// The factory's client settings (storagebackend/factory/etcd3.go).
const (
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
	dialTimeout      = 20 * time.Second
)

// RESTOptionsGetter wraps a server's RESTOptionsGetter (what EtcdOptions.ApplyTo installs):
// the same options, with the storage built on the shared client: with the watch cache when
// cached (EtcdOptions.EnableWatchCache, on in kube-apiserver and in the chain), without it
// otherwise.
func RESTOptionsGetter(inner generic.RESTOptionsGetter, cached bool) generic.RESTOptionsGetter {
	return getter{inner: inner, cached: cached}
}

type getter struct {
	inner  generic.RESTOptionsGetter
	cached bool
}

func (g getter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.inner.GetRESTOptions(resource, example)
	if err != nil {
		return opts, err
	}
	opts.Decorator = UndecoratedStorage
	if g.cached {
		opts.Decorator = StorageWithCacher()
	}
	return opts, nil
}

// UndecoratedStorage is generic.UndecoratedStorage on the shared client: a store without a
// watch cache.
func UndecoratedStorage(config *storagebackend.ConfigForResource, resourcePrefix string, _ func(obj runtime.Object) (string, error),
	newFunc func() runtime.Object, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers,
) (storage.Interface, factory.DestroyFunc, error) {
	return NewRawStorage(config, newFunc, newListFunc, resourcePrefix)
}

// StorageWithCacher is genericregistry.StorageWithCacher on the shared client: the store
// behind upstream's watch cache.
func StorageWithCacher() generic.StorageDecorator {
	return func(config *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(obj runtime.Object) (string, error),
		newFunc func() runtime.Object, newListFunc func() runtime.Object, getAttrsFunc storage.AttrFunc,
		triggerFuncs storage.IndexerFuncs, indexers *cache.Indexers,
	) (storage.Interface, factory.DestroyFunc, error) {
		s, destroyStore, err := NewRawStorage(config, newFunc, newListFunc, resourcePrefix)
		if err != nil {
			return nil, nil, err
		}
		cacher, err := cacherstorage.NewCacherFromConfig(cacherstorage.Config{
			Storage:             s,
			Versioner:           storage.APIObjectVersioner{},
			GroupResource:       config.GroupResource,
			EventsHistoryWindow: config.EventsHistoryWindow,
			ResourcePrefix:      resourcePrefix,
			KeyFunc:             keyFunc,
			NewFunc:             newFunc,
			NewListFunc:         newListFunc,
			GetAttrsFunc:        getAttrsFunc,
			IndexerFuncs:        triggerFuncs,
			Indexers:            indexers,
			Codec:               config.Codec,
		})
		if err != nil {
			destroyStore()
			return nil, nil, err
		}
		delegator := cacherstorage.NewCacheDelegator(cacher, s)
		var once sync.Once
		return delegator, func() {
			once.Do(func() {
				delegator.Stop()
				cacher.Stop()
				destroyStore()
			})
		}, nil
	}
}

// NewRawStorage is generic.NewRawStorage (the factory's newETCD3Storage) on the shared client:
// one etcd3 store, with a watcher of its own.
func NewRawStorage(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	if c.Type != storagebackend.StorageTypeUnset && c.Type != storagebackend.StorageTypeETCD3 {
		return nil, nil, fmt.Errorf("unsupported storage type: %s", c.Type)
	}
	shared, err := acquire(c.Transport, c.CompactionInterval)
	if err != nil {
		return nil, nil, err
	}
	// The store's own client: the shared connection, KV and Lease, and its own Watcher, so
	// that its watches (and its progress requests) travel on a gRPC stream of their own.
	own := clientv3.NewCtxClient(shared.client.Ctx())
	own.KV, own.Lease, own.Maintenance = shared.client.KV, shared.client.Lease, shared.client.Maintenance
	own.Watcher = clientv3.NewWatcher(shared.client.Client)
	client := &kubernetes.Client{Client: own}
	client.Kubernetes = client

	transformer := c.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	versioner := storage.APIObjectVersioner{}
	decoder := etcd3.NewDefaultDecoder(c.Codec, versioner)
	unsafeDeletion := utilfeature.DefaultFeatureGate.Enabled(genericfeatures.AllowUnsafeMalformedObjectDeletion)
	if unsafeDeletion {
		transformer = etcd3.WithCorruptObjErrorHandlingTransformer(transformer)
		decoder = etcd3.WithCorruptObjErrorHandlingDecoder(decoder)
	}
	store, err := etcd3.New(client, shared.compactor, c.Codec, newFunc, newListFunc, c.Prefix, resourcePrefix, c.GroupResource,
		transformer, c.LeaseManagerConfig, decoder, versioner)
	if err != nil {
		own.Watcher.Close()
		shared.release()
		return nil, nil, err
	}
	var s storage.Interface = store
	if unsafeDeletion {
		s = etcd3.NewStoreWithUnsafeCorruptObjectDeletion(s, c.GroupResource)
	}
	var once sync.Once
	// Storage destroy funcs are called more than once (subresources share them): once here.
	return s, func() {
		once.Do(func() {
			store.Close()
			own.Watcher.Close()
			shared.release()
		})
	}, nil
}

// sharedClient is the client of one etcd cluster (one transport), with its compactor, counted
// by the stores that use it and closed with the last.
type sharedClient struct {
	key       string
	client    *kubernetes.Client
	compactor interface {
		etcd3.Compactor
		Stop()
	}
	refs int
}

var (
	mu      sync.Mutex
	clients = map[string]*sharedClient{}
)

// acquire returns the shared client of the transport, dialling it on first use.
func acquire(t storagebackend.TransportConfig, compactionInterval time.Duration) (*sharedClient, error) {
	key := keyOf(t)
	mu.Lock()
	defer mu.Unlock()
	if s, ok := clients[key]; ok {
		s.refs++
		return s, nil
	}
	client, err := newClient(t)
	if err != nil {
		return nil, err
	}
	client.KV = etcd3.NewETCDLatencyTracker(client.KV)
	s := &sharedClient{key: key, client: client, refs: 1}
	// kube-apiserver compacts etcd itself, one compactor per etcd (as the factory's
	// startCompactorOnce); 0 turns compaction off.
	if compactionInterval > 0 {
		s.compactor = etcd3.StartCompactorPerEndpoint(client.Client, compactionInterval)
	}
	// Whether etcd can answer progress requests, which consistent reads from the watch
	// cache need; etcd3.New asks its client, whose endpoints the stores' own clients lack.
	etcdfeature.DefaultFeatureSupportChecker.CheckClient(client.Ctx(), client, storage.RequestWatchProgress)
	clients[key] = s
	return s, nil
}

// keyOf says which etcd cluster, reached how: what makes two transports share a client.
func keyOf(t storagebackend.TransportConfig) string {
	return strings.Join(t.ServerList, ",") + "|" + t.CertFile + "|" + t.KeyFile + "|" + t.TrustedCAFile
}

func (s *sharedClient) release() {
	mu.Lock()
	defer mu.Unlock()
	if s.refs--; s.refs > 0 {
		return
	}
	if s.compactor != nil {
		s.compactor.Stop()
	}
	_ = s.client.Close()
	delete(clients, s.key)
}

var (
	loggerOnce sync.Once
	logger     *zap.Logger
)

// newClient is the factory's newETCD3Client: the same TLS, timeouts and keepalives, waiting
// until the connection is ready.
func newClient(t storagebackend.TransportConfig) (*kubernetes.Client, error) {
	tlsInfo := transport.TLSInfo{CertFile: t.CertFile, KeyFile: t.KeyFile, TrustedCAFile: t.TrustedCAFile}
	tlsConfig, err := tlsInfo.ClientConfig()
	if err != nil {
		return nil, err
	}
	if t.CertFile == "" && t.KeyFile == "" && t.TrustedCAFile == "" {
		tlsConfig = nil // the client reads a nil TLS config as plain http
	}
	loggerOnce.Do(func() {
		l, err := logutil.CreateDefaultZapLogger(zapcore.InfoLevel)
		if err != nil {
			l = zap.NewNop()
		}
		logger = l.Named("etcd-client")
	})
	client, err := kubernetes.New(clientv3.Config{
		Endpoints:            t.ServerList,
		TLS:                  tlsConfig,
		DialTimeout:          dialTimeout,
		DialKeepAliveTime:    keepaliveTime,
		DialKeepAliveTimeout: keepaliveTimeout,
		Logger:               logger,
	})
	if err != nil {
		return nil, err
	}
	if err := waitReady(client); err != nil {
		_ = client.Close()
		return nil, err
	}
	return client, nil
}

// waitReady waits for the client's connection as the factory's blockUntilReady does.
func waitReady(client *kubernetes.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	conn := client.ActiveConnection()
	if conn == nil {
		return fmt.Errorf("no grpc connection")
	}
	for {
		state := conn.GetState()
		if state == connectivity.Ready {
			return nil
		}
		if state == connectivity.Idle {
			conn.Connect()
		}
		if !conn.WaitForStateChange(ctx, state) {
			return fmt.Errorf("etcd grpc connection not ready: %w", ctx.Err())
		}
	}
}
