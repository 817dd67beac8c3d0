// Package chain is the composition root: it turns the command line into one shared generic
// configuration, builds the three servers inner-first and connects them by delegation, exactly
// as kube-apiserver's CreateServerChain does (cmd/kube-apiserver/app/server.go):
//
//	request → Aggregator ──delegate──▶ Core ──delegate──▶ ApiExtensions ──delegate──▶ NotFound
//
// It also owns what kube-apiserver leaves to others: the PKI, the embedded etcd and the admin
// kubeconfig. Options → Complete → Validate → NewConfig → Complete → CreateServerChain →
// PrepareRun → Run.
package chain

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/apichain/apichain/controllers"
)

// Options are the chain's command-line options.
type Options struct {
	// DataDir holds the PKI, the embedded etcd's data and admin.kubeconfig.
	DataDir string
	// BindAddress and SecurePort are where the chain serves HTTPS. Port 0 picks a free port.
	BindAddress string
	SecurePort  int
	// EtcdServers empty runs embedded etcd in the data dir; otherwise the chain uses that cluster.
	EtcdServers []string
	// ServiceClusterIPRange is the CIDR that Service ClusterIPs are allocated from.
	ServiceClusterIPRange string
	// Metrics says how the metrics server runs: as a supervised child process ("child"), on its
	// own listener inside this process ("in-process", for tests), or not at all ("off").
	Metrics string
	// MetricResolution is how often the metrics server scrapes the kubelets.
	MetricResolution time.Duration
	// Nodes is how many simulated nodes join the host node.
	Nodes int
	// Controllers lists the controllers to run, in kube-controller-manager's syntax: "*" for
	// all, "name" to add one, "-name" to leave one out.
	Controllers []string
	// StartTimeout bounds the wait for /readyz; on expiry Start fails naming the checks that fail.
	StartTimeout time.Duration
	// UnsafeNoFsync runs the embedded etcd without fsync: faster, and acknowledged writes can be
	// lost in a crash. For tests only.
	UnsafeNoFsync bool
	// TokenAuthFile is kube-apiserver's --token-auth-file: a CSV of static bearer tokens
	// (token,user,uid,"group1,group2"), read once at start.
	TokenAuthFile string

	Logs *logs.Options
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		DataDir:               ".chain",
		BindAddress:           "127.0.0.1",
		SecurePort:            6443,
		ServiceClusterIPRange: "10.0.0.0/24",
		StartTimeout:          time.Minute,
		Metrics:               MetricsChild,
		MetricResolution:      15 * time.Second,
		Controllers:           []string{"*"},
		Logs:                  logs.NewOptions(),
	}
}

// AddFlags adds the options' flags, grouped as kube-apiserver groups them.
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("chain")
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory for the PKI, the embedded etcd data and admin.kubeconfig; created if missing and reused across restarts.")
	fs.DurationVar(&o.StartTimeout, "start-timeout", o.StartTimeout, "How long to wait for the chain to become ready (/readyz) before giving up.")
	fs.BoolVar(&o.UnsafeNoFsync, "unsafe-no-fsync", o.UnsafeNoFsync, "Run the embedded etcd without fsync. Faster, but writes acknowledged before a crash can be lost. For tests only.")

	fs = fss.FlagSet("metrics and nodes")
	fs.StringVar(&o.Metrics, "metrics", o.Metrics, "How to run the metrics aggregated API server: child (a supervised child process), in-process (on its own listener in this process) or off.")
	fs.DurationVar(&o.MetricResolution, "metric-resolution", o.MetricResolution, "How often the metrics server scrapes the kubelets (1s at least).")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "Simulated nodes to add beside the host node; each has a kubelet endpoint with synthetic usage.")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, fmt.Sprintf("Controllers to run: '*' for all, 'name' to add one, '-name' to leave one out. Known: %s.", strings.Join(controllers.Names(), ", ")))

	fs = fss.FlagSet("secure serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to serve HTTPS.")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS. 0 picks a free port.")

	fs = fss.FlagSet("authentication")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "If set, the file that will be used to secure the secure port of the API server via token authentication.")

	fs = fss.FlagSet("etcd")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "Comma-separated etcd client URLs of an external cluster. Empty runs an embedded etcd in the data dir.")

	fs = fss.FlagSet("services")
	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", o.ServiceClusterIPRange, "A CIDR from which Service ClusterIPs are allocated; the first address goes to the kubernetes service.")

	logsapi.AddFlags(o.Logs, fss.FlagSet("logging"))
}

// CompletedOptions are Options with every default and derived value filled in.
type CompletedOptions struct {
	*completedOptions
}

type completedOptions struct {
	Options
	// BindIP is BindAddress parsed.
	BindIP net.IP
}

// Complete resolves the data dir to an absolute path and parses addresses.
func (o *Options) Complete() (CompletedOptions, error) {
	c := &completedOptions{Options: *o}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return CompletedOptions{}, fmt.Errorf("data dir %q: %w", o.DataDir, err)
	}
	c.DataDir = dir
	c.BindIP = net.ParseIP(o.BindAddress)
	var servers []string
	for _, s := range o.EtcdServers {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	c.EtcdServers = servers
	return CompletedOptions{c}, nil
}

// Validate reports every problem with the options at once.
func (o CompletedOptions) Validate() []error {
	var errs []error
	if o.BindIP == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress))
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 0 and 65535", o.SecurePort))
	}
	if p, err := netip.ParsePrefix(o.ServiceClusterIPRange); err != nil {
		errs = append(errs, fmt.Errorf("--service-cluster-ip-range %q is not a CIDR: %v", o.ServiceClusterIPRange, err))
	} else if bits := p.Addr().BitLen() - p.Bits(); bits < 2 {
		errs = append(errs, fmt.Errorf("--service-cluster-ip-range %q is too small: it needs room for at least two addresses", o.ServiceClusterIPRange))
	} else if p.Addr().Is4() && bits > 20 {
		errs = append(errs, fmt.Errorf("--service-cluster-ip-range %q is too large: the largest allowed is a /12", o.ServiceClusterIPRange))
	}
	switch o.Metrics {
	case MetricsChild, MetricsInProcess, MetricsOff:
	default:
		errs = append(errs, fmt.Errorf("--metrics %q must be one of %s, %s, %s", o.Metrics, MetricsChild, MetricsInProcess, MetricsOff))
	}
	if o.MetricResolution < time.Second {
		errs = append(errs, fmt.Errorf("--metric-resolution %v must be 1s or more", o.MetricResolution))
	}
	if o.Nodes < 0 {
		errs = append(errs, fmt.Errorf("--nodes %d must not be negative", o.Nodes))
	}
	for _, c := range o.Controllers {
		if name := strings.TrimPrefix(c, "-"); c != "*" && !slices.Contains(controllers.Names(), name) {
			errs = append(errs, fmt.Errorf("--controllers: unknown controller %q (known: %s)", name, strings.Join(controllers.Names(), ", ")))
		}
	}
	if o.TokenAuthFile != "" {
		if st, err := os.Stat(o.TokenAuthFile); err != nil {
			errs = append(errs, fmt.Errorf("--token-auth-file: %v", err))
		} else if st.IsDir() {
			errs = append(errs, fmt.Errorf("--token-auth-file %q is a directory", o.TokenAuthFile))
		}
	}
	if o.StartTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--start-timeout %v must be positive", o.StartTimeout))
	}
	for _, s := range o.EtcdServers {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "unix://") {
			errs = append(errs, fmt.Errorf("--etcd-servers entry %q must be a URL (http://, https:// or unix://)", s))
		}
	}
	if st, err := os.Stat(o.DataDir); err == nil && !st.IsDir() {
		errs = append(errs, fmt.Errorf("--data-dir %q exists and is not a directory", o.DataDir))
	}
	return errs
}

// How the metrics server runs (--metrics).
const (
	MetricsChild     = "child"
	MetricsInProcess = "in-process"
	MetricsOff       = "off"
)

// ControllerEnabled reports whether --controllers turns name on, as kube-controller-manager's
// IsControllerEnabled reads its --controllers: an explicit name or -name wins, then "*".
func (o CompletedOptions) ControllerEnabled(name string) bool {
	star := false
	for _, c := range o.Controllers {
		switch c {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	return star
}
