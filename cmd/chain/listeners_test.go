package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/test/procnet"
)

// TestSecurityListeners is docs/reliability.md's list of listeners, checked on the real binary
// with its defaults (`chain --nodes 1`): the chain process listens on the API port and the
// kubelet endpoints (one per node) over TCP and on etcd's socket; its metrics server child on one TCP port;
// nothing else. A caller without credentials gets nothing from any of them.
func TestSecurityListeners(t *testing.T) {
	r := startBinary(t, "--nodes", "1", "--metric-resolution", "1s")
	defer r.stop(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(r.dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	// Everything is listening once the metrics server has scraped the kubelets.
	var metricsPort int32
	waitFor(t, ctx, "node metrics", func(ctx context.Context) (bool, error) {
		slice, err := cs.DiscoveryV1().EndpointSlices("kube-system").Get(ctx, "metrics-server-fqdn", metav1.GetOptions{})
		if err != nil || len(slice.Ports) == 0 || slice.Ports[0].Port == nil {
			return false, nil
		}
		metricsPort = *slice.Ports[0].Port
		_, err = cs.RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes/sim-node-1").DoRaw(ctx)
		return err == nil, nil
	})
	// Every node's kubelet listens on a port of its own: the host's and sim-node-1's.
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("nodes: %v, %v", nodes, err)
	}
	var kubeletPorts []int32
	kubeletPort := int32(0) // sim-node-1's
	for _, n := range nodes.Items {
		kubeletPorts = append(kubeletPorts, n.Status.DaemonEndpoints.KubeletEndpoint.Port)
		if n.Name == "sim-node-1" {
			kubeletPort = n.Status.DaemonEndpoints.KubeletEndpoint.Port
		}
	}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	apiAddr := netip.MustParseAddrPort(u.Host)
	loopback := func(port int32) netip.AddrPort {
		return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	}

	pid := r.cmd.Process.Pid
	for _, p := range []struct {
		name string
		pid  int
		want procnet.Listeners
	}{
		{"chain", pid, procnet.Listeners{TCP: []netip.AddrPort{apiAddr, loopback(kubeletPorts[0]), loopback(kubeletPorts[1])}, Unix: []string{filepath.Join(r.dir, "etcd", "etcd.sock")}}},
		{"metrics server", waitChild(t, pid, 0), procnet.Listeners{TCP: []netip.AddrPort{loopback(metricsPort)}}},
	} {
		got, err := procnet.Of(p.pid)
		if err != nil {
			t.Fatal(err)
		}
		sortAddrs := func(a []netip.AddrPort) { slices.SortFunc(a, func(x, y netip.AddrPort) int { return x.Compare(y) }) }
		sortAddrs(got.TCP)
		sortAddrs(p.want.TCP)
		if !slices.Equal(got.TCP, p.want.TCP) || !slices.Equal(got.Unix, p.want.Unix) {
			t.Errorf("%s listens on %+v, want %+v", p.name, got, p.want)
		}
	}
	st, err := os.Stat(filepath.Join(r.dir, "etcd", "etcd.sock"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("etcd's socket: %v %v, want mode 0600", st.Mode(), err)
	}

	// No credentials: the TLS listeners authenticate, then authorize, every request.
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		url  string
		want int
	}{
		{cfg.Host + "/api/v1/secrets", http.StatusForbidden}, // system:anonymous, denied by RBAC
		{fmt.Sprintf("https://127.0.0.1:%d/metrics/resource", kubeletPort), http.StatusUnauthorized},
		{fmt.Sprintf("https://127.0.0.1:%d/apis/metrics.k8s.io/v1beta1/nodes", metricsPort), http.StatusForbidden},
	} {
		resp, err := anonymous.Get(tc.url)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s without credentials: %s %s, want %d", tc.url, resp.Status, body, tc.want)
		}
	}
}
