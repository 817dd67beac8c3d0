package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// TestBeyondOneMachine runs the chain scaled out beyond one machine, with real processes and a
// real etcd cluster: three etcd members with TLS client certificates; two chain instances that
// share that cluster and one PKI directory (started at the same moment, so that they race to
// create it); a metrics server on its own, registered at a non-loopback address. Then it stops
// the etcd leader and SIGKILLs the chain instance that leads the controllers, and checks that
// every acknowledged write survives, that the other instance goes on serving (watches
// included), takes the controllers over, keeps its identity lease while the dead one's is
// collected, and that metrics still flow.
func TestBeyondOneMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster and three processes")
	}
	bin := build(t)
	etcd := startEtcdCluster(t, 3)
	pkiDir := t.TempDir()

	// Short leases (through the options) keep take-overs quick; nothing here sleeps.
	var insts [2]*chainInstance
	var wg sync.WaitGroup
	for i := range insts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			insts[i] = startInstance(t, bin, pkiDir, etcd)
		}()
	}
	wg.Wait()
	for _, in := range insts {
		if in == nil {
			t.FailNow() // startInstance said why
		}
	}
	a, b := insts[0], insts[1]
	if a.id == b.id {
		t.Fatalf("both instances have identity %s", a.id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Each instance holds its identity lease.
	for _, in := range insts {
		waitFor(t, ctx, "identity lease "+in.id, func(ctx context.Context) (bool, error) {
			l, err := a.cs.CoordinationV1().Leases("kube-system").Get(ctx, in.id, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil && l.Labels["apiserver.kubernetes.io/identity"] == "kube-apiserver", err
		})
	}
	// One of them leads the controllers.
	var leader, follower *chainInstance
	waitFor(t, ctx, "a controller-manager leader", func(ctx context.Context) (bool, error) {
		switch controllerLeader(ctx, b.cs) {
		case a.id:
			leader, follower = a, b
		case b.id:
			leader, follower = b, a
		}
		return leader != nil, nil
	})
	t.Logf("controllers lead by %s; %s follows", leader.id, follower.id)

	// Writes through one instance are read and watched through the other, both ways.
	ns := "multi"
	if _, err := leader.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := follower.cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	seen := watchNames(w)
	var acked []string
	write := func(via *chainInstance, name string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"via": via.id}}
		// A client retries what fails while a member or an instance goes away; only what the
		// chain acknowledged counts.
		waitFor(t, ctx, "writing "+name, func(ctx context.Context) (bool, error) {
			_, err := via.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			return err == nil || apierrors.IsAlreadyExists(err), nil
		})
		acked = append(acked, name)
	}
	for i := range 10 {
		write(leader, fmt.Sprintf("before-%d", i))
	}
	waitSeen(t, ctx, seen, acked)
	write(follower, "from-follower")
	if _, err := leader.cs.CoreV1().ConfigMaps(ns).Get(ctx, "from-follower", metav1.GetOptions{}); err != nil {
		t.Errorf("a write through one instance is not read through the other: %v", err)
	}

	// `chain etcdctl` reaches the TLS cluster with the files the instance recorded.
	if out, err := exec.Command(bin, "etcdctl", "--data-dir", follower.dir, "get", "--prefix", "--keys-only", "/registry/configmaps/"+ns+"/").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "/registry/configmaps/"+ns+"/from-follower") {
		t.Errorf("chain etcdctl on the TLS cluster: %v\n%s", err, out)
	}

	// ClusterIPs come from one allocator in etcd (compare-and-swap): Services created through
	// both instances at once never share an address.
	checkClusterIPsUnique(t, ctx, ns, a, b)

	// The metrics server runs on its own, registered at an address the chain reaches it at.
	advertise := nonLoopbackIPv4()
	ms := startMetricsServer(t, bin, follower, pkiDir, advertise)
	checkMetricsRegistration(t, ctx, follower.cs, advertise)
	for _, in := range insts {
		pollNodeMetrics(t, ctx, in, "through "+in.id)
	}

	// Losing one etcd member of three: clients see at most a retry.
	t.Logf("stopping etcd member %s", etcd.stopLeader(t))
	for i := range 10 {
		write(insts[i%2], fmt.Sprintf("member-down-%d", i))
	}
	waitSeen(t, ctx, seen, acked)

	// Losing the instance that runs the controllers, without a goodbye.
	// With the 3 s identity leases of this test, the etcd leader's loss can hold a renewal back
	// long enough for the other instance to delete the lease as expired; its holder writes it
	// again on its next renewal, as kube-apiserver's does.
	waitFor(t, ctx, follower.id+"'s identity lease", func(ctx context.Context) (bool, error) {
		_, err := follower.cs.CoordinationV1().Leases("kube-system").Get(ctx, follower.id, metav1.GetOptions{})
		return err == nil, nil
	})
	leaseBefore := renewTime(t, ctx, follower.cs, follower.id)
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = leader.cmd.Process.Wait()
	for i := range 5 {
		write(follower, fmt.Sprintf("instance-down-%d", i))
	}
	waitSeen(t, ctx, seen, acked)

	// Nothing acknowledged is lost.
	list, err := follower.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, cm := range list.Items {
		stored[cm.Name] = true
	}
	for _, name := range acked {
		if !stored[name] {
			t.Errorf("acknowledged ConfigMap %s is lost", name)
		}
	}

	// The survivor takes the controllers over: the lease moves, and the namespace controller
	// finishes a deletion.
	waitFor(t, ctx, "the survivor leading the controllers", func(ctx context.Context) (bool, error) {
		return controllerLeader(ctx, follower.cs) == follower.id, nil
	})
	if err := follower.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "namespace "+ns+" finalized by the survivor's namespace controller", func(ctx context.Context) (bool, error) {
		_, err := follower.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})

	// The dead instance's identity lease expires and is collected; the survivor's is renewed.
	waitFor(t, ctx, "collection of "+leader.id+"'s identity lease", func(ctx context.Context) (bool, error) {
		_, err := follower.cs.CoordinationV1().Leases("kube-system").Get(ctx, leader.id, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	waitFor(t, ctx, "renewal of "+follower.id+"'s identity lease", func(ctx context.Context) (bool, error) {
		return renewTime(t, ctx, follower.cs, follower.id).After(leaseBefore), nil
	})

	// Metrics still flow through the survivor (its kubelets now, the same metrics server).
	pollNodeMetrics(t, ctx, follower, "through the survivor")
	if ms.ProcessState != nil {
		t.Errorf("the metrics server exited: %v", ms.ProcessState)
	}
}

// chainInstance is one chain process.
type chainInstance struct {
	cmd *exec.Cmd
	dir string
	id  string
	cs  kubernetes.Interface
}

var identityLine = regexp.MustCompile(`identity: (apiserver-[a-z0-9]+)`)

// startInstance starts a chain process on its own data dir, the shared PKI dir and the etcd
// cluster, and waits for its export line. It reports failures with t.Error (it runs in a
// goroutine) and returns nil.
func startInstance(t *testing.T, bin, pkiDir string, etcd *etcdCluster) *chainInstance {
	dir := t.TempDir()
	cmd := exec.Command(bin, "--data-dir", dir, "--pki-dir", pkiDir, "--secure-port", "0",
		"--etcd-servers", strings.Join(etcd.ClientURLs, ","),
		"--etcd-cafile", etcd.CAFile, "--etcd-certfile", etcd.CertFile, "--etcd-keyfile", etcd.KeyFile,
		"--metrics", "off", "--nodes", "1",
		"--identity-lease-duration", "3s", "--identity-lease-renew-interval", "500ms",
		"--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s", "--leader-elect-retry-period", "500ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	cmd.Stderr = io.Discard
	if os.Getenv("CHAIN_TEST_VERBOSE") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	in := &chainInstance{cmd: cmd, dir: dir}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var out []string
	deadline := time.After(3 * time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Errorf("chain exited before it was ready:\n%s", strings.Join(out, "\n"))
				return nil
			}
			out = append(out, l)
			if m := identityLine.FindStringSubmatch(l); m != nil {
				in.id = m[1]
			}
			if strings.HasPrefix(l, "export KUBECONFIG=") {
				go func() { _, _ = io.Copy(io.Discard, stdout) }()
				cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
				if err == nil {
					cfg.QPS, cfg.Burst = 100, 200 // the test's bursts are not what throttling is for
					in.cs, err = kubernetes.NewForConfig(cfg)
				}
				if err != nil || in.id == "" {
					t.Errorf("instance in %s: identity %q, client: %v\n%s", dir, in.id, err, strings.Join(out, "\n"))
					return nil
				}
				return in
			}
		case <-deadline:
			t.Errorf("chain not ready within 3 minutes:\n%s", strings.Join(out, "\n"))
			return nil
		}
	}
}

// startMetricsServer runs `chain metrics-server` as on another host: its own process, bound to
// advertise, with the kubeconfig the chain wrote for it.
func startMetricsServer(t *testing.T, bin string, chain *chainInstance, pkiDir string, advertise net.IP) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "metrics-server",
		"--kubeconfig", filepath.Join(chain.dir, "metrics-server.kubeconfig"),
		"--bind-address", advertise.String(), "--secure-port", "0",
		"--cert-dir", t.TempDir(),
		"--kubelet-certificate-authority", filepath.Join(pkiDir, "ca.crt"),
		"--kubelet-preferred-address-types", "InternalIP",
		"--metric-resolution", "1s")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if os.Getenv("CHAIN_TEST_VERBOSE") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
}

// checkMetricsRegistration: the EndpointSlice holds the advertised IP (the .localhost name only
// for a loopback address).
func checkMetricsRegistration(t *testing.T, ctx context.Context, cs kubernetes.Interface, advertise net.IP) {
	t.Helper()
	wantType, wantAddr := discoveryv1.AddressTypeIPv4, advertise.String()
	if advertise.IsLoopback() {
		wantType, wantAddr = discoveryv1.AddressTypeFQDN, "metrics-server.localhost"
	}
	waitFor(t, ctx, "the metrics server's EndpointSlice at "+wantAddr, func(ctx context.Context) (bool, error) {
		list, err := cs.DiscoveryV1().EndpointSlices("kube-system").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=metrics-server"})
		if err != nil || len(list.Items) != 1 {
			return false, nil
		}
		s := list.Items[0]
		return s.AddressType == wantType && len(s.Endpoints) == 1 && len(s.Endpoints[0].Addresses) == 1 && s.Endpoints[0].Addresses[0] == wantAddr, nil
	})
}

func pollNodeMetrics(t *testing.T, ctx context.Context, in *chainInstance, what string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(in.dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(cfg)
	waitFor(t, ctx, "node metrics "+what, func(ctx context.Context) (bool, error) {
		list, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) > 0, nil
	})
}

// checkClusterIPsUnique creates Services through both instances concurrently.
func checkClusterIPsUnique(t *testing.T, ctx context.Context, ns string, insts ...*chainInstance) {
	t.Helper()
	const perInstance = 8
	var mu sync.Mutex
	ips := map[string]string{}
	var wg sync.WaitGroup
	for i, in := range insts {
		for j := range perInstance {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("svc-%d-%d", i, j)
				svc, err := in.cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
				}, metav1.CreateOptions{})
				if err != nil {
					t.Errorf("creating Service %s: %v", name, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if other, dup := ips[svc.Spec.ClusterIP]; dup {
					t.Errorf("Services %s and %s both got ClusterIP %s", other, name, svc.Spec.ClusterIP)
				}
				ips[svc.Spec.ClusterIP] = name
			}()
		}
	}
	wg.Wait()
}

// watchNames collects the names of objects a watch reports added.
func watchNames(w watch.Interface) *sync.Map {
	var seen sync.Map
	go func() {
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added {
				seen.Store(cm.Name, true)
			}
		}
	}()
	return &seen
}

func waitSeen(t *testing.T, ctx context.Context, seen *sync.Map, names []string) {
	t.Helper()
	waitFor(t, ctx, "the watch through the other instance to report every write", func(context.Context) (bool, error) {
		for _, n := range names {
			if _, ok := seen.Load(n); !ok {
				return false, nil
			}
		}
		return true, nil
	})
}

// controllerLeader is who holds the controller manager's lease.
func controllerLeader(ctx context.Context, cs kubernetes.Interface) string {
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, "apichain-controller-manager", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func renewTime(t *testing.T, ctx context.Context, cs kubernetes.Interface, name string) time.Time {
	t.Helper()
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
	if err != nil || l.Spec.RenewTime == nil {
		t.Fatalf("identity lease %s: %v", name, err)
	}
	return l.Spec.RenewTime.Time
}

// waitFor waits for cond, polling, up to two minutes (or ctx), and fails the test naming what did
// not happen.
func waitFor(t *testing.T, ctx context.Context, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// nonLoopbackIPv4 is an address of this host that is not loopback, as another host would reach
// the metrics server at; 127.0.0.1 when there is none.
func nonLoopbackIPv4() net.IP {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.To4()
		}
	}
	return net.IPv4(127, 0, 0, 1)
}
