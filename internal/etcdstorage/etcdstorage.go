// Package etcdstorage builds the etcd stores of every server of the chain (Core, ApiExtensions,
// the Aggregator) on one etcd client per etcd cluster.
//
// It sits where k8s.io/apiserver's storage factory (storagebackend/factory) sits: below each
// resource's registry and watch cache, above etcd. The factory dials a client, one gRPC
// connection, for every resource (~50 in the chain, one more per CRD;
// kubernetes/kubernetes#111622). With the embedded etcd both ends of each connection are in the
// chain's process: some 600 goroutines and ~10 MiB of buffers carrying what one connection
// carries. Here the stores of a Clients share its client of their cluster, with its KV and
// Lease, and each store keeps a Watcher of its own, so that every watch cache still has its
// own gRPC watch stream (one stream for all watches becomes a bottleneck at scale).
//
// The store (etcd3.New) and the watch cache (cacher) are k8s.io/apiserver's; this package only
// hands them the shared client. Left out next to the factory: the gRPC client metrics and the
// egress dialer, which the chain does not configure. Traced (WithTracing), each call the client
// makes for a recorded request is a span of its trace (tracing.ClientDialOption), and each store
// adds a span to the request's trace that says what k8s.io/apiserver's own do not (trace.go).
package etcdstorage

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	oteltrace "go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/connectivity"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/generic"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/etcd3"
	etcdfeature "k8s.io/apiserver/pkg/storage/feature"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/internal/tracing"
)

// Clients holds one client per etcd cluster for the stores built through it, and closes a
// client with the last of its stores. A chain has one.
type Clients struct {
	mu        sync.Mutex
	byCluster map[string]*cluster
	// tracer is the provider of the etcd clients' spans; nil: not traced.
	tracer oteltrace.TracerProvider
}

// cluster is the client of one etcd cluster (one transport) and its compactor.
type cluster struct {
	key       string
	client    *kubernetes.Client
	compactor interface {
		etcd3.Compactor
		Stop()
	}
	stores int
}

// NewClients returns Clients without any client yet: the first store of a cluster dials it.
func NewClients() *Clients {
	return &Clients{byCluster: map[string]*cluster{}}
}

// WithTracing has c's clients and stores traced with tp (set before the first store).
func (c *Clients) WithTracing(tp oteltrace.TracerProvider) *Clients {
	c.tracer = tp
	return c
}

// RESTOptionsGetter wraps inner (what EtcdOptions.ApplyTo installs): the same options, with
// stores on c's clients, behind a watch cache when cached (kube-apiserver's
// --watch-cache, on in the chain) except for the resources in notCached (those whose
// --watch-cache-sizes entry is 0: kube-apiserver's default leaves Events out, see
// WatchCacheOff).
func (c *Clients) RESTOptionsGetter(inner generic.RESTOptionsGetter, cached bool, notCached map[schema.GroupResource]bool) generic.RESTOptionsGetter {
	return optionsGetter{inner: inner, clients: c, cached: cached, notCached: notCached}
}

// WatchCacheOff are the resources that sizes (EtcdOptions.WatchCacheSizes, "resource.group#size")
// give a size of 0: served from etcd without a watch cache, as kube-apiserver serves them.
func WatchCacheOff(sizes []string) (map[schema.GroupResource]bool, error) {
	parsed, err := genericoptions.ParseWatchCacheSizes(sizes)
	if err != nil {
		return nil, err
	}
	off := map[schema.GroupResource]bool{}
	for gr, size := range parsed {
		if size == 0 {
			off[gr] = true
		}
	}
	return off, nil
}

// Uncached is getter (one of RESTOptionsGetter's) giving stores without a watch cache: for
// stores beside a resource's main one.
func Uncached(getter generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	if g, ok := getter.(optionsGetter); ok {
		g.cached = false
		return g
	}
	return optionsGetter{inner: getter} // not on shared clients: the factory's own
}

type optionsGetter struct {
	inner     generic.RESTOptionsGetter
	clients   *Clients
	cached    bool
	notCached map[schema.GroupResource]bool
}

func (g optionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.inner.GetRESTOptions(resource, example)
	switch {
	case err != nil:
	case g.clients == nil:
		opts.Decorator = generic.UndecoratedStorage
	default:
		opts.Decorator = g.clients.decorator(g.cached && !g.notCached[resource])
	}
	return opts, err
}

// decorator builds a resource's store (generic.StorageDecorator), with its watch cache if cached.
func (c *Clients) decorator(cached bool) generic.StorageDecorator {
	return func(config *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, attrs storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers,
	) (storage.Interface, factory.DestroyFunc, error) {
		store, destroyStore, err := c.NewStore(config, newFunc, newListFunc, resourcePrefix)
		if err != nil {
			return nil, nil, err
		}
		if !cached {
			return c.traced(store, config.Prefix, false), destroyStore, nil
		}
		if c.tracer != nil {
			store = etcdMark{store}
		}
		watchCache, err := cacher.NewCacherFromConfig(cacher.Config{
			Storage: store, Versioner: storage.APIObjectVersioner{}, GroupResource: config.GroupResource,
			EventsHistoryWindow: config.EventsHistoryWindow, ResourcePrefix: resourcePrefix, KeyFunc: keyFunc,
			NewFunc: newFunc, NewListFunc: newListFunc, GetAttrsFunc: attrs, IndexerFuncs: triggers, Indexers: indexers,
			Codec: config.Codec,
		})
		if err != nil {
			destroyStore()
			return nil, nil, fmt.Errorf("watch cache of %s: %w", config.GroupResource, err)
		}
		delegator := cacher.NewCacheDelegator(watchCache, store)
		return c.traced(delegator, config.Prefix, true), once(func() {
			delegator.Stop()
			watchCache.Stop()
			destroyStore()
		}), nil
	}
}

// NewStore builds one resource's etcd3 store on the client of its cluster, with a Watcher of
// its own.
func (c *Clients) NewStore(config *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	if t := config.Type; t != storagebackend.StorageTypeUnset && t != storagebackend.StorageTypeETCD3 {
		return nil, nil, fmt.Errorf("unsupported storage type: %s", t)
	}
	cl, err := c.acquire(config.Transport, config.CompactionInterval)
	if err != nil {
		return nil, nil, err
	}
	own := clientv3.NewCtxClient(cl.client.Ctx())
	own.KV, own.Lease, own.Maintenance = cl.client.KV, cl.client.Lease, cl.client.Maintenance
	own.Watcher = clientv3.NewWatcher(cl.client.Client)
	client := &kubernetes.Client{Client: own}
	client.Kubernetes = client

	transformer := config.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	versioner := storage.APIObjectVersioner{}
	decoder := etcd3.NewDefaultDecoder(config.Codec, versioner)
	// With this (alpha) gate, an object that no longer decodes can be deleted.
	unsafeDelete := utilfeature.DefaultFeatureGate.Enabled(genericfeatures.AllowUnsafeMalformedObjectDeletion)
	if unsafeDelete {
		transformer = etcd3.WithCorruptObjErrorHandlingTransformer(transformer)
		decoder = etcd3.WithCorruptObjErrorHandlingDecoder(decoder)
	}
	store, err := etcd3.New(client, cl.compactor, config.Codec, newFunc, newListFunc, config.Prefix, resourcePrefix,
		config.GroupResource, transformer, config.LeaseManagerConfig, decoder, versioner)
	if err != nil {
		own.Watcher.Close()
		c.release(cl)
		return nil, nil, fmt.Errorf("etcd store of %s: %w", config.GroupResource, err)
	}
	var s storage.Interface = store
	if unsafeDelete {
		s = etcd3.NewStoreWithUnsafeCorruptObjectDeletion(s, config.GroupResource)
	}
	// The destroy func of a resource is also its subresources': it runs more than once.
	return s, once(func() {
		store.Close()
		own.Watcher.Close()
		c.release(cl)
	}), nil
}

// traced is s with a span for each operation when c is traced (trace.go).
func (c *Clients) traced(s storage.Interface, prefix string, cached bool) storage.Interface {
	if c.tracer == nil {
		return s
	}
	return tracedStore{Interface: s, prefix: prefix, cached: cached}
}

func once(f func()) func() {
	var o sync.Once
	return func() { o.Do(f) }
}

// acquire returns the client of t's cluster, dialing it for the cluster's first store.
func (c *Clients) acquire(t storagebackend.TransportConfig, compactionInterval time.Duration) (*cluster, error) {
	key := strings.Join([]string{strings.Join(t.ServerList, ","), t.CertFile, t.KeyFile, t.TrustedCAFile}, "|")
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.byCluster[key]; ok {
		cl.stores++
		return cl, nil
	}
	client, err := dial(t, c.tracer)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", t.ServerList, err)
	}
	client.KV = etcd3.NewETCDLatencyTracker(client.KV)
	cl := &cluster{key: key, client: client, stores: 1}
	// kube-apiserver compacts etcd's history itself, every 5 minutes by default; 0 is never.
	if compactionInterval > 0 {
		cl.compactor = etcd3.StartCompactorPerEndpoint(client.Client, compactionInterval)
	}
	// Consistent reads from the watch cache need progress notifications: ask etcd once, on the
	// client that has its endpoints (the stores' own clients do not).
	etcdfeature.DefaultFeatureSupportChecker.CheckClient(client.Ctx(), client, storage.RequestWatchProgress)
	c.byCluster[key] = cl
	return cl, nil
}

func (c *Clients) release(cl *cluster) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl.stores--; cl.stores > 0 {
		return
	}
	if cl.compactor != nil {
		cl.compactor.Stop()
	}
	_ = cl.client.Close()
	delete(c.byCluster, cl.key)
}

// dial connects to the cluster with kube-apiserver's timeouts and keepalives, and waits (20 s
// at most) for the connection, so that an unreachable etcd fails the start. With tp, each call
// is a span of the request's trace, as the storage factory's client makes it.
func dial(t storagebackend.TransportConfig, tp oteltrace.TracerProvider) (*kubernetes.Client, error) {
	cfg := clientv3.Config{
		Endpoints:            t.ServerList,
		DialTimeout:          20 * time.Second,
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
	}
	if tp != nil {
		cfg.DialOptions = append(cfg.DialOptions, tracing.ClientDialOption(tp))
	}
	if t.CertFile != "" || t.KeyFile != "" || t.TrustedCAFile != "" {
		tlsConfig, err := (&transport.TLSInfo{CertFile: t.CertFile, KeyFile: t.KeyFile, TrustedCAFile: t.TrustedCAFile}).ClientConfig()
		if err != nil {
			return nil, err
		}
		cfg.TLS = tlsConfig
	}
	client, err := kubernetes.New(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.DialTimeout)
	defer cancel()
	conn := client.ActiveConnection()
	for state := conn.GetState(); state != connectivity.Ready; state = conn.GetState() {
		conn.Connect() // leaves idle; does nothing otherwise
		if !conn.WaitForStateChange(ctx, state) {
			_ = client.Close()
			return nil, fmt.Errorf("etcd grpc connection not ready: %w", ctx.Err())
		}
	}
	return client, nil
}
