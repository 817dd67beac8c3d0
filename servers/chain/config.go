package chain

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	genericregistry "k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"

	"github.com/apichain/apichain/internal/etcdstorage"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/internal/version"
	"github.com/apichain/apichain/servers/aggregator"
	chainadmission "github.com/apichain/apichain/servers/chain/admission"
	"github.com/apichain/apichain/servers/chain/departures"
	"github.com/apichain/apichain/servers/core"
	corereg "github.com/apichain/apichain/servers/core/registry/core"
	"github.com/apichain/apichain/servers/extensions"
)

// Config is the whole chain's configuration: one shared generic configuration, specialised
// into one configuration per server.
type Config struct {
	Options CompletedOptions
	PKI     pki.Files

	// Informers is the one client-go informer factory every server shares (admission,
	// the aggregator's service resolution and availability checks).
	Informers informers.SharedInformerFactory

	Aggregator *aggregator.Config
	Core       *core.Config
	Extensions *extensions.Config

	// Tracing is the chain's tracer provider, in every server's generic configuration, and its
	// ring of recent traces (tracing.go).
	Tracing *tracing.Provider

	label *aggregatorLabel
}

// NewConfig builds the shared generic configuration (serving, authentication, authorization,
// admission, OpenAPI, discovery) and derives each server's configuration from it, in
// kube-apiserver's order (BuildGenericConfig, then CreateKubeAPIServerConfig,
// CreateAPIExtensionsConfig, CreateAggregatorConfig). It opens the listener; it starts nothing.
func NewConfig(o CompletedOptions, files pki.Files, etcdServers []string) (*Config, error) {
	generic, err := buildGenericConfig(o, files)
	if err != nil {
		return nil, err
	}
	etcd := etcdOptions(etcdServers, o)

	kubelets, err := kubeletClient(files)
	if err != nil {
		return nil, err
	}
	coreConfig, err := core.NewConfig(*generic.Config, generic.informers, *etcd, core.Extra{
		Kubelets:              kubelets,
		ServiceClusterIPRange: o.ServiceClusterIPRange,
		EventTTL:              o.EventTTL,
		KubernetesServicePort: listenerPort(generic.SecureServing.Listener),
		Authentication:        generic.auth.published,
		ServiceAccountTokens:  generic.auth.serviceAccountTokens,
		Components:            componentProbes(o, generic.LoopbackClientConfig, generic.APIServerID),
	})
	if err != nil {
		return nil, fmt.Errorf("core config: %w", err)
	}
	extensionsConfig, err := extensions.NewConfig(*generic.Config, generic.informers, *etcd)
	if err != nil {
		return nil, fmt.Errorf("apiextensions config: %w", err)
	}
	aggregatorConfig, err := aggregator.NewConfig(*generic.Config, generic.informers, *etcd, aggregator.Extra{
		ProxyClientCertFile: files.FrontProxyClientCert,
		ProxyClientKeyFile:  files.FrontProxyClientKey,
		ServiceResolver:     generic.serviceResolver,
	})
	if err != nil {
		return nil, fmt.Errorf("aggregator config: %w", err)
	}
	// Every store of the three servers on one etcd client per etcd cluster (internal/etcdstorage).
	clients := etcdstorage.NewClients()
	if generic.tracing.Enabled() {
		clients.WithTracing(generic.tracing)
	}
	notCached, err := etcdstorage.WatchCacheOff(etcd.WatchCacheSizes)
	if err != nil {
		return nil, fmt.Errorf("watch cache sizes: %w", err)
	}
	stores := func(g genericregistry.RESTOptionsGetter) genericregistry.RESTOptionsGetter {
		// Departure: etcd's errors are Statuses (413, 504, 500 with a reason).
		return departures.StorageErrorsAsStatus(clients.RESTOptionsGetter(g, etcd.EnableWatchCache, notCached))
	}
	coreConfig.Generic.RESTOptionsGetter = stores(coreConfig.Generic.RESTOptionsGetter)
	extensionsConfig.GenericConfig.RESTOptionsGetter = stores(extensionsConfig.GenericConfig.RESTOptionsGetter)
	extensionsConfig.ExtraConfig.CRDRESTOptionsGetter = stores(extensionsConfig.ExtraConfig.CRDRESTOptionsGetter)
	aggregatorConfig.GenericConfig.RESTOptionsGetter = stores(aggregatorConfig.GenericConfig.RESTOptionsGetter)
	return &Config{Options: o, PKI: files, Informers: generic.informers, label: generic.label, Tracing: generic.tracing,
		Aggregator: aggregatorConfig, Core: coreConfig, Extensions: extensionsConfig}, nil
}

// genericConfig is what buildGenericConfig makes: the one generic configuration the three
// servers share, and what their own configurations take from its making.
type genericConfig struct {
	*genericapiserver.Config
	informers       informers.SharedInformerFactory
	auth            *authentication
	serviceResolver aggregatorapiserver.ServiceResolver
	label           *aggregatorLabel
	tracing         *tracing.Provider
}

// buildGenericConfig builds the shared generic configuration, as kube-apiserver's
// BuildGenericConfig does: handler chain, serving, loopback client, informers, authentication,
// authorization, admission, OpenAPI, discovery.
func buildGenericConfig(o CompletedOptions, files pki.Files) (genericConfig, error) {
	generic := genericapiserver.NewConfig(serializer.NewCodecFactory(metaScheme()))
	generic.EffectiveVersion = version.Effective()
	// Bounds every request but watches (504 Timeout after it), as kube-apiserver's
	// --request-timeout does; graceful shutdown waits as long for in-flight requests.
	generic.RequestTimeout = o.RequestTimeout
	// On SIGTERM, end every watch cleanly (its response body simply ends, and clients
	// re-watch elsewhere) and wait up to this long for them to finish. Upstream's default, 0,
	// leaves watches open until net/http's shutdown gives up after RequestTimeout and cuts them:
	// every graceful stop would take a minute. kube-apiserver's
	// --shutdown-watch-termination-grace-period.
	generic.ShutdownWatchTerminationGracePeriod = o.ShutdownWatchTerminationGracePeriod
	// kube-apiserver treats these as long-running, exempt from the request timeout.
	generic.LongRunningFunc = genericfilters.BasicLongRunningRequestCheck(
		sets.NewString("watch", "proxy"), sets.NewString("attach", "exec", "proxy", "log", "portforward"))
	// kube-apiserver's filter chain, around a handler that names the server answering
	// (X-Chain-Server, remote.go).
	label := &aggregatorLabel{}
	generic.BuildHandlerChainFunc = func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		return genericapiserver.DefaultBuildHandlerChain(label.wrap(apiHandler), c)
	}
	// Departures from it (package departures): bad input answered 4xx, a 504 before the
	// deadline, the body of an early-answered HTTP/1 request read.
	generic.BuildHandlerChainFunc = departures.WrapHandlerChain(generic.BuildHandlerChainFunc, label.remoteAPIService)

	// Departure: on shutdown the listener closes the connections clients keep open, once the
	// requests that the head's WithWaitGroup filter counts are answered (k8s.io/apiserver's own
	// shutdown waits on them too; every server's config derives from this one and shares it)
	// and each connection's last answer has gone out, which a filter around the whole chain
	// tells it.
	serving, listener, err := secureServing(o, files, generic.NonLongRunningRequestWaitGroup.Wait)
	if err != nil {
		return genericConfig{}, err
	}
	generic.BuildHandlerChainFunc = listener.WrapHandlerChain(generic.BuildHandlerChainFunc)
	if err := applySecureServing(serving, &generic.SecureServing, &generic.LoopbackClientConfig); err != nil {
		return genericConfig{}, fmt.Errorf("secure serving on %s:%d: %w", o.BindAddress, o.SecurePort, err)
	}
	generic.PublicAddress = publicAddress(o.BindIP)
	// The servers talk to themselves in protobuf, uncompressed, as kube-apiserver does.
	generic.LoopbackClientConfig.ContentType = runtime.ContentTypeProtobuf
	generic.LoopbackClientConfig.DisableCompression = true

	// One identity per instance, not per host as upstream's default: two instances may share a host.
	generic.APIServerID = instanceID(o.DataDir)
	// Tracing before the clients and the admission webhooks are made, which take its provider.
	tp, err := newTracing(o, generic.APIServerID)
	if err != nil {
		return genericConfig{}, err
	}
	applyTracing(generic, tp)

	client, err := kubernetes.NewForConfig(generic.LoopbackClientConfig)
	if err != nil {
		return genericConfig{}, err
	}
	sharedInformers := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute,
		informers.WithTransform(dropManagedFields))
	// API Priority and Fairness at the head, in place of the max-in-flight limits (flowcontrol.go).
	applyFlowControl(generic, o, client, sharedInformers)

	auth, err := newAuthentication(o, files)
	if err != nil {
		return genericConfig{}, err
	}
	if err := auth.applyTo(generic, sharedInformers, client, tp.Enabled()); err != nil {
		return genericConfig{}, err
	}
	if err := applyAuthorization(generic, sharedInformers, tp.Enabled()); err != nil {
		return genericConfig{}, err
	}
	genericapiserver.AuthorizeClientBearerToken(generic.LoopbackClientConfig, &generic.Authentication, &generic.Authorization)
	if tp.Enabled() {
		// Outermost, around the loopback token's authenticator too (authtrace.go).
		generic.Authentication.Authenticator = recordAuthentication(generic.Authentication.Authenticator)
	}

	// One resolver of Services to addresses, for the aggregator's proxy and the admission webhooks.
	serviceResolver, err := aggregator.NewServiceResolver(sharedInformers, generic.LoopbackClientConfig.Host)
	if err != nil {
		return genericConfig{}, err
	}
	if err := applyAdmission(generic, sharedInformers, client, serviceResolver, tp.Enabled()); err != nil {
		return genericConfig{}, err
	}
	if err := applyOpenAPI(generic); err != nil {
		return genericConfig{}, err
	}
	generic.AggregatedDiscoveryGroupManager = aggregated.NewResourceManager("apis")
	return genericConfig{Config: generic, informers: sharedInformers, auth: auth, serviceResolver: serviceResolver, label: label, tracing: tp}, nil
}

// CompletedConfig is a Config on which Complete has run.
type CompletedConfig struct {
	Options    CompletedOptions
	Aggregator aggregator.CompletedConfig
	Core       core.CompletedConfig
	Extensions extensions.CompletedConfig

	tracing *tracing.Provider
	label   *aggregatorLabel
	// stopping is the chain's pre-shutdown work (stop.go), one list for each chain built.
	stopping *stopSteps
}

// Complete completes every server's configuration.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{
		Options:    c.Options,
		Aggregator: c.Aggregator.Complete(),
		Core:       c.Core.Complete(),
		Extensions: c.Extensions.Complete(),
		tracing:    c.Tracing,
		label:      c.label,
		stopping:   &stopSteps{},
	}
}

// secureServing serves the chain's certificate on the bind address (applySecureServing adds the
// loopback client for the servers' own use). On shutdown, once waitDrained returns, its listener
// closes the connections clients keep open (departures.NewClosingListener).
func secureServing(o CompletedOptions, files pki.Files, waitDrained func()) (*genericoptions.SecureServingOptions, departures.ClosingListener, error) {
	s := genericoptions.NewSecureServingOptions()
	s.BindAddress = o.BindIP
	s.BindPort = o.SecurePort
	s.ServerCert.CertKey.CertFile = files.ServingCert
	s.ServerCert.CertKey.KeyFile = files.ServingKey
	// The chain makes its listener itself: upstream reads port 0 as "do not serve", where for
	// the chain it means "any free port"; and the listener closes idle connections on shutdown
	// (a departure).
	l, port, err := genericoptions.CreateListener("tcp", net.JoinHostPort(o.BindIP.String(), strconv.Itoa(o.SecurePort)), net.ListenConfig{})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create listener: %w", err)
	}
	closing := departures.NewClosingListener(l, waitDrained)
	s.Listener, s.BindPort = closing, port
	if errs := s.Validate(); len(errs) > 0 {
		return nil, nil, errs[0]
	}
	return s, closing, nil
}

// etcdOptions are kube-apiserver's storage defaults: /registry, protobuf, watch cache on; with
// the compaction interval of --etcd-compaction-interval and the client TLS files of --etcd-cafile, --etcd-certfile and --etcd-keyfile where kube-apiserver
// puts them (k8s.io/apiserver pkg/server/options/etcd.go AddFlags).
func etcdOptions(servers []string, o CompletedOptions) *genericoptions.EtcdOptions {
	backend := storagebackend.NewDefaultConfig("/registry", nil)
	backend.Transport.ServerList = servers
	backend.Transport.TrustedCAFile = o.EtcdCAFile
	backend.Transport.CertFile = o.EtcdCertFile
	backend.Transport.KeyFile = o.EtcdKeyFile
	backend.CompactionInterval = o.EtcdCompactionInterval
	etcd := genericoptions.NewEtcdOptions(backend)
	etcd.DefaultStorageMediaType = runtime.ContentTypeProtobuf
	// kube-apiserver's default --watch-cache-sizes: Events are read from etcd, not cached.
	// Cached, every Event of the last hour (--event-ttl) would live in memory twice (core and
	// events.k8s.io have a store each), growing with the cluster's churn.
	etcd.WatchCacheSizes = []string{"events#0", "events.events.k8s.io#0"}
	return etcd
}

// applyAdmission runs kube-apiserver's admission plugins, in its order, as far as the chain has
// them (servers/chain/admission.OrderedPlugins): k8s.io/apiserver's NamespaceLifecycle,
// policies and webhooks, and the chain's ports of kube's own plugins. Webhooks reach their
// Services through serviceResolver and the aggregator's dialer (so that *.localhost endpoints
// are dialed on loopback), as kube-apiserver wires them in pkg/controlplane/apiserver/admission.
// Traced, each phase of admission has its span, and each plugin that runs an event in it
// (servers/chain/admission.Tracing).
func applyAdmission(c *genericapiserver.Config, sharedInformers informers.SharedInformerFactory, client kubernetes.Interface, serviceResolver webhook.ServiceResolver, traced bool) error {
	opts := genericoptions.NewAdmissionOptions()
	chainadmission.Register(opts.Plugins, sharedInformers)
	opts.RecommendedPluginOrder = chainadmission.OrderedPlugins
	var admissionTracing chainadmission.Tracing
	if traced {
		// Innermost, on each plugin as it is: an event for each that runs (before the metrics'
		// decorator, which makes every plugin look both mutating and validating).
		opts.Decorators = append(admission.Decorators{admissionTracing.Plugins()}, opts.Decorators...)
	}
	dyn, err := dynamic.NewForConfig(c.LoopbackClientConfig)
	if err != nil {
		return err
	}
	initializers := chainadmission.Initializers(c, serviceResolver, &http.Transport{DialContext: aggregator.DialLocalhost})
	if err := opts.ApplyTo(c, sharedInformers, client, dyn, utilfeature.DefaultFeatureGate, c.EffectiveVersion, initializers...); err != nil {
		return fmt.Errorf("admission: %w", err)
	}
	if traced {
		c.AdmissionControl = admissionTracing.Phases(c.AdmissionControl)
	}
	return nil
}

// metaScheme knows only the unversioned meta types (Status, discovery documents): enough for
// the shared serializer, which encodes the chain's own errors and discovery.
func metaScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	core.AddMetaTypes(s)
	return s
}

// dropManagedFields keeps informer caches small, as kube-apiserver's do.
func dropManagedFields(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil && a.GetManagedFields() != nil {
		a.SetManagedFields(nil)
	}
	return obj, nil
}

func publicAddress(bind net.IP) net.IP {
	if bind.IsUnspecified() {
		return net.IPv4(127, 0, 0, 1)
	}
	return bind
}

func listenerPort(l net.Listener) int {
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Base(path), err)
	}
	return b, nil
}

// kubeletClient is what Core presents to kubelets for pods/log and nodes/proxy: a client
// certificate of the client CA, issued at every start (kubeadm's apiserver-kubelet-client, in
// system:masters as kubeadm made it before v1.29), and the server CA, which signs the simulated
// kubelets' serving certificates.
func kubeletClient(files pki.Files) (corereg.KubeletClient, error) {
	cert, key, err := pki.IssueClientCert(files, "kube-apiserver-kubelet-client", []string{"system:masters"})
	if err != nil {
		return corereg.KubeletClient{}, fmt.Errorf("kubelet client certificate: %w", err)
	}
	ca, err := os.ReadFile(files.ServerCACert)
	if err != nil {
		return corereg.KubeletClient{}, fmt.Errorf("kubelet certificate authority: %w", err)
	}
	return corereg.KubeletClient{CertPEM: cert, KeyPEM: key, CAPEM: ca}, nil
}
