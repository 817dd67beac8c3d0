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
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

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
	logPath, logs, err := routeLogs(o, os.Stderr)
	if err != nil {
		return err
	}
	defer klog.Flush()
	// ctx ends when a stop is asked for (the command's signal context).
	stopWatching := context.AfterFunc(ctx, logs.stopAsked)
	defer stopWatching()
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

// lockDir takes an exclusive lock on <data-dir>/.lock, or says who holds it. The kernel
// drops the lock when the process ends, crashed or not.
func lockDir(dir string) (unlock func(), err error) {
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

// pollReady polls /readyz until it answers ok, the chain fails, or timeout passes; then it says
// which checks still fail (/readyz?verbose).
func pollReady(ctx context.Context, admin *rest.Config, runErr <-chan error, timeout time.Duration) error {
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
