package metrics_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/servers/metrics"
	"github.com/apichain/apichain/test/testchain"
)

// TestNewSeriesGetTwoQuickPoints: a usage needs two points, and with a resolution of half an
// hour a metrics server that only scraped once per resolution would serve nothing for that
// long. This one scrapes at once and a second later when it starts, and again when a node or a
// running pod appears, so each has a usage within the test's wait (a minute).
func TestNewSeriesGetTwoQuickPoints(t *testing.T) {
	c := testchain.Start(t)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	waitForReviews(t, cs)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake kubelet's containers started an hour ago: longer than the resolution, so their
	// start is no usable first point either.
	kubelet := newFakeKubelet(t)
	kubelet.setNode("node-a", &fakeNode{cpuCores: 1, memory: 1 << 30})
	createNode(t, cs, kubelet.node("node-a", nil))

	startServer(t, c, kubelet.caFile(t), filepath.Join(t.TempDir(), "certs"), func(o *metrics.Options) {
		o.MetricResolution = 30 * time.Minute
	})
	waitAvailable(t, aggregatorclient.NewForConfigOrDie(c.Admin))
	mc := metricsClient(t, c.Admin, runtime.ContentTypeJSON)
	nodeUsage := func(name string) func() bool {
		return func() bool {
			_, err := mc.MetricsV1().NodeMetricses().Get(ctx, name, metav1.GetOptions{})
			return err == nil
		}
	}
	poll(t, "node-a's usage, right after the start", nodeUsage("node-a"))

	kubelet.setNode("node-b", &fakeNode{cpuCores: 2, memory: 2 << 30})
	createNode(t, cs, kubelet.node("node-b", nil))
	poll(t, "the usage of node-b, which joined later", nodeUsage("node-b"))

	kubelet.addPod("node-a", fakePod{testNamespace, "late", []fakeContainer{{"app", 0.5, 32 << 20}}})
	createPod(t, cs, "late", "node-a", nil, corev1.PodRunning, "app")
	poll(t, "the usage of a pod that started later", func() bool {
		m, err := mc.MetricsV1().PodMetricses(testNamespace).Get(ctx, "late", metav1.GetOptions{})
		return err == nil && len(m.Containers) == 1
	})
}

// TestQuickScrapesKeepTheScraperMostlyIdle: in a large cluster something is new at every
// scrape, and a scrape takes long (a thousand kubelets, staggered). Quick scrapes must then
// come no sooner than ten times the last scrape's duration after it, or they would keep the
// scraper, and the kubelets, busy all the time. Here the kubelet takes 300 ms to answer and
// reports a new container every time: the scraper must be busy at most a fifth of the time
// (the rule gives a tenth; a scrape a second, as before, gave a third or more).
func TestQuickScrapesKeepTheScraperMostlyIdle(t *testing.T) {
	c := testchain.Start(t)
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	waitForReviews(t, cs)
	kubelet := newFakeKubelet(t)
	kubelet.setNode("node-a", &fakeNode{cpuCores: 1, memory: 1 << 30})
	kubelet.slow, kubelet.churn = 300*time.Millisecond, 1
	createNode(t, cs, kubelet.node("node-a", nil))

	startServer(t, c, kubelet.caFile(t), filepath.Join(t.TempDir(), "certs"), func(o *metrics.Options) {
		o.MetricResolution = 30 * time.Minute // so that every scrape after the first is a quick one
	})
	const scrapes = 5
	testchain.WaitFor(t, func() bool { return len(kubelet.spans()) >= scrapes })
	spans := kubelet.spans()[:scrapes]
	var busy time.Duration
	for _, s := range spans {
		busy += s.end.Sub(s.start)
	}
	total := spans[scrapes-1].end.Sub(spans[0].start)
	share := float64(busy) / float64(total)
	t.Logf("the kubelet was scraped %v of %v (%.0f%%)", busy, total, 100*share)
	if share > 0.2 {
		var each []string
		for _, s := range spans {
			each = append(each, fmt.Sprintf("+%v for %v", s.start.Sub(spans[0].start).Round(time.Millisecond), s.end.Sub(s.start).Round(time.Millisecond)))
		}
		t.Errorf("the kubelet was scraped %v of %v (%.0f%%), want at most a fifth: %s", busy, total, 100*share, strings.Join(each, ", "))
	}
}
