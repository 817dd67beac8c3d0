// Package chain is the composition root: it turns the command line into one shared generic
// configuration, builds the three servers inner-first and connects them by delegation, exactly
// as kube-apiserver's CreateServerChain does (cmd/kube-apiserver/app/server.go):
//
//	request → Aggregator ──delegate──▶ Core ──delegate──▶ ApiExtensions ──delegate──▶ NotFound
//
// It also owns what kube-apiserver leaves to others: the PKI, the embedded etcd and the admin
// kubeconfig. Options → Complete → Validate → NewConfig → Complete → CreateServerChain →
// PrepareRun → Run. Where the chain answers otherwise than kube-apiserver, on purpose, is in
// package departures, added by one named call each; the X-Chain-Server header that names the
// server answering (header.go, remote.go) is the chain's own teaching aid.
package chain

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cliflag "k8s.io/component-base/cli/flag"
	componentbaseconfig "k8s.io/component-base/config"
	componentbaseoptions "k8s.io/component-base/config/options"
	componentbasevalidation "k8s.io/component-base/config/validation"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/controllers/nodeipam"
	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/kubelet"
)

// Options are the chain's command-line options.
type Options struct {
	// DataDir holds what belongs to this instance alone: the embedded etcd's data,
	// admin.kubeconfig, the metrics server's files. One instance per data dir (it is locked).
	DataDir string
	// PKIDir holds the CAs, certificates and keys; empty means <data-dir>/pki. Several
	// instances that serve one cluster share it (it is created under a lock if missing).
	PKIDir string
	// BindAddress and SecurePort are where the chain serves HTTPS. Port 0 picks a free port.
	BindAddress string
	SecurePort  int
	// EtcdServers empty runs embedded etcd in the data dir; otherwise the chain uses that cluster.
	EtcdServers []string
	// EtcdCAFile, EtcdCertFile and EtcdKeyFile secure the connection to an external etcd
	// cluster with TLS: the CA that verifies the members, and this client's certificate.
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// EtcdCompactionInterval is kube-apiserver's --etcd-compaction-interval: how often the chain
	// asks etcd to drop the history older than the previous request's revision; 0 never does.
	// Watches and lists at a resourceVersion older than what is kept get 410 Gone.
	EtcdCompactionInterval time.Duration
	// IdentityLeaseDuration and IdentityLeaseRenewInterval tune the Lease
	// kube-system/apiserver-<hash> by which each instance says it is alive
	// (kube-apiserver's IdentityLeaseDurationSeconds and IdentityLeaseRenewIntervalPeriod).
	// Expired leases of other instances are deleted after about twice the duration.
	IdentityLeaseDuration, IdentityLeaseRenewInterval time.Duration
	// LeaderElection makes only one instance of those sharing an etcd run the controllers, as
	// kube-controller-manager's --leader-elect does.
	LeaderElection componentbaseconfig.LeaderElectionConfiguration
	// ServiceClusterIPRange is the CIDR that Service ClusterIPs are allocated from.
	ServiceClusterIPRange string
	// EventTTL is how long an Event is kept after it was last written (kube-apiserver's
	// --event-ttl): etcd deletes it then, through the lease it was written with.
	EventTTL time.Duration
	// Metrics says how the metrics server runs: as a supervised child process ("child"), on its
	// own listener inside this process ("in-process", for tests), or not at all ("off").
	Metrics string
	// MetricResolution is how often the metrics server scrapes the kubelets.
	MetricResolution time.Duration
	// Nodes is how many simulated nodes join the host node.
	Nodes int
	// NodeStatusReportFrequency is how often a simulated node posts its status when nothing in
	// it changed (the kubelet's nodeStatusReportFrequency); its Lease is renewed every 10 s.
	NodeStatusReportFrequency time.Duration
	// ClusterCIDR and NodeCIDRMaskSize are kube-controller-manager's --cluster-cidr and
	// --node-cidr-mask-size: the node-ipam-controller gives every node a range of
	// NodeCIDRMaskSize bits of ClusterCIDR, from which its pods get their addresses.
	ClusterCIDR      string
	NodeCIDRMaskSize int
	// Controllers lists the controllers to run, in kube-controller-manager's syntax: "*" for
	// all, "name" to add one, "-name" to leave one out; empty for none. Complete reads
	// kube-controller-manager's aliases ("deployment") as the names they stand for.
	Controllers []string
	// StartTimeout bounds the wait for /readyz; on expiry Start fails naming the checks that fail.
	StartTimeout time.Duration
	// RequestTimeout is kube-apiserver's --request-timeout: how long a request that is not a
	// watch may take before the chain answers 504 Timeout. It bounds a request to a hung
	// aggregated server or an unreachable etcd, and how long a graceful shutdown waits for
	// in-flight requests.
	RequestTimeout time.Duration
	// ShutdownWatchTerminationGracePeriod is kube-apiserver's
	// --shutdown-watch-termination-grace-period: on a graceful stop every watch is ended
	// cleanly, and their ends are spread over at most this long (at 200 a second or faster), so
	// that the clients of one of several instances do not all re-watch the others at once.
	ShutdownWatchTerminationGracePeriod time.Duration
	// UnsafeNoFsync runs the embedded etcd without fsync: faster, and acknowledged writes can be
	// lost in a crash. For tests only.
	UnsafeNoFsync bool
	// TokenAuthFile is kube-apiserver's --token-auth-file: a CSV of static bearer tokens
	// (token,user,uid,"group1,group2"), read once at start.
	TokenAuthFile string
	// RecordTraces keeps the most recent requests' traces in memory, bounded, for `chain trace`
	// and /debug/apichain/traces (internal/tracing).
	RecordTraces bool
	// RecordTracesPerSecond bounds what recording costs a busy chain: once started, it records
	// at most this many new requests a second (and a burst of as many), and counts those it
	// passes over. 0 records every request.
	RecordTracesPerSecond float64
	// TracingConfigFile is kube-apiserver's --tracing-config-file: a TracingConfiguration
	// (apiserver.config.k8s.io) whose endpoint receives the chain's spans over OTLP/gRPC,
	// sampled at its samplingRatePerMillion.
	TracingConfigFile string
	// EnablePriorityAndFairness is kube-apiserver's --enable-priority-and-fairness: API Priority
	// and Fairness admits every request at the head (flowcontrol.go); off, the older
	// max-in-flight limits do.
	EnablePriorityAndFairness bool
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight are kube-apiserver's
	// --max-requests-inflight and --max-mutating-requests-inflight: with API Priority and
	// Fairness their sum is the server's concurrency limit, shared among the priority levels;
	// without it, the limits on requests that read and that write.
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// EtcdSeed is not a flag: keys the embedded etcd is given when it starts empty, before the
	// servers start (chaintest's snapshot of what every chain's bootstrap writes alike).
	EtcdSeed []etcd.KeyValue

	Logs *logs.Options
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		DataDir:               ".chain",
		BindAddress:           "127.0.0.1",
		SecurePort:            6443,
		ServiceClusterIPRange: "10.0.0.0/24",
		EventTTL:              time.Hour, // kube-apiserver's default
		StartTimeout:          time.Minute,
		RequestTimeout:        time.Minute, // kube-apiserver's default
		// Upstream's default, 0, does not end watches at all on a stop (config.go).
		ShutdownWatchTerminationGracePeriod: 5 * time.Second,
		// kube-apiserver's default (storagebackend.NewDefaultConfig).
		EtcdCompactionInterval: 5 * time.Minute,
		Metrics:                MetricsChild,
		MetricResolution:       15 * time.Second,
		// The kubelet's default.
		NodeStatusReportFrequency: kubelet.DefaultStatusReportFrequency,
		// kube-controller-manager's default mask for IPv4: a /24 has room for the kubelet's
		// 110 pods. It has no default cluster CIDR; 10.224.0.0/11 holds 8,192 such ranges,
		// well above the 5,000 nodes Kubernetes supports. It contains 10.244.0.0/16, where
		// the chain's nodes had their ranges before (they keep them), and overlaps neither the
		// default Service range nor kubeadm's (10.96.0.0/12).
		ClusterCIDR:      "10.224.0.0/11",
		NodeCIDRMaskSize: 24,
		Controllers:      []string{"*"},
		RecordTraces:     true,
		// A hundred a second is more than a reader can follow (`chain trace`, the page), and
		// bounds recording's cost to a loaded chain to a few percent (docs/performance.md).
		RecordTracesPerSecond: 100,
		// kube-apiserver's defaults (k8s.io/apiserver pkg/server/options): a concurrency limit
		// of 600 under API Priority and Fairness.
		EnablePriorityAndFairness:   true,
		MaxRequestsInFlight:         400,
		MaxMutatingRequestsInFlight: 200,
		// kube-apiserver's defaults (pkg/controlplane/apiserver/server.go).
		IdentityLeaseDuration:      time.Hour,
		IdentityLeaseRenewInterval: 10 * time.Second,
		// kube-controller-manager's defaults (component-base config/v1alpha1), on a lease of the
		// chain's own: a real kube-controller-manager pointed at the chain does not compete with it.
		LeaderElection: componentbaseconfig.LeaderElectionConfiguration{
			LeaderElect:       true,
			LeaseDuration:     metav1.Duration{Duration: 15 * time.Second},
			RenewDeadline:     metav1.Duration{Duration: 10 * time.Second},
			RetryPeriod:       metav1.Duration{Duration: 2 * time.Second},
			ResourceLock:      "leases",
			ResourceName:      "apichain-controller-manager",
			ResourceNamespace: "kube-system",
		},
		Logs: logs.NewOptions(),
	}
}

// AddFlags adds the options' flags, grouped as kube-apiserver groups them.
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("chain")
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory of this instance: the embedded etcd data, admin.kubeconfig, the metrics server's files (and the PKI unless --pki-dir says otherwise); created if missing and reused across restarts. Only one chain may use it at a time.")
	fs.StringVar(&o.PKIDir, "pki-dir", o.PKIDir, "Directory of the CAs, certificates and keys; default <data-dir>/pki. Instances that serve one cluster (one --etcd-servers) share it; what is missing is created, under a lock.")
	fs.DurationVar(&o.IdentityLeaseDuration, "identity-lease-duration", o.IdentityLeaseDuration, "How long this instance's Lease kube-system/apiserver-<hash> is valid without renewal; expired leases of other instances are deleted. Whole seconds.")
	fs.DurationVar(&o.IdentityLeaseRenewInterval, "identity-lease-renew-interval", o.IdentityLeaseRenewInterval, "How often this instance renews its identity Lease.")
	fs.DurationVar(&o.StartTimeout, "start-timeout", o.StartTimeout, "How long to wait for the chain to become ready (/readyz) before giving up.")
	fs.DurationVar(&o.ShutdownWatchTerminationGracePeriod, "shutdown-watch-termination-grace-period", o.ShutdownWatchTerminationGracePeriod, "On a graceful stop, every watch is ended cleanly; their ends are spread over at most this long (kube-apiserver's --shutdown-watch-termination-grace-period). Must be positive: 0 would leave watches open until the stop gives up on them.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "How long a request other than a watch may take before the chain answers 504 Timeout (kube-apiserver's --request-timeout).")
	fs.BoolVar(&o.UnsafeNoFsync, "unsafe-no-fsync", o.UnsafeNoFsync, "Run the embedded etcd without fsync. Faster, but writes acknowledged before a crash can be lost. For tests only.")

	fs = fss.FlagSet("metrics and nodes")
	fs.StringVar(&o.Metrics, "metrics", o.Metrics, "How to run the metrics aggregated API server: child (a supervised child process), in-process (on its own listener in this process) or off.")
	fs.DurationVar(&o.MetricResolution, "metric-resolution", o.MetricResolution, "How often the metrics server scrapes the kubelets (1s at least).")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "Simulated nodes to add beside the host node; each has a kubelet endpoint with synthetic usage. At most one less than the node ranges --cluster-cidr holds (8191 by default).")
	fs.DurationVar(&o.NodeStatusReportFrequency, "node-status-report-frequency", o.NodeStatusReportFrequency, "How often a simulated node posts its status when nothing in it changed (the kubelet's nodeStatusReportFrequency); leases are renewed every 10s regardless.")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "CIDR range of the pods' addresses; the node-ipam-controller gives every node a range of --node-cidr-mask-size bits of it (IPv4).")
	fs.IntVar(&o.NodeCIDRMaskSize, "node-cidr-mask-size", o.NodeCIDRMaskSize, "Mask size of the range every node gets from --cluster-cidr.")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, fmt.Sprintf("Controllers to run: '*' for all, 'name' to add one, '-name' to leave one out; empty for none (the API servers and etcd alone, as envtest runs them). Known: %s (kube-controller-manager's older names, such as deployment, work too).", strings.Join(controllers.Names(), ", ")))

	componentbaseoptions.BindLeaderElectionFlags(&o.LeaderElection, fss.FlagSet("leader election"))

	fs = fss.FlagSet("secure serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to serve HTTPS.")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS. 0 picks a free port.")

	fs = fss.FlagSet("authentication")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "If set, the file that will be used to secure the secure port of the API server via token authentication.")

	fs = fss.FlagSet("traces")
	fs.BoolVar(&o.RecordTraces, "record-traces", o.RecordTraces, "Keep the most recent requests' traces in memory (bounded), for 'chain trace' and /debug/apichain/traces.")
	fs.Float64Var(&o.RecordTracesPerSecond, "record-traces-per-second", o.RecordTracesPerSecond, "With --record-traces: once the chain has started, record at most this many new requests a second (and a burst of as many), so that recording costs a busy chain little; 'chain trace' says how many it passed over. 0 records every request.")
	// kube-apiserver's name and help text (k8s.io/apiserver pkg/server/options/tracing.go).
	fs.StringVar(&o.TracingConfigFile, "tracing-config-file", o.TracingConfigFile, "File with apiserver tracing configuration.")

	fs = fss.FlagSet("priority and fairness")
	fs.BoolVar(&o.EnablePriorityAndFairness, "enable-priority-and-fairness", o.EnablePriorityAndFairness, "Admit requests with API Priority and Fairness (FlowSchemas and PriorityLevelConfigurations), as kube-apiserver does by default; false falls back to the max-in-flight limits.")
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight, "With --max-mutating-requests-inflight, the server's concurrency limit under API Priority and Fairness (their sum); without it, how many requests that do not write may run at once. 0 for no limit without it.")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInFlight, "With --max-requests-inflight, the server's concurrency limit under API Priority and Fairness (their sum); without it, how many requests that write may run at once. 0 for no limit without it.")

	fs = fss.FlagSet("etcd")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "Comma-separated etcd client URLs of an external cluster. Empty runs an embedded etcd in the data dir.")
	// kube-apiserver's names and help texts (k8s.io/apiserver pkg/server/options/etcd.go).
	fs.StringVar(&o.EtcdKeyFile, "etcd-keyfile", o.EtcdKeyFile, "SSL key file used to secure etcd communication.")
	fs.StringVar(&o.EtcdCertFile, "etcd-certfile", o.EtcdCertFile, "SSL certification file used to secure etcd communication.")
	fs.StringVar(&o.EtcdCAFile, "etcd-cafile", o.EtcdCAFile, "SSL Certificate Authority file used to secure etcd communication.")
	fs.DurationVar(&o.EventTTL, "event-ttl", o.EventTTL, "How long an Event is kept after it was last written (kube-apiserver's --event-ttl).")
	fs.DurationVar(&o.EtcdCompactionInterval, "etcd-compaction-interval", o.EtcdCompactionInterval, "How often the chain compacts etcd's history, keeping what is newer than the previous compaction's revision (kube-apiserver's --etcd-compaction-interval). 0 never compacts.")

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
	if c.PKIDir == "" {
		c.PKIDir = filepath.Join(dir, "pki")
	}
	if c.PKIDir, err = filepath.Abs(c.PKIDir); err != nil {
		return CompletedOptions{}, fmt.Errorf("pki dir %q: %w", o.PKIDir, err)
	}
	c.BindIP = net.ParseIP(o.BindAddress)
	var servers []string
	for _, s := range o.EtcdServers {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	c.EtcdServers = servers
	// Aliases (kube-controller-manager's short names, "podgc") become the names they stand for.
	c.Controllers = slices.Clone(o.Controllers)
	for i, name := range c.Controllers {
		if off, ok := strings.CutPrefix(name, "-"); ok {
			c.Controllers[i] = "-" + controllers.Canonical(off)
		} else {
			c.Controllers[i] = controllers.Canonical(name)
		}
	}
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
	errs = append(errs, o.validateNodes()...)
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
	if o.TracingConfigFile != "" {
		if _, err := tracing.ReadConfigFile(o.TracingConfigFile); err != nil {
			errs = append(errs, fmt.Errorf("--tracing-config-file: %v", err))
		}
	}
	if o.MaxRequestsInFlight < 0 || o.MaxMutatingRequestsInFlight < 0 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight %d and --max-mutating-requests-inflight %d must not be negative", o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight))
	} else if o.EnablePriorityAndFairness && o.MaxRequestsInFlight+o.MaxMutatingRequestsInFlight == 0 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight and --max-mutating-requests-inflight must add up to more than 0 with --enable-priority-and-fairness: their sum is the server's concurrency limit"))
	}
	if o.ShutdownWatchTerminationGracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--shutdown-watch-termination-grace-period %v must be positive", o.ShutdownWatchTerminationGracePeriod))
	}
	if o.RequestTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--request-timeout %v must be positive", o.RequestTimeout))
	}
	if o.RecordTracesPerSecond < 0 {
		errs = append(errs, fmt.Errorf("--record-traces-per-second %v must not be negative", o.RecordTracesPerSecond))
	}
	if o.EtcdCompactionInterval < 0 {
		errs = append(errs, fmt.Errorf("--etcd-compaction-interval %v must not be negative", o.EtcdCompactionInterval))
	}
	if o.EventTTL < time.Second || o.EventTTL%time.Second != 0 {
		// etcd leases count in whole seconds.
		errs = append(errs, fmt.Errorf("--event-ttl %v must be whole seconds, 1s or more", o.EventTTL))
	}
	if o.StartTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--start-timeout %v must be positive", o.StartTimeout))
	}
	for _, s := range o.EtcdServers {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "unix://") {
			errs = append(errs, fmt.Errorf("--etcd-servers entry %q must be a URL (http://, https:// or unix://)", s))
		}
	}
	errs = append(errs, o.validateEtcdTLS()...)
	if o.IdentityLeaseDuration < time.Second || o.IdentityLeaseDuration%time.Second != 0 {
		errs = append(errs, fmt.Errorf("--identity-lease-duration %v must be whole seconds, 1s or more", o.IdentityLeaseDuration))
	}
	if o.IdentityLeaseRenewInterval <= 0 || o.IdentityLeaseRenewInterval >= o.IdentityLeaseDuration {
		errs = append(errs, fmt.Errorf("--identity-lease-renew-interval %v must be positive and shorter than --identity-lease-duration %v", o.IdentityLeaseRenewInterval, o.IdentityLeaseDuration))
	}
	if o.LeaderElection.LeaderElect {
		for _, e := range componentbasevalidation.ValidateLeaderElectionConfiguration(&o.LeaderElection, nil) {
			errs = append(errs, fmt.Errorf("--leader-elect-*: %v", e))
		}
		if o.LeaderElection.ResourceLock != "leases" {
			errs = append(errs, fmt.Errorf("--leader-elect-resource-lock %q: only leases is supported", o.LeaderElection.ResourceLock))
		}
	}
	if o.Logs.Verbosity > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("-v %d must be between 0 and %d", o.Logs.Verbosity, math.MaxInt32))
	} else {
		for _, e := range logsapi.Validate(o.Logs, nil, nil) {
			errs = append(errs, fmt.Errorf("logging flags: %v", e))
		}
	}
	if st, err := os.Stat(o.DataDir); err == nil && !st.IsDir() {
		errs = append(errs, fmt.Errorf("--data-dir %q exists and is not a directory", o.DataDir))
	}
	return errs
}

// validateNodes checks the flags of the nodes and their pod ranges: what the node IPAM
// controller could not serve is refused before anything starts.
func (o CompletedOptions) validateNodes() []error {
	var errs []error
	ranges := -1
	if p, err := netip.ParsePrefix(o.ClusterCIDR); err != nil {
		errs = append(errs, fmt.Errorf("--cluster-cidr %q is not a CIDR: %v", o.ClusterCIDR, err))
	} else if !p.Addr().Is4() {
		errs = append(errs, fmt.Errorf("--cluster-cidr %q must be an IPv4 CIDR", o.ClusterCIDR))
	} else if o.NodeCIDRMaskSize < p.Bits() || o.NodeCIDRMaskSize > 30 {
		errs = append(errs, fmt.Errorf("--node-cidr-mask-size %d must be between %d (the mask of --cluster-cidr %s) and 30", o.NodeCIDRMaskSize, p.Bits(), o.ClusterCIDR))
	} else if n, err := nodeipam.Capacity(p, o.NodeCIDRMaskSize); err != nil {
		errs = append(errs, fmt.Errorf("--node-cidr-mask-size %d with --cluster-cidr %s: %v", o.NodeCIDRMaskSize, o.ClusterCIDR, err))
	} else {
		ranges = n
	}
	switch {
	case ranges > 0 && (o.Nodes < 0 || o.Nodes > ranges-1):
		errs = append(errs, fmt.Errorf("--nodes %d must be between 0 and %d: --cluster-cidr %s holds %d ranges of /%d, one of them the host node's", o.Nodes, ranges-1, o.ClusterCIDR, ranges, o.NodeCIDRMaskSize))
	case o.Nodes < 0:
		errs = append(errs, fmt.Errorf("--nodes %d must not be negative", o.Nodes))
	}
	if o.NodeStatusReportFrequency < time.Second {
		errs = append(errs, fmt.Errorf("--node-status-report-frequency %v must be 1s or more", o.NodeStatusReportFrequency))
	}
	return errs
}

// validateEtcdTLS checks the etcd client TLS files: they exist, and the certificate comes with its key.
func (o CompletedOptions) validateEtcdTLS() []error {
	var errs []error
	files := map[string]string{"--etcd-cafile": o.EtcdCAFile, "--etcd-certfile": o.EtcdCertFile, "--etcd-keyfile": o.EtcdKeyFile}
	for _, flag := range []string{"--etcd-cafile", "--etcd-certfile", "--etcd-keyfile"} {
		if files[flag] == "" {
			continue
		}
		if len(o.EtcdServers) == 0 {
			errs = append(errs, fmt.Errorf("%s is for an external etcd: it needs --etcd-servers", flag))
		}
		if st, err := os.Stat(files[flag]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", flag, err))
		} else if st.IsDir() {
			errs = append(errs, fmt.Errorf("%s %q is a directory", flag, files[flag]))
		}
	}
	if (o.EtcdCertFile == "") != (o.EtcdKeyFile == "") {
		errs = append(errs, fmt.Errorf("--etcd-certfile and --etcd-keyfile go together: give both or neither"))
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
