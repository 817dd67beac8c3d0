package metrics

import (
	"fmt"
	"net"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/version"
	"github.com/apichain/apichain/servers/metrics/api"
	"github.com/apichain/apichain/servers/metrics/openapi"
	"github.com/apichain/apichain/servers/metrics/scraper"
)

// Config is the metrics server's configuration.
type Config struct {
	Generic *genericapiserver.Config
	Extra
}

// Extra is what the metrics server needs beyond the generic apiserver configuration
// (metrics-server pkg/server/config.go).
type Extra struct {
	// Chain reaches the chain: informers, registration.
	Chain *rest.Config
	// MetricResolution is the scrape interval; ScrapeTimeout bounds one kubelet request and
	// MaxStagger the random delay before it, together within the resolution.
	MetricResolution, ScrapeTimeout, MaxStagger time.Duration
	Kubelet                                     scraper.KubeletClientConfig
	NodeSelector                                []labels.Requirement

	// Register says whether to register with the chain (and WithdrawOnStop whether to
	// withdraw on a graceful stop), AdvertiseIP where, and ServingCA is the caBundle of the
	// APIServices.
	Register, WithdrawOnStop bool
	AdvertiseIP              net.IP
	ServingCA                []byte

	scheme *runtime.Scheme
	codecs serializer.CodecFactory
}

// NewConfig builds the configuration from completed options, as metrics-server's
// Options.ServerConfig does: serving certificate (generated in --cert-dir if missing), secure
// serving, delegated authentication (which reads kube-system/extension-apiserver-authentication
// from the chain once) and authorization, OpenAPI. It opens the listener; it starts nothing.
func NewConfig(o CompletedOptions) (*Config, error) {
	chain, err := chainConfig(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	kubelet := kubeletClientConfig(o, chain)
	cert, err := ensureServingCert(o.CertDir, o.AdvertiseIP)
	if err != nil {
		return nil, fmt.Errorf("serving certificate in %s: %w", o.CertDir, err)
	}

	scheme := api.NewScheme()
	codecs := api.NewCodecs(scheme)
	generic := genericapiserver.NewConfig(codecs)
	generic.EffectiveVersion = version.Effective()
	// /metrics serves the apiserver's metrics and the metrics server's own (monitoring.go).
	generic.EnableMetrics = false
	namer := openapinamer.NewDefinitionNamer(scheme)
	generic.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openapi.GetOpenAPIDefinitions, namer)
	generic.OpenAPIConfig.Info.Title = "Kubernetes metrics-server"
	generic.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, namer)
	generic.OpenAPIV3Config.Info.Title = "Kubernetes metrics-server"
	generic.OpenAPIConfig.Info.Version = strings.SplitN(version.Kubernetes, "-", 2)[0]
	generic.OpenAPIV3Config.Info.Version = generic.OpenAPIConfig.Info.Version

	serving := genericoptions.NewSecureServingOptions()
	serving.BindAddress = o.BindIP
	serving.BindPort = o.SecurePort
	serving.ServerCert.CertKey.CertFile, serving.ServerCert.CertKey.KeyFile = cert.CertFile, cert.KeyFile
	if o.SecurePort == 0 {
		// Upstream reads port 0 as "do not serve"; here it means "any free port".
		l, port, err := genericoptions.CreateListener("tcp", net.JoinHostPort(o.BindIP.String(), "0"), net.ListenConfig{})
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", o.BindIP, err)
		}
		serving.Listener, serving.BindPort = l, port
	}
	if err := serving.ApplyTo(&generic.SecureServing); err != nil {
		if serving.Listener != nil {
			serving.Listener.Close()
		}
		return nil, fmt.Errorf("secure serving on %s: %w", net.JoinHostPort(o.BindIP.String(), fmt.Sprint(o.SecurePort)), err)
	}
	fail := func(err error) (*Config, error) {
		generic.SecureServing.Listener.Close()
		return nil, err
	}
	// No post-start hook calls the server itself, so the loopback client carries no
	// credentials; metrics-server's WithLoopback would generate a certificate for it.
	generic.LoopbackClientConfig = &rest.Config{
		Host:            "https://" + generic.SecureServing.Listener.Addr().String(),
		TLSClientConfig: rest.TLSClientConfig{CAData: cert.CABundle, ServerName: "localhost"},
	}

	tp, err := newTracing(o, chain)
	if err != nil {
		return fail(err)
	}
	if tp != nil {
		applyTracing(generic, tp, o)
	}
	if err := o.Authentication.ApplyTo(&generic.Authentication, generic.SecureServing, generic.OpenAPIConfig); err != nil {
		return fail(fmt.Errorf("delegated authentication: %w", err))
	}
	if err := o.Authorization.ApplyTo(&generic.Authorization); err != nil {
		return fail(fmt.Errorf("delegated authorization: %w", err))
	}
	if tp != nil {
		applyAuthTracing(generic)
	}

	timeout := o.KubeletRequestTimeout
	return &Config{
		Generic: generic,
		Extra: Extra{
			Chain:            chain,
			MetricResolution: o.MetricResolution,
			ScrapeTimeout:    timeout,
			// metrics-server staggers requests over up to 4 s, then gives each 10 s: more than
			// its minimum resolution of 10 s. Here stagger and timeout fit in the resolution.
			MaxStagger:     max(0, min(4*time.Second, o.MetricResolution-timeout)),
			Kubelet:        kubelet,
			NodeSelector:   o.NodeRequirements,
			Register:       o.Register,
			WithdrawOnStop: o.WithdrawOnStop,
			AdvertiseIP:    o.AdvertiseIP,
			ServingCA:      cert.CABundle,
			scheme:         scheme,
			codecs:         codecs,
		},
	}, nil
}

// CompletedConfig is a Config on which Complete has run.
type CompletedConfig struct {
	*completedConfig
}

type completedConfig struct {
	Generic genericapiserver.CompletedConfig
	Extra   *Extra
}

// Complete fills in what the Config leaves out.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{&completedConfig{Generic: c.Generic.Complete(nil), Extra: &c.Extra}}
}

// chainConfig is the client configuration of the chain, protobuf as metrics-server's
// (cmd/metrics-server/app/options/options.go restConfig).
func chainConfig(kubeconfig string) (*rest.Config, error) {
	var c *rest.Config
	var err error
	if kubeconfig != "" {
		loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}, &clientcmd.ConfigOverrides{})
		c, err = loader.ClientConfig()
	} else {
		c, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("unable to construct lister client config: %w", err)
	}
	c.ContentType = runtime.ContentTypeProtobuf
	if err := rest.SetKubernetesDefaults(c); err != nil {
		return nil, err
	}
	return c, nil
}

// kubeletClientConfig is the chain's client configuration (its credentials) with the kubelet
// CA, or no verification, in place of the chain's CA (metrics-server
// cmd/metrics-server/app/options/kubelet_client.go).
func kubeletClientConfig(o CompletedOptions, chain *rest.Config) scraper.KubeletClientConfig {
	c := scraper.KubeletClientConfig{
		Client:              *rest.CopyConfig(chain),
		AddressTypePriority: o.AddressTypes,
		Scheme:              "https",
		DefaultPort:         o.KubeletPort,
		UseNodeStatusPort:   o.KubeletUseNodeStatusPort,
	}
	// TLS is between the metrics server and the kubelet: the chain's server name means nothing there.
	c.Client.TLSClientConfig.ServerName = ""
	if o.KubeletInsecureTLS {
		c.Client.TLSClientConfig.Insecure = true
		c.Client.TLSClientConfig.CAData, c.Client.TLSClientConfig.CAFile = nil, ""
	}
	if o.KubeletCAFile != "" {
		c.Client.TLSClientConfig.CAFile, c.Client.TLSClientConfig.CAData = o.KubeletCAFile, nil
	}
	if o.KubeletClientCertFile != "" {
		c.Client.TLSClientConfig.CertFile, c.Client.TLSClientConfig.CertData = o.KubeletClientCertFile, nil
		c.Client.TLSClientConfig.KeyFile, c.Client.TLSClientConfig.KeyData = o.KubeletClientKeyFile, nil
	}
	return c
}
