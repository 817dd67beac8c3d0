// Package metrics is the metrics.k8s.io aggregated API server, kubernetes-sigs/metrics-server
// ported: it scrapes every node's kubelet (/metrics/resource) once per resolution, keeps the
// latest two points per node and container, and serves NodeMetrics and PodMetrics (v1beta1 and
// v1) for kubectl top and the HPA.
//
// It sits outside the chain, a GenericAPIServer of its own with its own listener, and reaches
// the chain only over HTTP with client-go: it reads Nodes and Pods, delegates authentication
// (TokenReview, the front-proxy CA from kube-system/extension-apiserver-authentication) and
// authorization (SubjectAccessReview), and registers itself:
//
//	client → Aggregator ─APIService v1.metrics.k8s.io → Service kube-system/metrics-server
//	         → EndpointSlice → proxy (front-proxy certificate, X-Remote-User) ─▶ this server
//
// The chain runs it as a child process (`chain metrics-server`), in-process on its own
// listener (tests), or not at all. Lifecycle, as every server of the chain: Options → Complete
// → Validate → NewConfig → Complete → New → PrepareRun → Run.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/internal/workgroup"
	"github.com/apichain/apichain/servers/metrics/api"
	"github.com/apichain/apichain/servers/metrics/scraper"
	"github.com/apichain/apichain/servers/metrics/storage"
)

// Server is the metrics server (metrics-server pkg/server/server.go).
type Server struct {
	GenericAPIServer *genericapiserver.GenericAPIServer

	store      *storage.Storage
	scraper    *scraper.Scraper
	kubelet    *scraper.KubeletClient
	resolution time.Duration
	metrics    *serverMetrics
	// registration is nil without --register.
	registration *registration
	addr         string

	nodeInformers informers.SharedInformerFactory
	podInformers  metadatainformer.SharedInformerFactory
	nodesSynced   cache.InformerSynced
	podsSynced    cache.InformerSynced

	// appeared is signalled when a node or running pod appears (runScrape).
	appeared chan struct{}
	// tickLastStart is when the latest scrape started (for metric-collection-timely).
	tickMu        sync.RWMutex
	tickLastStart time.Time

	// work counts the goroutines the hooks start; once stopped, no more start.
	work workgroup.Group
}

// New builds the server: the metrics.k8s.io group installed, informers of the chain's Nodes
// and running Pods, the kubelet client, the scraper and its storage, health checks, and the
// post-start hooks that start the work. Nothing runs until Run. On error the listener that
// NewConfig opened is closed.
func (c CompletedConfig) New() (*Server, error) {
	s, err := c.newServer()
	if err != nil {
		c.Generic.SecureServing.Listener.Close()
		return nil, err
	}
	return s, nil
}

func (c CompletedConfig) newServer() (*Server, error) {
	x := c.Extra
	generic, err := c.Generic.New("metrics-server", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, fmt.Errorf("creating the metrics server: %w", err)
	}
	client, err := kubernetes.NewForConfig(x.Chain)
	if err != nil {
		return nil, err
	}
	metadataClient, err := metadata.NewForConfig(x.Chain)
	if err != nil {
		return nil, err
	}
	// Informers never resync: a missed event is not a concern here (metrics-server
	// pkg/server/informer.go). Pods are watched as metadata only, and only running ones.
	nodeInformers := informers.NewSharedInformerFactory(client, 0)
	nodes := nodeInformers.Core().V1().Nodes()
	podInformers := metadatainformer.NewFilteredSharedInformerFactory(metadataClient, 0, corev1.NamespaceAll, func(o *metav1.ListOptions) {
		o.FieldSelector = "status.phase=Running"
	})
	pods := podInformers.ForResource(corev1.SchemeGroupVersion.WithResource("pods"))

	kubelet, err := scraper.NewKubeletClient(x.Kubelet)
	if err != nil {
		return nil, fmt.Errorf("unable to construct a client to connect to the kubelets: %w", err)
	}
	m := newServerMetrics(x.MetricResolution, x.ScrapeTimeout)
	selector := labels.Everything()
	if len(x.NodeSelector) > 0 {
		selector = selector.Add(x.NodeSelector...)
	}
	store := storage.New(x.MetricResolution)
	s := &Server{
		GenericAPIServer: generic,
		store:            store,
		scraper: scraper.New(scraper.Config{
			Nodes: nodes.Lister(), Kubelet: kubelet, Timeout: x.ScrapeTimeout, MaxStagger: x.MaxStagger,
			NodeSelector: selector, Observer: m,
		}),
		kubelet:       kubelet,
		resolution:    x.MetricResolution,
		metrics:       m,
		addr:          c.Generic.SecureServing.Listener.Addr().String(),
		nodeInformers: nodeInformers,
		podInformers:  podInformers,
		nodesSynced:   nodes.Informer().HasSynced,
		podsSynced:    pods.Informer().HasSynced,
		appeared:      make(chan struct{}, 1),
	}
	for _, informer := range []cache.SharedIndexInformer{nodes.Informer(), pods.Informer()} {
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: s.noticeAppeared}); err != nil {
			return nil, err
		}
	}

	info := api.Config{
		Metrics: store, Nodes: nodes.Lister(), Pods: pods.Lister(),
		NodeSelector: x.NodeSelector, ObserveFreshness: m.observeFreshness,
	}.APIGroupInfo(x.scheme, x.codecs)
	if err := generic.InstallAPIGroup(&info); err != nil {
		return nil, fmt.Errorf("installing metrics.k8s.io: %w", err)
	}
	generic.Handler.NonGoRestfulMux.HandleFunc("/metrics", m.handler())

	if err := s.addHealthChecks(); err != nil {
		return nil, err
	}
	generic.AddPostStartHookOrDie("start-metrics-server-informers", func(ctx genericapiserver.PostStartHookContext) error {
		nodeInformers.Start(ctx.Done())
		podInformers.Start(ctx.Done())
		return nil
	})
	generic.AddPostStartHookOrDie("start-metrics-server-scraper", func(ctx genericapiserver.PostStartHookContext) error {
		s.work.Go(func() {
			if cache.WaitForCacheSync(ctx.Done(), s.nodesSynced, s.podsSynced) {
				s.runScrape(ctx)
			}
		})
		return nil
	})
	if x.Register {
		aggregatorClient, err := apiregistrationclient.NewForConfig(x.Chain)
		if err != nil {
			return nil, err
		}
		s.registration = &registration{
			client: client, apiregistration: aggregatorClient,
			advertise: x.AdvertiseIP, port: int32(listenerPort(c.Generic.SecureServing.Listener)), caBundle: x.ServingCA,
		}
		if rh := c.Generic.Authentication.RequestHeaderConfig; rh != nil {
			s.registration.frontProxyCA = rh.CAContentProvider
		}
		// Registration blocks this hook, and with it /readyz, until it has worked.
		generic.AddPostStartHookOrDie("start-metrics-server-registration", func(ctx genericapiserver.PostStartHookContext) error {
			s.work.Run(func() { s.registration.run(ctx) })
			return nil
		})
		if x.WithdrawOnStop {
			generic.AddPreShutdownHookOrDie("stop-metrics-server-registration", func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := s.registration.withdraw(ctx); err != nil {
					klog.ErrorS(err, "Withdrawing metrics.k8s.io from the chain failed")
				}
				return nil // a failure must not fail the stop
			})
		}
	}
	return s, nil
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// PreparedServer is a Server on which PrepareRun has run.
type PreparedServer struct {
	runnable interface{ RunWithContext(context.Context) error }
	server   *Server
}

// PrepareRun installs what serving needs (OpenAPI, health endpoints).
func (s *Server) PrepareRun() (PreparedServer, error) {
	return PreparedServer{runnable: s.GenericAPIServer.PrepareRun(), server: s}, nil
}

// Run serves until ctx is done, then shuts down gracefully: in-flight requests finish, the
// scrape loop and the informers stop, the listener closes.
func (s PreparedServer) Run(ctx context.Context) error {
	err := s.runnable.RunWithContext(ctx)
	s.server.stop()
	return err
}

// quickScrape is how soon a new series gets its second point. A usage is a rate between two
// points, so metrics-server serves nothing for a node or container until a resolution after it
// first saw it (kubectl top: "metrics not available yet"). Here the scrape after one that found
// a new series comes this soon, and a node or running pod that appears is scraped at once: two
// points a second apart, then the normal period. What it costs: one extra scrape per change.
const quickScrape = time.Second

// quickBackoff bounds what quick scrapes cost: one comes no sooner than this many times the
// last scrape's duration after that scrape began. In a large cluster something is new at every
// scrape and a scrape takes seconds (a thousand kubelets, staggered), so quick scrapes a second
// apart would keep the scraper and the kubelets busy all the time; this keeps it busy at most a
// tenth of it.
const quickBackoff = 10

// quickAfter is how long after a scrape that took took began a quick one may begin: quickScrape,
// or quickBackoff times took if longer, but never later than the next regular scrape.
func (s *Server) quickAfter(took time.Duration) time.Duration {
	return min(s.resolution, max(quickScrape, quickBackoff*took))
}

// runScrape scrapes at once, then every resolution (metrics-server's server.runScrape), and
// sooner while series are new (quickAfter).
func (s *Server) runScrape(ctx context.Context) {
	next := time.NewTimer(0)
	defer next.Stop()
	var last time.Time
	quick := quickScrape
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.appeared:
			// Something new to scrape: at once, but not sooner than quick after the last
			// scrape began. Never later than planned: the timer is due at least that late.
			next.Reset(time.Until(last.Add(quick)))
		case last = <-next.C:
			begun := s.tick(ctx, last)
			quick = s.quickAfter(time.Since(last))
			wait := s.resolution
			if begun > 0 {
				wait = quick
			}
			next.Reset(time.Until(last.Add(wait)))
		}
	}
}

// noticeAppeared is the informers' event handler: a node or running pod was added.
func (s *Server) noticeAppeared(any) {
	select {
	case s.appeared <- struct{}{}:
	default: // one is pending already
	}
}

// tick scrapes once and stores the batch; it returns how many series began with it.
func (s *Server) tick(ctx context.Context, startTime time.Time) (begun int) {
	s.tickMu.Lock()
	s.tickLastStart = startTime
	s.tickMu.Unlock()

	scrapeCtx, cancel := context.WithTimeout(ctx, s.resolution)
	defer cancel()
	klog.V(6).InfoS("Scraping metrics")
	data := s.scraper.Scrape(scrapeCtx)
	if ctx.Err() != nil {
		return 0 // stopping: a partial batch would only forget the nodes not reached
	}
	klog.V(6).InfoS("Storing metrics")
	begun = s.store.Store(data)
	s.metrics.observeStore(s.store, time.Since(startTime))
	klog.V(6).InfoS("Scraping cycle complete", "newSeries", begun)
	return begun
}

// addHealthChecks adds metrics-server's probes (metrics-server server.RegisterProbes).
func (s *Server) addHealthChecks() error {
	if err := s.GenericAPIServer.AddReadyzChecks(
		healthz.NamedCheck("metric-storage-ready", s.probeMetricStorageReady),
		healthz.NamedCheck("metric-informer-sync", s.probeMetricCacheHasSynced),
	); err != nil {
		return err
	}
	if err := s.GenericAPIServer.AddLivezChecks(0, healthz.NamedCheck("metric-collection-timely", s.probeMetricCollectionTimely)); err != nil {
		return err
	}
	return s.GenericAPIServer.AddHealthChecks(healthz.NamedCheck("metadata-informer-sync", s.probeMetadataInformerSync))
}

// probeMetricStorageReady: ready once storage can serve node and pod metrics, which takes two
// scrapes (CPU usage is a rate between two points).
func (s *Server) probeMetricStorageReady(*http.Request) error {
	if !s.store.Ready() {
		err := errors.New("no metrics to serve")
		klog.InfoS("Failed probe", "probe", "metric-storage-ready", "err", err)
		return err
	}
	return nil
}

// probeMetricCollectionTimely: live unless the latest scrape started more than 1.5
// resolutions ago (a deadlock or a panic stops the ticks).
func (s *Server) probeMetricCollectionTimely(*http.Request) error {
	s.tickMu.RLock()
	last := s.tickLastStart
	s.tickMu.RUnlock()
	maxTickWait := time.Duration(1.5 * float64(s.resolution))
	if wait := time.Since(last); !last.IsZero() && wait > maxTickWait {
		err := errors.New("metric collection didn't finish on time")
		klog.InfoS("Failed probe", "probe", "metric-collection-timely", "err", err, "duration", wait, "maxDuration", maxTickWait)
		return err
	}
	return nil
}

func (s *Server) probeMetricCacheHasSynced(*http.Request) error {
	if !s.nodesSynced() {
		return errors.New("cache for node informer has not synced")
	}
	if !s.podsSynced() {
		return errors.New("cache for pod informer has not synced")
	}
	return nil
}

// probeMetadataInformerSync fails until the pod metadata informer has started
// (metrics-server pkg/server/health.go).
func (s *Server) probeMetadataInformerSync(*http.Request) error {
	closed := make(chan struct{})
	close(closed) // check now, do not wait
	var notStarted []string
	for gvr, started := range s.podInformers.WaitForCacheSync(closed) {
		if !started {
			notStarted = append(notStarted, gvr.String())
		}
	}
	if len(notStarted) > 0 {
		return fmt.Errorf("%d informers not started yet: %v", len(notStarted), notStarted)
	}
	return nil
}

// stop waits for the hooks' work, whose context the generic server has cancelled, and for the
// informers, and closes the connections to the kubelets.
func (s *Server) stop() {
	s.work.Stop()
	s.nodeInformers.Shutdown()
	s.podInformers.Shutdown()
	s.kubelet.CloseIdleConnections()
}
