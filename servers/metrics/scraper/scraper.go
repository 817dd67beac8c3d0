// Package scraper collects resource metrics from every node's kubelet: it lists the Nodes the
// metrics server's informer knows, fetches each kubelet's /metrics/resource over HTTPS in
// parallel, decodes the Prometheus text and merges the results into one batch for storage.
// It is metrics-server's pkg/scraper, ported; the metrics server's scrape loop calls Scrape
// once per resolution.
package scraper

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	apitypes "k8s.io/apimachinery/pkg/types"
	v1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/servers/metrics/storage"
)

// Staggering spreads the requests of a scrape over time so that they do not all leave at once
// (metrics-server pkg/scraper/scraper.go): 8 ms per node, at most 4 s.
const (
	maxStagger     = 4 * time.Second
	staggerPerNode = 8 * time.Millisecond
)

// Observer is told about every kubelet request (for the metrics server's own metrics).
type Observer interface {
	ObserveKubeletRequest(node string, duration time.Duration, err error)
}

// Config configures a Scraper.
type Config struct {
	Nodes   v1listers.NodeLister
	Kubelet KubeletMetricsGetter
	// Timeout bounds each kubelet request.
	Timeout time.Duration
	// MaxStagger bounds the random delay before each request; metrics-server uses 4 s. The
	// metrics server keeps stagger + Timeout within the resolution.
	MaxStagger time.Duration
	// NodeSelector limits scraping to matching nodes (--node-selector); nil for all.
	NodeSelector labels.Selector
	// Observer may be nil.
	Observer Observer
}

// Scraper scrapes every node; it is safe for concurrent use.
type Scraper struct {
	Config
}

// New returns a Scraper.
func New(c Config) *Scraper {
	if c.NodeSelector == nil {
		c.NodeSelector = labels.Everything()
	}
	return &Scraper{Config: c}
}

// Scrape fetches every node's metrics and returns them as one batch. A node that fails is
// logged and left out: the batch holds what could be collected.
func (s *Scraper) Scrape(ctx context.Context) *storage.MetricsBatch {
	nodes, err := s.Nodes.List(s.NodeSelector)
	if err != nil {
		// Go on with what the lister gave.
		klog.ErrorS(err, "Failed to list nodes")
	}
	klog.V(1).InfoS("Scraping metrics from nodes", "nodeCount", len(nodes), "nodeSelector", s.NodeSelector)
	startTime := time.Now()

	stagger := min(staggerPerNode*time.Duration(len(nodes)), s.MaxStagger)
	results := make(chan *storage.MetricsBatch, len(nodes))
	for _, node := range nodes {
		var delay time.Duration
		if stagger > 0 {
			delay = rand.N(stagger)
		}
		go func() { results <- s.scrapeNode(ctx, node, delay) }()
	}

	batches := make([]*storage.MetricsBatch, 0, len(nodes))
	npods := 0
	for range nodes {
		if b := <-results; b != nil {
			batches = append(batches, b)
			npods += len(b.Pods)
		}
	}
	res := &storage.MetricsBatch{
		Nodes: make(map[string]storage.MetricsPoint, len(batches)),
		Pods:  make(map[apitypes.NamespacedName]storage.PodMetricsPoint, npods),
	}
	for _, b := range batches {
		for name, p := range b.Nodes {
			if _, dup := res.Nodes[name]; dup {
				klog.ErrorS(nil, "Got duplicate node point", "node", klog.KRef("", name))
				continue
			}
			res.Nodes[name] = p
		}
		for ref, p := range b.Pods {
			if _, dup := res.Pods[ref]; dup {
				klog.ErrorS(nil, "Got duplicate pod point", "pod", klog.KRef(ref.Namespace, ref.Name))
				continue
			}
			res.Pods[ref] = p
		}
	}
	klog.V(1).InfoS("Scrape finished", "duration", time.Since(startTime), "nodeCount", len(res.Nodes), "podCount", len(res.Pods))
	return res
}

// scrapeNode waits delay, then fetches node's metrics within the timeout.
func (s *Scraper) scrapeNode(ctx context.Context, node *corev1.Node, delay time.Duration) *storage.MetricsBatch {
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	klog.V(2).InfoS("Scraping node", "node", klog.KObj(node))
	start := time.Now()
	b, err := s.Kubelet.GetMetrics(ctx, node)
	if s.Observer != nil {
		s.Observer.ObserveKubeletRequest(node.Name, time.Since(start), err)
	}
	if err != nil {
		switch {
		case !nodeIsReady(node):
			klog.V(4).InfoS("Failed to scrape node, node is not ready", "node", klog.KObj(node), "err", err)
		case errors.Is(err, context.DeadlineExceeded):
			klog.ErrorS(err, "Failed to scrape node, timeout to access kubelet", "node", klog.KObj(node), "timeout", s.Timeout)
		default:
			klog.ErrorS(err, "Failed to scrape node", "node", klog.KObj(node))
		}
		return nil
	}
	return b
}

func nodeIsReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
