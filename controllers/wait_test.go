package controllers_test

import (
	"context"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/internal/sharedinformers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestWaitReturnsOnceEveryControllerHasReturned: every controller, the scheduler and the
// simulated kubelets run against a chain; once their context is done, Context.Wait returns
// only after all of them have returned: no goroutine of theirs is left.
func TestWaitReturnsOnceEveryControllerHasReturned(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = nil })
	client := kubernetes.NewForConfigOrDie(c.Admin)
	cert, key, err := pki.IssueServingCert(c.PKI, "system:node:kubelets", pki.ServingNames{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	mc := &controllers.Context{Client: client, Metadata: metadata.NewForConfigOrDie(c.Admin), Informers: sharedinformers.New(client),
		ClusterCIDR: netip.MustParsePrefix("10.224.0.0/11"), NodeCIDRMaskSize: 24,
		Nodes: 2, KubeletCert: cert, KubeletKey: key}
	if mc.KubeletClientCA, err = os.ReadFile(c.PKI.ClientCACert); err != nil {
		t.Fatal(err)
	}
	if mc.RootCA, err = os.ReadFile(c.PKI.ServerCACert); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := controllers.Run(ctx, mc, func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	// Running: their goroutines are there.
	if len(ours()) == 0 {
		t.Fatal("no goroutine of the controllers found running: the check below would prove nothing")
	}
	cancel()
	mc.Wait()
	if left := ours(); len(left) > 0 {
		t.Fatalf("Wait returned while %d goroutines of the controllers still ran; the first:\n%s", len(left), left[0])
	}
}

// ours are the stacks of the goroutines running code of the controllers or the kubelets.
func ours() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "apichain/apichain/controllers.") || strings.Contains(g, "apichain/apichain/controllers/") ||
			strings.Contains(g, "apichain/apichain/kubelet.") {
			if !strings.Contains(g, "TestWaitReturnsOnceEveryControllerHasReturned") && !strings.Contains(g, "controllers_test.ours") {
				found = append(found, g)
			}
		}
	}
	return found
}
