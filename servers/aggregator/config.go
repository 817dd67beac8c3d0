// Package aggregator is the Aggregator, the head of the chain: every request enters here, through
// the one authentication and authorization filter chain. It serves apiregistration.k8s.io
// (APIServices), the merged discovery (/api, /apis, aggregated discovery) and the merged
// OpenAPI, and routes each group version to its APIService: a local one is delegated to Core
// (and from there to ApiExtensions), a remote one is proxied to its Service. It is
// k8s.io/kube-aggregator, wired as kube-apiserver wires it (pkg/controlplane/apiserver/aggregator.go).
//
// The upstream library keeps its scheme in a package variable (aggregatorscheme.Scheme); the
// chain uses it as is.
package aggregator

import (
	"context"
	"net/http"
	"net/url"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/client-go/informers"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
)

// Config is the Aggregator's configuration.
type Config struct {
	*aggregatorapiserver.Config
}

// Extra is what the Aggregator needs beyond the generic configuration.
type Extra struct {
	// ProxyClientCertFile and ProxyClientKeyFile are the front-proxy client certificate it shows
	// to aggregated API servers (kube-aggregator takes only file paths).
	ProxyClientCertFile, ProxyClientKeyFile string
	// ServiceResolver turns an APIService's Service into an address (see NewServiceResolver).
	ServiceResolver aggregatorapiserver.ServiceResolver
}

// NewConfig derives the Aggregator's configuration from the chain's shared generic
// configuration, as kube-apiserver's CreateAggregatorConfig does.
func NewConfig(shared server.Config, sharedInformers informers.SharedInformerFactory, etcd genericoptions.EtcdOptions, extra Extra) (*Config, error) {
	generic := shared
	generic.PostStartHooks = map[string]server.PostStartHookConfigEntry{}
	generic.RESTOptionsGetter = nil
	// The aggregator serves the merged OpenAPI of the whole chain with its own handler.
	generic.SkipOpenAPIInstallation = true
	generic.MergedResourceConfig = aggregatorapiserver.DefaultAPIResourceConfigSource()

	etcd.StorageConfig.Codec = aggregatorscheme.Codecs.LegacyCodec(apiregistrationv1.SchemeGroupVersion, apiregistrationv1beta1.SchemeGroupVersion)
	etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiregistrationv1.SchemeGroupVersion, schema.GroupKind{Group: apiregistrationv1beta1.GroupName})
	etcd.SkipHealthEndpoints = true // Core registers the etcd checks once
	if err := etcd.ApplyTo(&generic); err != nil {
		return nil, err
	}
	return &Config{&aggregatorapiserver.Config{
		GenericConfig: &server.RecommendedConfig{Config: generic, SharedInformerFactory: sharedInformers},
		ExtraConfig: aggregatorapiserver.ExtraConfig{
			ProxyClientCertFile: extra.ProxyClientCertFile,
			ProxyClientKeyFile:  extra.ProxyClientKeyFile,
			ServiceResolver:     extra.ServiceResolver,
			// Only its DialContext is used: for the proxy and the availability checks.
			ProxyTransport: &http.Transport{DialContext: DialLocalhost},
		},
	}}, nil
}

// NewServiceResolver resolves an APIService's Service to one of its EndpointSlice addresses
// (kube-apiserver's --enable-aggregator-routing) and default/kubernetes to the chain itself.
func NewServiceResolver(sharedInformers informers.SharedInformerFactory, loopbackHost string) (aggregatorapiserver.ServiceResolver, error) {
	slices, err := proxy.NewEndpointSliceIndexerGetter(sharedInformers.Discovery().V1().EndpointSlices())
	if err != nil {
		return nil, err
	}
	var r aggregatorapiserver.ServiceResolver = aggregatorapiserver.NewEndpointServiceResolver(sharedInformers.Core().V1().Services().Lister(), slices)
	if u, err := url.Parse(loopbackHost); err == nil {
		r = aggregatorapiserver.NewLoopbackServiceResolver(r, u)
	}
	return r, nil
}

// CompletedConfig is a Config on which Complete has run.
type CompletedConfig struct {
	aggregatorapiserver.CompletedConfig
}

// Complete fills in what the Config leaves out.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{c.Config.Complete()}
}

// PreparedServer is a Server on which PrepareRun has run.
type PreparedServer struct {
	runnable interface{ Run(context.Context) error }
}

// Run serves the chain until ctx is done.
func (s PreparedServer) Run(ctx context.Context) error { return s.runnable.Run(ctx) }
