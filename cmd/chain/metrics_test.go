package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// TestMetricsChildIsSupervised kills the metrics server child: the chain starts it again and
// node metrics come back through the aggregator, with nobody's help.
func TestMetricsChildIsSupervised(t *testing.T) {
	r := startBinary(t, "--nodes", "1", "--metric-resolution", "1s")
	defer r.stop(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(r.dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(cfg)
	nodeMetrics := func(ctx context.Context) (bool, error) {
		l, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 2, nil
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, nodeMetrics); err != nil {
		t.Fatalf("no node metrics: %v", err)
	}
	first := waitChild(t, r.cmd.Process.Pid, 0)
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	second := waitChild(t, r.cmd.Process.Pid, first)
	if second == first {
		t.Fatal("the child was not restarted")
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, nodeMetrics); err != nil {
		t.Fatalf("node metrics did not come back after the child was restarted: %v", err)
	}

	// kubectl top, where kubectl is installed.
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	cmd := exec.Command(kubectl, "top", "node", "--kubeconfig", filepath.Join(r.dir, "admin.kubeconfig"))
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*\n(.*\n)*sim-node-1\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%`).Match(out) {
		t.Errorf("kubectl top node: %v\n%s", err, out)
	}
}
