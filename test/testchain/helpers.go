package testchain

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/servers/chain"
)

// Clients returns a typed and a dynamic client for c's admin.
func Clients(t testing.TB, c *chain.Chain) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	return cs, dyn
}

// Eventually polls cond every 100 ms until it holds, and fails t if it does not within two
// minutes (or cond fails), saying what was waited for.
func Eventually(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// Kubectl runs kubectl against c as its admin and returns what it printed (stdout and stderr)
// and how it ended. The test is skipped where kubectl is not installed.
func Kubectl(t testing.TB, c *chain.Chain, args ...string) (string, error) {
	t.Helper()
	return KubectlInput(t, c, "", args...)
}

// KubectlInput is Kubectl with stdin as kubectl's input (`kubectl apply -f -`).
func KubectlInput(t testing.TB, c *chain.Chain, stdin string, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// FreeAddress is a loopback address with a port free at the time of the call (the kernel's
// pick, released): for a peer a test starts that must be told its port.
func FreeAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TracingConfigFile writes kube-apiserver's tracing configuration (--tracing-config-file) that
// exports every request's spans to the OTLP/gRPC collector at endpoint, and returns its path.
func TracingConfigFile(t testing.TB, endpoint string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tracing.yaml")
	config := "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: " + endpoint + "\nsamplingRatePerMillion: 1000000\n"
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
