package chain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/kubeconfig"
	"github.com/apichain/apichain/internal/pki"
)

// Chain is a running chain.
type Chain struct {
	// URL is where the chain serves, e.g. https://127.0.0.1:6443.
	URL string
	// Admin is a client config for user admin (group system:masters).
	Admin *rest.Config
	// KubeconfigPath is <data-dir>/admin.kubeconfig.
	KubeconfigPath string
	// PKI is the chain's certificates and keys (to issue more client certificates, say).
	PKI pki.Files

	cancel context.CancelFunc
	done   chan struct{}
	err    error
	// addons counts what runs beside the servers (the metrics server); Done waits for it.
	// Start holds one count until it returns, so that addons join before anyone waits.
	addons sync.WaitGroup

	// head is the Aggregator's full handler (filters, then its mux); core is the Core server's
	// own full handler, which the chain never serves (only the head's filters run). Kept for
	// the benchmark that measures what the delegation costs (servers/chain/bench_test.go).
	head, core http.Handler
}

// Done is closed once the chain has stopped and etcd is closed.
func (c *Chain) Done() <-chan struct{} { return c.done }

// Err is why the chain stopped; nil after a requested stop.
func (c *Chain) Err() error { <-c.done; return c.err }

// Stop shuts the chain down gracefully and waits until it has: in-flight requests finish,
// watches end, storage and etcd close.
func (c *Chain) Stop() error {
	c.cancel()
	return c.Err()
}

// progress prints one line per start-up stage, with the time since start.
type progress struct {
	out   io.Writer
	start time.Time
}

func (p progress) printf(format string, args ...any) {
	if p.out == nil {
		return
	}
	fmt.Fprintf(p.out, "[%6dms] %s\n", time.Since(p.start).Milliseconds(), fmt.Sprintf(format, args...))
}

// Run is the chain command: it sends the libraries' logs to <data-dir>/chain.log (logs.go),
// starts the chain, prints how to reach it, and serves until ctx is done.
func Run(ctx context.Context, o CompletedOptions, out io.Writer) error {
	p := progress{out: out, start: time.Now()}
	logPath, flushLog, err := routeLogs(o, os.Stderr)
	if err != nil {
		return err
	}
	defer flushLog()
	if o.Logs.Verbosity > 0 {
		p.printf("logs: %s, and here (-v=%d)", logPath, o.Logs.Verbosity)
	} else {
		p.printf("logs: %s (warnings and errors also here; -v=1 shows everything)", logPath)
	}
	c, err := start(ctx, o, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "export KUBECONFIG=%s\n", c.KubeconfigPath)
	<-c.Done()
	return c.Err()
}

// Start starts the chain and returns once it is ready (/readyz ok): PKI, etcd, the three
// servers, the admin kubeconfig. Cancel ctx, or call Stop, to stop it.
func Start(ctx context.Context, o CompletedOptions, out io.Writer) (*Chain, error) {
	return start(ctx, o, progress{out: out, start: time.Now()})
}

func start(ctx context.Context, o CompletedOptions, p progress) (*Chain, error) {
	restoreGC := relaxGC()
	defer restoreGC()
	ctx, cancel := context.WithCancel(ctx)
	fail := func(err error) (*Chain, error) { cancel(); return nil, err }

	// One instance per data dir: two embedded etcds (or two admin kubeconfigs) in one directory
	// would wreck each other. Instances of one cluster share --pki-dir and --etcd-servers instead.
	unlockDataDir, err := lockDataDir(o.DataDir)
	if err != nil {
		return fail(err)
	}
	fail = func(err error) (*Chain, error) { cancel(); unlockDataDir(); return nil, err }

	files := pki.FilesIn(o.PKIDir)
	created, err := pki.Ensure(files, servingNames(o))
	if err != nil {
		return fail(fmt.Errorf("pki: %w", err))
	}
	p.printf("pki: %s (%s)", map[bool]string{true: "created", false: "reused"}[created], files.Dir)

	etcdServers := o.EtcdServers
	var member *etcd.Server
	if len(etcdServers) == 0 {
		member, err = etcd.Start(ctx, etcd.Config{Dir: filepath.Join(o.DataDir, "etcd"), UnsafeNoFsync: o.UnsafeNoFsync})
		if err != nil {
			return fail(err)
		}
		etcdServers = []string{member.ClientURL}
		p.printf("etcd: embedded member serving on %s, for this user only (data in %s)", member.ClientURL, filepath.Join(o.DataDir, "etcd"))
	} else {
		p.printf("etcd: external cluster %v%s", etcdServers, map[bool]string{true: " (TLS client certificate)", false: ""}[o.EtcdCertFile != ""])
	}
	if err := etcd.WriteEndpoints(o.DataDir, etcdServers, etcd.TLSFiles{CAFile: o.EtcdCAFile, CertFile: o.EtcdCertFile, KeyFile: o.EtcdKeyFile}); err != nil {
		if member != nil {
			member.Close()
		}
		return fail(err)
	}
	closeEtcd := func() {
		if member != nil {
			member.Close()
		}
	}

	config, err := NewConfig(o, files, etcdServers)
	if err != nil {
		closeEtcd()
		return fail(fmt.Errorf("configuring the chain: %w", err))
	}
	completed := config.Complete()
	url := "https://" + net.JoinHostPort(publicAddress(o.BindIP).String(), strconv.Itoa(listenerPort(config.Aggregator.GenericConfig.SecureServing.Listener)))
	p.printf("config: one listener on %s, authentication (x509, front-proxy, tokens) and authorization (RBAC) at the head", url)

	head, err := CreateServerChain(completed)
	if err != nil {
		config.Aggregator.GenericConfig.SecureServing.Listener.Close()
		closeEtcd()
		return fail(err)
	}
	if err := addIdentityLease(head.GenericAPIServer, o); err != nil {
		config.Aggregator.GenericConfig.SecureServing.Listener.Close()
		closeEtcd()
		return fail(err)
	}
	if err := addControllers(head.GenericAPIServer, o, files); err != nil {
		config.Aggregator.GenericConfig.SecureServing.Listener.Close()
		closeEtcd()
		return fail(err)
	}
	prepared, err := head.PrepareRun()
	if err != nil {
		config.Aggregator.GenericConfig.SecureServing.Listener.Close()
		closeEtcd()
		return fail(fmt.Errorf("preparing the chain: %w", err))
	}
	p.printf("servers: aggregator → core → apiextensions → not-found")
	p.printf("identity: %s (Lease kube-system/%s)", head.GenericAPIServer.APIServerID, head.GenericAPIServer.APIServerID)

	c := &Chain{URL: url, KubeconfigPath: filepath.Join(o.DataDir, "admin.kubeconfig"), PKI: files, cancel: cancel, done: make(chan struct{})}
	c.head = head.GenericAPIServer.Handler
	if core, ok := head.GenericAPIServer.NextDelegate().(*genericapiserver.GenericAPIServer); ok {
		c.core = core.Handler
	}
	// A metrics server withdraws its registration when it stops (servers/metrics), through the
	// chain; the chain accepts requests until its pre-shutdown hooks are done, so one of them
	// waits for the addons (at most 15 s: a child that does not stop is killed after 10).
	if err := head.GenericAPIServer.AddPreShutdownHook("stop-chain-addons", func() error {
		stopped := make(chan struct{})
		go func() { c.addons.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(15 * time.Second):
		}
		return nil
	}); err != nil {
		config.Aggregator.GenericConfig.SecureServing.Listener.Close()
		closeEtcd()
		return fail(err)
	}
	c.addons.Add(1)
	runErr := make(chan error, 1)
	go func() {
		err := prepared.Run(ctx)
		if err == nil && ctx.Err() == nil {
			err = errors.New("the chain stopped serving")
		}
		cancel() // the servers stopped on their own: stop the addons too
		c.err = err
		runErr <- err
		c.addons.Wait()
		closeEtcd()
		unlockDataDir()
		close(c.done)
	}()
	abort := func(err error) (*Chain, error) {
		cancel()
		c.addons.Done()
		<-c.done
		return nil, err
	}
	if member != nil {
		go func() {
			select {
			case err := <-member.Err():
				if err != nil {
					fmt.Fprintf(os.Stderr, "embedded etcd failed: %v\n", err)
					cancel()
				}
			case <-c.done:
			}
		}()
	}

	admin, err := writeAdminKubeconfig(c.KubeconfigPath, url, files)
	if err != nil {
		return abort(err)
	}
	c.Admin = admin
	p.printf("serving: %s", url)

	if err := waitReady(ctx, admin, runErr, o.StartTimeout); err != nil {
		return abort(err)
	}
	p.printf("ready: /readyz ok")
	if err := startMetrics(ctx, o, files, url, p, &c.addons); err != nil {
		return abort(fmt.Errorf("starting the metrics server: %w", err))
	}
	c.addons.Done()
	// Start-up builds a lot that is garbage once the chain serves (the OpenAPI specs of every
	// group, merged and marshalled; discovery documents; the first lists of every informer).
	// Left alone, the Go runtime keeps that memory for minutes before it returns it to the
	// OS; give it back now, once, so the chain's footprint is what it needs to serve. In the
	// background, as the last thing: it is a full collection. So is restoring the GC target
	// (the heap is far past the restored target's goal; the collection that starts at once
	// makes every allocating goroutine help it), so that comes last too.
	restoreGC()
	go debug.FreeOSMemory()
	return c, nil
}

// lockDataDir takes an exclusive lock on <data-dir>/.lock, or says who holds it. The kernel
// drops the lock when the process ends, crashed or not.
func lockDataDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the data dir lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("--data-dir %s is in use by another chain; instances of one cluster share --etcd-servers and --pki-dir, each with its own --data-dir", dir)
		}
		return nil, fmt.Errorf("locking the data dir: %w", err)
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }, nil
}

// waitReady polls /readyz until it answers ok, the chain fails, or timeout passes; then it says
// which checks still fail (/readyz?verbose).
func waitReady(ctx context.Context, admin *rest.Config, runErr <-chan error, timeout time.Duration) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	readyz := func(ctx context.Context, verbose bool) ([]byte, error) {
		req := cs.Discovery().RESTClient().Get().AbsPath("/readyz")
		if verbose {
			req = req.Param("verbose", "true")
		}
		return req.DoRaw(ctx)
	}
	var stopped error
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-runErr:
			stopped = err
			return false, err
		default:
		}
		_, err := readyz(ctx, false)
		return err == nil, nil
	})
	switch {
	case err == nil:
		return nil
	case stopped != nil:
		return fmt.Errorf("the chain stopped before it was ready: %w", stopped)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// Timed out: report what is still not ready.
	shortCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body, verr := readyz(shortCtx, true)
	if len(body) == 0 && verr != nil {
		body = []byte(verr.Error())
	}
	return fmt.Errorf("the chain was not ready within %v; /readyz?verbose says:\n%s", timeout, body)
}

func writeAdminKubeconfig(path, url string, files pki.Files) (*rest.Config, error) {
	ca, err := readFile(files.ServerCACert)
	if err != nil {
		return nil, err
	}
	certPEM, err := readFile(files.AdminCert)
	if err != nil {
		return nil, err
	}
	keyPEM, err := readFile(files.AdminKey)
	if err != nil {
		return nil, err
	}
	cfg := kubeconfig.Build(url, ca, kubeconfig.User{Name: "admin", Cert: certPEM, Key: keyPEM})
	if err := kubeconfig.Write(path, cfg); err != nil {
		return nil, err
	}
	return kubeconfig.RESTConfig(cfg)
}

// servingNames are the names the serving certificate covers: loopback, the bind address, and
// the in-cluster names of the kubernetes service.
func servingNames(o CompletedOptions) pki.ServingNames {
	names := pki.ServingNames{
		DNS: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if p, err := netip.ParsePrefix(o.ServiceClusterIPRange); err == nil {
		names.IPs = append(names.IPs, net.IP(p.Masked().Addr().Next().AsSlice()))
	}
	switch {
	case o.BindIP == nil || o.BindIP.IsLoopback():
	case o.BindIP.IsUnspecified():
		// Serving on every interface: cover this host's name and addresses.
		if h, err := os.Hostname(); err == nil {
			names.DNS = append(names.DNS, h)
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() {
					names.IPs = append(names.IPs, ipn.IP)
				}
			}
		}
	default:
		names.IPs = append(names.IPs, o.BindIP)
	}
	return names
}
