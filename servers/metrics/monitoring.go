package metrics

import (
	"net/http"
	"time"

	apimetrics "k8s.io/apiserver/pkg/endpoints/metrics"
	compbasemetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/apichain/apichain/servers/metrics/storage"
)

// serverMetrics are the metrics server's own metrics, served on /metrics after the apiserver's
// (metrics-server pkg/server/metrics.go and the monitoring.go of pkg/{api,scraper,storage}).
//
// metrics-server keeps them in package variables; here each Server has its own registry, so
// that several Servers can run in one process (tests) without registering anything twice.
// The kubelet request metrics have no node label: a series per node per bucket is what a
// 1000-node benchmark should not pay for.
type serverMetrics struct {
	registry        compbasemetrics.KubeRegistry
	tickDuration    *compbasemetrics.Histogram
	requestTotal    *compbasemetrics.CounterVec
	requestDuration *compbasemetrics.Histogram
	pointsStored    *compbasemetrics.GaugeVec
	freshness       *compbasemetrics.Histogram
}

func newServerMetrics(resolution, scrapeTimeout time.Duration) *serverMetrics {
	m := &serverMetrics{
		registry: compbasemetrics.NewKubeRegistry(),
		tickDuration: compbasemetrics.NewHistogram(&compbasemetrics.HistogramOpts{
			Namespace: "metrics_server", Subsystem: "manager", Name: "tick_duration_seconds",
			Help:    "The total time spent collecting and storing metrics in seconds.",
			Buckets: bucketsForScrapeDuration(resolution),
		}),
		requestTotal: compbasemetrics.NewCounterVec(&compbasemetrics.CounterOpts{
			Namespace: "metrics_server", Subsystem: "kubelet", Name: "request_total",
			Help: "Number of requests sent to Kubelet API",
		}, []string{"success"}),
		requestDuration: compbasemetrics.NewHistogram(&compbasemetrics.HistogramOpts{
			Namespace: "metrics_server", Subsystem: "kubelet", Name: "request_duration_seconds",
			Help:    "Duration of requests to Kubelet API in seconds",
			Buckets: bucketsForScrapeDuration(scrapeTimeout),
		}),
		pointsStored: compbasemetrics.NewGaugeVec(&compbasemetrics.GaugeOpts{
			Namespace: "metrics_server", Subsystem: "storage", Name: "points",
			Help: "Number of metrics points stored.",
		}, []string{"type"}),
		freshness: compbasemetrics.NewHistogram(&compbasemetrics.HistogramOpts{
			Namespace: "metrics_server", Subsystem: "api", Name: "metric_freshness_seconds",
			Help:    "Freshness of metrics exported",
			Buckets: compbasemetrics.ExponentialBuckets(1, 1.364, 20),
		}),
	}
	m.registry.MustRegister(m.tickDuration, m.requestTotal, m.requestDuration, m.pointsStored, m.freshness)
	return m
}

// ObserveKubeletRequest implements scraper.Observer.
func (m *serverMetrics) ObserveKubeletRequest(_ string, d time.Duration, err error) {
	m.requestDuration.Observe(d.Seconds())
	if err != nil {
		m.requestTotal.WithLabelValues("false").Inc()
	} else {
		m.requestTotal.WithLabelValues("true").Inc()
	}
}

func (m *serverMetrics) observeStore(s *storage.Storage, d time.Duration) {
	m.tickDuration.Observe(d.Seconds())
	nodes, containers := s.Points()
	m.pointsStored.WithLabelValues("node").Set(float64(nodes))
	m.pointsStored.WithLabelValues("container").Set(float64(containers))
}

func (m *serverMetrics) observeFreshness(age time.Duration) { m.freshness.Observe(age.Seconds()) }

// handler serves the apiserver's metrics (the process-wide legacy registry) followed by the
// metrics server's own, as metrics-server does.
func (m *serverMetrics) handler() http.HandlerFunc {
	apimetrics.Register() // once per process (sync.Once inside)
	own := compbasemetrics.HandlerFor(m.registry, compbasemetrics.HandlerOpts{})
	return func(w http.ResponseWriter, req *http.Request) {
		legacyregistry.Handler().ServeHTTP(w, req)
		own.ServeHTTP(w, req)
	}
}

// bucketsForScrapeDuration are Prometheus' default buckets with the scrape timeout added, so
// that timeouts stand out (metrics-server pkg/utils/monitoring.go).
func bucketsForScrapeDuration(scrapeTimeout time.Duration) []float64 {
	buckets := append([]float64(nil), compbasemetrics.DefBuckets...)
	maxBucket := buckets[len(buckets)-1]
	timeoutSeconds := scrapeTimeout.Seconds()
	if timeoutSeconds > maxBucket {
		halfway := maxBucket + (timeoutSeconds-maxBucket)/2
		return append(buckets, halfway, timeoutSeconds, timeoutSeconds*1.5, timeoutSeconds*2.0)
	}
	if timeoutSeconds == maxBucket {
		return buckets
	}
	var i int
	var bucket float64
	for i, bucket = range buckets {
		if bucket > timeoutSeconds {
			break
		}
	}
	if bucket-timeoutSeconds < buckets[0] || (i > 0 && timeoutSeconds-buckets[i-1] < buckets[0]) {
		// Close enough to a bucket already.
		return buckets
	}
	rest := append([]float64(nil), buckets[i:]...)
	return append(append(buckets[:i], timeoutSeconds), rest...)
}
