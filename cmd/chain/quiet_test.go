package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

var (
	progressLine = regexp.MustCompile(`^\[ *\d+ms\] [a-z]+: `)
	klogLine     = regexp.MustCompile(`(?m)^([IWEF])\d{4} \d\d:\d\d:\d\d`)
)

// TestQuietStartAndRestart runs the binary as the README says and looks at what a user sees:
// progress lines on stdout, the README's sample but for what varies (times, paths, port, id),
// nothing on stderr (no warning, no error) through the start, the metrics server's
// registration and a graceful stop; the libraries' info lines are in <data-dir>/chain.log.
// Started again on the same data dir with -v=1, the terminal shows the info lines too, and
// still no warning or error.
func TestQuietStartAndRestart(t *testing.T) {
	r := startBinary(t)
	waitNodeMetrics(t, r, time.Now())
	r.stop(t)
	if got := r.stderr.String(); got != "" {
		t.Errorf("stderr of a clean start and stop:\n%s", got)
	}
	sample := readmeSample(t)
	if got := asInREADME(r.out, r.dir); !slices.Equal(got, sample) {
		t.Errorf("the README shows:\n%s\n\nthe binary printed (times, paths, port and id as in the README):\n%s",
			strings.Join(sample, "\n"), strings.Join(got, "\n"))
	}
	for _, l := range r.out[:len(r.out)-1] {
		if !progressLine.MatchString(l) {
			t.Errorf("stdout line %q is not a progress line", l)
		}
	}
	logPath := filepath.Join(r.dir, "chain.log")
	if !strings.Contains(r.out[0], "logs: "+logPath) {
		t.Errorf("the first line %q does not say where the log is (%s)", r.out[0], logPath)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(klogLine.FindAll(log, -1)); n < 20 {
		t.Errorf("%s holds %d log lines; want the libraries' info lines:\n%s", logPath, n, log)
	}

	r = startBinaryIn(t, r.dir, "--unsafe-no-fsync", "-v=1")
	waitNodeMetrics(t, r, time.Now())
	r.stop(t)
	severities := map[string]int{}
	for _, m := range klogLine.FindAllStringSubmatch(r.stderr.String(), -1) {
		severities[m[1]]++
	}
	if severities["I"] == 0 || severities["W"]+severities["E"]+severities["F"] > 0 {
		t.Errorf("stderr at -v=1 after a restart: %v lines by severity, want info lines only:\n%s", severities, r.stderr.String())
	}
}

// TestTopAnswersRightAfterReady: with a resolution of half an hour, a metrics server that
// waited a resolution for its second point would have nothing to show for that long; this one
// scrapes at once and a second later, so `kubectl top node` answers within the test's wait.
func TestTopAnswersRightAfterReady(t *testing.T) {
	r := startBinary(t, "--metric-resolution=30m")
	defer r.stop(t)
	waitNodeMetrics(t, r, time.Now())
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	out, err := exec.Command(kubectl, "top", "node", "--kubeconfig", filepath.Join(r.dir, "admin.kubeconfig")).CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*\n\S+\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%`).Match(out) {
		t.Errorf("kubectl top node: %v\n%s", err, out)
	}
}

// readmeSample is the output the README shows under `$ go run ./cmd/chain`, times left out.
func readmeSample(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "$ go run ./cmd/chain\n")
	sample, _, _ := strings.Cut(after, "```")
	if !ok || sample == "" {
		t.Fatal("README.md shows no output of `$ go run ./cmd/chain`")
	}
	return asInREADME(strings.Split(strings.TrimSuffix(sample, "\n"), "\n"), "/home/you/apichain/.chain")
}

// asInREADME rewrites output of the chain run on data dir dir as the README shows it: data dir
// /home/you/apichain/.chain, port 6443, the binary `chain`; times and the identity left out.
func asInREADME(out []string, dir string) []string {
	var rewritten []string
	for _, l := range out {
		l = strings.ReplaceAll(l, dir, "/home/you/apichain/.chain")
		for _, r := range []struct{ re, with string }{
			{`^\[ *\d+ms\]`, "[ms]"}, {`127\.0\.0\.1:\d+`, "127.0.0.1:6443"},
			{`apiserver-[a-z0-9]+`, "apiserver-<id>"}, {`\(\S*chain metrics-server,`, "(chain metrics-server,"},
		} {
			l = regexp.MustCompile(r.re).ReplaceAllString(l, r.with)
		}
		rewritten = append(rewritten, l)
	}
	return rewritten
}

// waitNodeMetrics waits until the chain serves the host node's usage, and logs how long that
// took after the export line (read at since).
func waitNodeMetrics(t *testing.T, r *running, since time.Time) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(r.dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(cfg)
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) > 0, nil
	})
	if err != nil {
		t.Fatalf("no node metrics: %v", err)
	}
	t.Logf("node metrics %v after the export line", time.Since(since).Round(10*time.Millisecond))
}
