package chain

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/kubeconfig"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/rbac/bootstrappolicy"
	"github.com/apichain/apichain/internal/sharedinformers"
	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/servers/metrics"
)

// What runs beside the three servers: the simulated kubelets and scheduler (controllers/), which
// make pods run and report usage, and the metrics server, which serves that usage through the
// aggregator.

// addControllers registers the post-start hook that starts the enabled controllers, each with
// the identity it has in a cluster (controllerCredentials). running counts every term of
// controllers until they have all returned: the chain closes etcd only after that.
func addControllers(s *genericapiserver.GenericAPIServer, o CompletedOptions, files pki.Files, running *sync.WaitGroup, tp *tracing.Provider, stopping *stopSteps) error {
	// What every term's Context is made from (a Context is used for one term only).
	c := controllers.Context{Nodes: o.Nodes, NodeStatusReportFrequency: o.NodeStatusReportFrequency, NodeCIDRMaskSize: o.NodeCIDRMaskSize}
	// Validate has parsed both.
	c.ClusterCIDR, _ = netip.ParsePrefix(o.ClusterCIDR)
	c.ServiceCIDR, _ = netip.ParsePrefix(o.ServiceClusterIPRange)
	if o.ControllerEnabled(controllers.RootCACertificatePublisher) {
		// What kube-controller-manager publishes as kube-root-ca.crt: the CA that signed the
		// serving certificate (--root-ca-file).
		var err error
		if c.RootCA, err = readFile(files.ServerCACert); err != nil {
			return fmt.Errorf("root CA for the root-ca-certificate-publisher-controller: %w", err)
		}
	}
	if o.ControllerEnabled(controllers.SimulatedKubelet) {
		var err error
		// The kubelet endpoint's certificate comes from the chain's server CA, which the metrics
		// server trusts for kubelets (as kubeadm's kubelet-serving signer).
		c.KubeletCert, c.KubeletKey, err = pki.IssueServingCert(files, "system:node:kubelets", pki.ServingNames{
			DNS: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
		if err != nil {
			return fmt.Errorf("kubelet serving certificate: %w", err)
		}
		// Callers show a certificate of the client CA, as to the chain itself.
		if c.KubeletClientCA, err = readFile(files.ClientCACert); err != nil {
			return fmt.Errorf("client CA for the simulated kubelets: %w", err)
		}
		// Their spans go where the chain's go (tracing.go).
		ktp, err := partTracing(tp, tracing.KubeletService)
		if err != nil {
			return err
		}
		if ktp != nil {
			c.KubeletTracerProvider = ktp
		}
	}
	if !slices.ContainsFunc(controllers.Names(), o.ControllerEnabled) {
		return nil
	}
	// Controllers work on the whole cluster: of several instances sharing one etcd, only the
	// leader runs them (--leader-elect).
	var stop struct {
		sync.Mutex
		cancel  context.CancelFunc // ends the election; set by the post-start hook
		stopped chan struct{}      // closed once the elector has let the Lease go
	}
	if o.LeaderElection.LeaderElect {
		// On shutdown the leader hands its Lease over (ReleaseOnCancel), so that another
		// instance takes over at once. The post-start hook's context ends only when the HTTP
		// server has stopped, too late for that last write; the chain's pre-shutdown work runs
		// while the server still accepts requests, so the election is ended there and waited for.
		stopping.add("controllers", func() error {
			stop.Lock()
			defer stop.Unlock()
			if stop.cancel == nil {
				return nil // never started
			}
			stop.cancel()
			select {
			case <-stop.stopped:
			case <-time.After(5 * time.Second):
				klog.InfoS("The controllers' Lease was not released in 5 s; the next leader waits for it to expire")
			}
			return nil
		})
	}
	return s.AddPostStartHook("start-chain-controllers", func(hc genericapiserver.PostStartHookContext) error {
		creds, err := controllerCredentials(hc.LoopbackClientConfig, files)
		if err != nil {
			return err
		}
		// The controller manager's own clients (system:kube-controller-manager): its informers,
		// discovery, leader election, and the tokens of its controllers' service accounts.
		client, err := kubernetes.NewForConfig(creds.ControllerManager)
		if err != nil {
			return err
		}
		meta, err := metadata.NewForConfig(creds.ControllerManager)
		if err != nil {
			return err
		}
		// Until Core's hook rbac/bootstrap-roles has written the bootstrap policy and the
		// authorizer has read it, the controller manager is refused (its informers would back
		// off, the elector wait its retry period): wait for it first.
		if err := waitAuthorized(hc, client, o); err != nil {
			return nil // stopping before it was ever needed
		}
		start := func(ctx context.Context) error {
			// A fresh Context and informers for every term of leadership: the last term's
			// stopped with it.
			term := &controllers.Context{Client: client, Metadata: meta, Credentials: creds, Informers: sharedinformers.New(client),
				RootCA: c.RootCA, ClusterCIDR: c.ClusterCIDR, ServiceCIDR: c.ServiceCIDR, NodeCIDRMaskSize: c.NodeCIDRMaskSize,
				Nodes: c.Nodes, NodeStatusReportFrequency: c.NodeStatusReportFrequency,
				KubeletCert: c.KubeletCert, KubeletKey: c.KubeletKey, KubeletClientCA: c.KubeletClientCA,
				KubeletTracerProvider: c.KubeletTracerProvider}
			err := controllers.Run(ctx, term, o.ControllerEnabled)
			// Counted once Run has returned: Wait must not start before Run's own counts.
			running.Go(term.Wait)
			return err
		}
		if !o.LeaderElection.LeaderElect {
			return start(hc)
		}
		stop.Lock()
		ctx, cancel := context.WithCancel(hc)
		stop.cancel, stop.stopped = cancel, make(chan struct{})
		stop.Unlock()
		return electLeader(ctx, client, o.LeaderElection, s.APIServerID, start, stop.stopped)
	})
}

// waitAuthorized waits until the bootstrap policy lets the controller manager (client) read
// the namespace kube-system and, with --leader-elect, the controllers' Lease. It returns an
// error only when ctx ends.
func waitAuthorized(ctx context.Context, client kubernetes.Interface, o CompletedOptions) error {
	return wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if _, err := client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		if !o.LeaderElection.LeaderElect {
			return true, nil
		}
		election := o.LeaderElection
		_, err := client.CoordinationV1().Leases(election.ResourceNamespace).Get(ctx, election.ResourceName, metav1.GetOptions{})
		return err == nil || apierrors.IsNotFound(err), nil
	})
}

// controllerCredentials are who the controllers act as (controllers.Credentials): not the
// servers' loopback client (system:apiserver in system:masters, exempt from API Priority and
// Fairness and from RBAC), but the identities a kubeadm cluster gives its components, so that
// the chain authenticates, authorizes and classifies their requests as kube-apiserver would
// (FlowSchemas kube-controller-manager and kube-system-service-accounts, kube-scheduler,
// system-nodes). Each is a client certificate of the client CA, as kubeadm's
// controller-manager.conf, scheduler.conf and the kubelets' client certificates; the
// controllers' service accounts get tokens through the controller manager's (controllers/
// credentials.go). They reach the servers as the loopback client does (same address, same
// pinned serving certificate), with these certificates instead of its token.
func controllerCredentials(loopback *rest.Config, files pki.Files) (*controllers.Credentials, error) {
	// The CA is read once: the kubelets' certificates are issued one a node, as nodes come.
	issuer, err := pki.NewClientIssuer(files)
	if err != nil {
		return nil, fmt.Errorf("the client CA: %w", err)
	}
	as := func(user string, groups []string) (*rest.Config, error) {
		certPEM, keyPEM, err := issuer.Issue(user, groups)
		if err != nil {
			return nil, fmt.Errorf("client certificate of %s: %w", user, err)
		}
		cfg := rest.CopyConfig(loopback)
		cfg.BearerToken, cfg.BearerTokenFile = "", ""
		cfg.CertData, cfg.KeyData = certPEM, keyPEM
		return cfg, nil
	}
	manager, err := as(user.KubeControllerManager, nil)
	if err != nil {
		return nil, err
	}
	scheduler, err := as(user.KubeScheduler, nil)
	if err != nil {
		return nil, err
	}
	return &controllers.Credentials{ControllerManager: manager, Scheduler: scheduler,
		Node: func(name string) (*rest.Config, error) {
			return as("system:node:"+name, []string{user.NodesGroup})
		}}, nil
}

func logFailure(what string, run func() error) {
	if err := run(); err != nil {
		klog.ErrorS(err, "controller stopped", "controller", what)
	}
}

// startMetrics runs the metrics server as --metrics says, against the chain at url. It runs
// until ctx is done; running counts it, so that the chain is only Done once it has stopped
// (a child process reaped, not left behind).
func startMetrics(ctx context.Context, o CompletedOptions, files pki.Files, url string, p progress, running *sync.WaitGroup, tp *tracing.Provider) error {
	// Written with --metrics=off too: it is what a metrics server on another host runs with.
	kubeconfigPath := filepath.Join(o.DataDir, "metrics-server.kubeconfig")
	if err := writeMetricsKubeconfig(kubeconfigPath, url, files); err != nil {
		return err
	}
	if o.Metrics == MetricsOff {
		return nil
	}
	mo := metrics.NewOptions()
	mo.Kubeconfig = kubeconfigPath
	mo.KubeletCAFile = files.ServerCACert
	mo.MetricResolution = o.MetricResolution
	mo.BindAddress, mo.SecurePort = "127.0.0.1", 0
	mo.CertDir = filepath.Join(o.DataDir, "metrics-server")
	// As metrics-server's own manifest (components.yaml) sets it: node names need not resolve.
	mo.KubeletPreferredAddressTypes = []string{"InternalIP", "ExternalIP", "Hostname"}
	// Stopped with the chain, it takes its registration along: the next start finds none.
	mo.WithdrawOnStop = true

	if o.Metrics == MetricsInProcess {
		// Its spans go where the chain's go (tracing.go).
		mtp, err := partTracing(tp, "metrics-server")
		if err != nil {
			return err
		}
		if mtp != nil {
			mo.TracerProvider = mtp
		}
		completed, err := mo.Complete()
		if err != nil {
			return err
		}
		if errs := completed.Validate(); len(errs) > 0 {
			return errs[0]
		}
		cfg, err := metrics.NewConfig(completed)
		if err != nil {
			return fmt.Errorf("metrics server config: %w", err)
		}
		server, err := cfg.Complete().New()
		if err != nil {
			return fmt.Errorf("creating the metrics server: %w", err)
		}
		prepared, err := server.PrepareRun()
		if err != nil {
			return err
		}
		running.Go(func() { logFailure("metrics server", func() error { return prepared.Run(ctx) }) })
		p.printf("metrics: metrics server in-process on https://%s", server.Addr())
		return nil
	}
	// The same settings, as the child's command line.
	args := []string{"metrics-server",
		"--kubeconfig=" + mo.Kubeconfig,
		"--kubelet-certificate-authority=" + mo.KubeletCAFile,
		"--metric-resolution=" + mo.MetricResolution.String(),
		"--bind-address=" + mo.BindAddress,
		"--secure-port=" + strconv.Itoa(mo.SecurePort),
		"--cert-dir=" + mo.CertDir,
		"--kubelet-preferred-address-types=" + strings.Join(mo.KubeletPreferredAddressTypes, ","),
		"--withdraw-on-stop",
	}
	if o.TracingConfigFile != "" {
		// Its spans go to the chain's collector: one trace there holds both processes.
		args = append(args, "--tracing-config-file="+o.TracingConfigFile)
	}
	if o.RecordTraces {
		// And to the chain's ring, so that chain trace shows its hops.
		args = append(args, "--trace-to-chain")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the chain binary for the metrics server: %w", err)
	}
	logPath := filepath.Join(o.DataDir, "metrics-server.log")
	logFile, err := openLog(logPath)
	if err != nil {
		return err
	}
	c := &child{name: "metrics-server", path: self, args: args, log: logFile,
		started: func(pid int) { klog.V(1).InfoS("metrics server started", "pid", pid) }}
	running.Go(func() {
		defer logFile.Close()
		c.run(ctx)
	})
	p.printf("metrics: metrics server as a child process (%s metrics-server, log in %s)", filepath.Base(self), logPath)
	return nil
}

// writeMetricsKubeconfig gives the metrics server its own identity: the user
// system:metrics-server, in no group. What it may do comes from the bootstrap policy
// (internal/rbac/bootstrappolicy/apichain.yaml): list and watch nodes and pods
// (system:metrics-server), read the authentication ConfigMap (metrics-server-auth-reader),
// create TokenReviews and SubjectAccessReviews (metrics-server:system:auth-delegator), and
// register itself (apichain:metrics-server-registration).
func writeMetricsKubeconfig(path, url string, files pki.Files) error {
	ca, err := readFile(files.ServerCACert)
	if err != nil {
		return err
	}
	certPEM, keyPEM, err := pki.IssueClientCert(files, bootstrappolicy.MetricsServerUser, nil)
	if err != nil {
		return err
	}
	return kubeconfig.Write(path, kubeconfig.Build(url, ca, kubeconfig.User{Name: bootstrappolicy.MetricsServerUser, Cert: certPEM, Key: keyPEM}))
}
