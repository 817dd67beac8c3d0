package metrics

import (
	"fmt"
	componenttracing "k8s.io/component-base/tracing"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/apichain/apichain/servers/metrics/scraper"
)

// Options are the metrics server's command-line options: metrics-server's
// (cmd/metrics-server/app/options), minus audit and the generic run options, plus where the
// server advertises itself and whether it registers itself with the chain.
type Options struct {
	// Kubeconfig is the chain to serve: nodes and pods are read from it, authentication and
	// authorization are delegated to it, the registration is written to it. Empty means the
	// in-cluster configuration.
	Kubeconfig string
	// MetricResolution is how often every kubelet is scraped.
	MetricResolution time.Duration

	// KubeletCAFile verifies the kubelets' serving certificates (--kubelet-certificate-authority);
	// without it, the kubeconfig's CA does.
	KubeletCAFile string
	// KubeletInsecureTLS skips that verification (--kubelet-insecure-tls). For testing only.
	KubeletInsecureTLS bool
	// KubeletClientCertFile and KubeletClientKeyFile authenticate the metrics server to the
	// kubelets; without them, the kubeconfig's credentials do.
	KubeletClientCertFile, KubeletClientKeyFile string
	// KubeletPreferredAddressTypes is the order in which node addresses are tried.
	KubeletPreferredAddressTypes []string
	// KubeletUseNodeStatusPort takes the kubelet port from node.status.daemonEndpoints (on by
	// default, as in metrics-server's manifest); KubeletPort is the port otherwise.
	KubeletUseNodeStatusPort bool
	KubeletPort              int
	// KubeletRequestTimeout bounds one scrape of one kubelet; 0 picks min(10s, 90% of the
	// resolution).
	KubeletRequestTimeout time.Duration
	// NodeSelector limits scraping (and NodeMetrics) to the nodes it selects.
	NodeSelector string

	// BindAddress and SecurePort are where the server listens; port 0 picks a free port.
	BindAddress string
	SecurePort  int
	// CertDir holds the serving certificate, generated (self-signed CA and serving
	// certificate) on first start and reused afterwards.
	CertDir string
	// AdvertiseAddress is the address registered in the EndpointSlice that the Aggregator
	// proxies to; empty means the bind address (or this host's address when binding to all).
	AdvertiseAddress string
	// Register creates or updates, once serving, the Service, EndpointSlice and APIServices
	// that route metrics.k8s.io from the Aggregator to this server.
	Register bool
	// WithdrawOnStop deletes those APIServices again on a graceful stop, if they still route
	// to this server. metrics-server never does (its manifest owns them), so a stopped one
	// answers 503 through the Aggregator; the chain sets it for its own metrics server, whose
	// registration would otherwise greet the next start with "unavailable" errors.
	WithdrawOnStop bool

	// Authentication and Authorization delegate to the chain, as every aggregated API server
	// does: TokenReview, SubjectAccessReview, and kube-system/extension-apiserver-authentication.
	Authentication *genericoptions.DelegatingAuthenticationOptions
	Authorization  *genericoptions.DelegatingAuthorizationOptions

	// TracerProvider, if set, traces the requests the server serves (its spans join the trace
	// of the chain's request the Aggregator proxied here) and its SubjectAccessReviews and
	// TokenReviews back to the chain: the chain's own provider for a metrics server in its
	// process, recording into the chain's ring under the service name metrics-server. Not a
	// flag.
	TracerProvider componenttracing.TracerProvider
	// TracingConfigFile is kube-apiserver's --tracing-config-file, for a metrics server of its
	// own process: its spans go to the collector the TracingConfiguration names, over OTLP/gRPC,
	// where the chain that runs it sends its own. Ignored with TracerProvider.
	TracingConfigFile string
	// TraceToChain reports the spans of a metrics server of its own process to the chain it
	// serves (its OTLP receiver, as --kubeconfig's user), so that the chain's ring holds the
	// metrics server's hops in the trace of the request the Aggregator proxied. Ignored with
	// TracerProvider.
	TraceToChain bool

	Logs *logs.Options
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	types := make([]string, 0, len(scraper.DefaultAddressTypePriority))
	for _, t := range scraper.DefaultAddressTypePriority {
		types = append(types, string(t))
	}
	return &Options{
		MetricResolution:             15 * time.Second,
		KubeletPreferredAddressTypes: types,
		KubeletUseNodeStatusPort:     true,
		KubeletPort:                  10250,
		BindAddress:                  "127.0.0.1",
		SecurePort:                   4443,
		CertDir:                      "apiserver.local.config/certificates",
		Register:                     true,
		Authentication:               genericoptions.NewDelegatingAuthenticationOptions(),
		Authorization:                genericoptions.NewDelegatingAuthorizationOptions(),
		Logs:                         logs.NewOptions(),
	}
}

// AddFlags adds the options' flags, grouped as metrics-server groups them.
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("metrics server")
	fs.DurationVar(&o.MetricResolution, "metric-resolution", o.MetricResolution, "The resolution at which metrics-server will retain metrics, at least 1s.")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "The path to the kubeconfig of the chain to serve: nodes and pods are read from it, authentication and authorization are delegated to it (defaults to in-cluster config).")
	fs.BoolVar(&o.Register, "register", o.Register, "Create or update, once serving, the Service kube-system/metrics-server, its EndpointSlice and the APIServices v1beta1.metrics.k8s.io and v1.metrics.k8s.io.")
	fs.BoolVar(&o.WithdrawOnStop, "withdraw-on-stop", o.WithdrawOnStop, "With --register: delete those APIServices on a graceful stop if they still route to this server (then metrics.k8s.io answers 404, not 503, while no metrics server runs).")

	fs = fss.FlagSet("kubelet client")
	fs.BoolVar(&o.KubeletInsecureTLS, "kubelet-insecure-tls", o.KubeletInsecureTLS, "Do not verify CA of serving certificates presented by Kubelets. For testing purposes only.")
	fs.BoolVar(&o.KubeletUseNodeStatusPort, "kubelet-use-node-status-port", o.KubeletUseNodeStatusPort, "Use the port in the node status. Takes precedence over --kubelet-port flag.")
	fs.IntVar(&o.KubeletPort, "kubelet-port", o.KubeletPort, "The port to use to connect to Kubelets.")
	fs.StringSliceVar(&o.KubeletPreferredAddressTypes, "kubelet-preferred-address-types", o.KubeletPreferredAddressTypes, "The priority of node address types to use when determining which address to use to connect to a particular node")
	fs.StringVar(&o.KubeletCAFile, "kubelet-certificate-authority", o.KubeletCAFile, "Path to the CA to use to validate the Kubelet's serving certificates.")
	fs.StringVar(&o.KubeletClientKeyFile, "kubelet-client-key", o.KubeletClientKeyFile, "Path to a client key file for TLS.")
	fs.StringVar(&o.KubeletClientCertFile, "kubelet-client-certificate", o.KubeletClientCertFile, "Path to a client cert file for TLS.")
	fs.DurationVar(&o.KubeletRequestTimeout, "kubelet-request-timeout", o.KubeletRequestTimeout, "The length of time to wait before giving up on a single request to Kubelet. 0 picks min(10s, 90% of --metric-resolution).")
	fs.StringVarP(&o.NodeSelector, "node-selector", "l", o.NodeSelector, "Selector (label query) to filter on, not including uninitialized ones, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2).")

	fs = fss.FlagSet("secure serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to listen for the --secure-port port.")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "The directory of the serving certificate (apiserver.crt, apiserver.key). Generated if missing: a self-signed CA and a certificate for metrics-server.kube-system.svc, localhost, 127.0.0.1 and the advertise address.")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "The IP address registered in the EndpointSlice of the metrics-server Service. Empty: the bind address. A loopback address is registered as metrics-server.localhost.")

	// kube-apiserver's name and help text (k8s.io/apiserver pkg/server/options/tracing.go).
	fss.FlagSet("traces").StringVar(&o.TracingConfigFile, "tracing-config-file", o.TracingConfigFile, "File with apiserver tracing configuration.")
	fss.FlagSet("traces").BoolVar(&o.TraceToChain, "trace-to-chain", o.TraceToChain, "Report the spans of the requests served here to the chain this server serves (/debug/apichain/otlp/v1/traces; the kubeconfig's user needs the ClusterRole apichain:trace-reporter), so that chain trace shows them in the trace of the request the chain proxied.")

	o.Authentication.AddFlags(fss.FlagSet("apiserver authentication"))
	o.Authorization.AddFlags(fss.FlagSet("apiserver authorization"))
	logsapi.AddFlags(o.Logs, fss.FlagSet("logging"))
}

// CompletedOptions are Options with every default and derived value filled in.
type CompletedOptions struct {
	*completedOptions
}

type completedOptions struct {
	Options
	// BindIP and AdvertiseIP are the addresses, parsed.
	BindIP, AdvertiseIP net.IP
	// AddressTypes are KubeletPreferredAddressTypes, typed.
	AddressTypes []corev1.NodeAddressType
	// NodeRequirements is NodeSelector, parsed.
	NodeRequirements []labels.Requirement

	errs []error
}

// Complete resolves paths, parses addresses and derives the kubelet request timeout; delegated
// authentication and authorization use --kubeconfig unless given their own.
func (o *Options) Complete() (CompletedOptions, error) {
	c := &completedOptions{Options: *o}
	// Copies, so that completing twice (or after a flag change) starts from what was set.
	authn, authz := genericoptions.NewDelegatingAuthenticationOptions(), genericoptions.NewDelegatingAuthorizationOptions()
	if o.Authentication != nil {
		*authn = *o.Authentication
	}
	if o.Authorization != nil {
		*authz = *o.Authorization
	}
	c.Authentication, c.Authorization = authn, authz
	if c.Authentication.RemoteKubeConfigFile == "" {
		c.Authentication.RemoteKubeConfigFile = o.Kubeconfig
	}
	if c.Authorization.RemoteKubeConfigFile == "" {
		c.Authorization.RemoteKubeConfigFile = o.Kubeconfig
	}
	if o.CertDir != "" {
		dir, err := filepath.Abs(o.CertDir)
		if err != nil {
			return CompletedOptions{}, fmt.Errorf("cert dir %q: %w", o.CertDir, err)
		}
		c.CertDir = dir
	}
	if c.KubeletRequestTimeout == 0 {
		c.KubeletRequestTimeout = min(10*time.Second, c.MetricResolution*9/10)
	}

	c.BindIP = net.ParseIP(o.BindAddress)
	c.AdvertiseIP = net.ParseIP(o.AdvertiseAddress)
	switch {
	case o.AdvertiseAddress != "":
	case c.BindIP == nil:
	case c.BindIP.IsUnspecified():
		// Listening everywhere: advertise this host's address, as the generic apiserver does.
		if ip, err := utilnet.ResolveBindAddress(c.BindIP); err == nil {
			c.AdvertiseIP = ip
		} else {
			c.AdvertiseIP = net.IPv4(127, 0, 0, 1)
		}
	default:
		c.AdvertiseIP = c.BindIP
	}

	for _, t := range o.KubeletPreferredAddressTypes {
		c.AddressTypes = append(c.AddressTypes, corev1.NodeAddressType(strings.TrimSpace(t)))
	}
	if s := strings.TrimSpace(o.NodeSelector); s != "" {
		req, err := labels.ParseToRequirements(s)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("--node-selector %q: %w", s, err))
		}
		c.NodeRequirements = req
	}
	return CompletedOptions{c}, nil
}

// Validate reports every problem with the options at once.
func (o CompletedOptions) Validate() []error {
	errs := append([]error(nil), o.errs...)
	if o.MetricResolution < time.Second {
		errs = append(errs, fmt.Errorf("--metric-resolution %v must be at least 1s", o.MetricResolution))
	}
	if o.KubeletRequestTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--kubelet-request-timeout %v must be positive", o.KubeletRequestTimeout))
	} else if o.MetricResolution*9/10 < o.KubeletRequestTimeout {
		errs = append(errs, fmt.Errorf("--kubelet-request-timeout %v must be at most 90%% of --metric-resolution %v, so that a scrape ends before the next starts", o.KubeletRequestTimeout, o.MetricResolution))
	}
	if o.KubeletCAFile != "" && o.KubeletInsecureTLS {
		errs = append(errs, fmt.Errorf("cannot use both --kubelet-certificate-authority and --kubelet-insecure-tls"))
	}
	if (o.KubeletClientKeyFile != "") != (o.KubeletClientCertFile != "") {
		errs = append(errs, fmt.Errorf("need both --kubelet-client-key and --kubelet-client-certificate"))
	}
	known := []corev1.NodeAddressType{corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP}
	if len(o.AddressTypes) == 0 {
		errs = append(errs, fmt.Errorf("--kubelet-preferred-address-types must name at least one address type"))
	}
	for _, t := range o.AddressTypes {
		if !slices.Contains(known, t) {
			errs = append(errs, fmt.Errorf("--kubelet-preferred-address-types: unknown address type %q (known: %v)", t, known))
		}
	}
	if o.KubeletPort <= 0 || o.KubeletPort > 65535 {
		errs = append(errs, fmt.Errorf("--kubelet-port %d must be between 1 and 65535", o.KubeletPort))
	}
	if o.BindIP == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress))
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 0 and 65535", o.SecurePort))
	}
	switch {
	case o.AdvertiseAddress != "" && o.AdvertiseIP == nil:
		errs = append(errs, fmt.Errorf("--advertise-address %q is not an IP address", o.AdvertiseAddress))
	case o.Register && o.AdvertiseIP != nil && o.AdvertiseIP.IsUnspecified():
		errs = append(errs, fmt.Errorf("--advertise-address %s cannot be registered: give the address the chain can reach this server at", o.AdvertiseIP))
	case o.Register && o.AdvertiseIP != nil && o.AdvertiseIP.IsLoopback() && o.AdvertiseIP.To4() == nil:
		// EndpointSlices reject loopback addresses; an IPv4 loopback is registered as
		// metrics-server.localhost, which the chain dials at 127.0.0.1.
		errs = append(errs, fmt.Errorf("--advertise-address %s cannot be registered: metrics-server.localhost stands for 127.0.0.1; bind and advertise 127.0.0.1 instead", o.AdvertiseIP))
	}
	if o.CertDir == "" {
		errs = append(errs, fmt.Errorf("--cert-dir must not be empty"))
	}
	errs = append(errs, o.Authentication.Validate()...)
	errs = append(errs, o.Authorization.Validate()...)
	return errs
}
