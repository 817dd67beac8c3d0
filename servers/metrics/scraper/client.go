package scraper

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/servers/metrics/storage"
)

// AnnotationResourceMetricsPath on a Node names the path of its kubelet's resource metrics
// instead of /metrics/resource (metrics-server pkg/scraper/client/resource/client.go).
const AnnotationResourceMetricsPath = "metrics.k8s.io/resource-metrics-path"

// DefaultResourceMetricsPath is where a kubelet serves its resource metrics.
const DefaultResourceMetricsPath = "/metrics/resource"

// DefaultAddressTypePriority is the order in which node addresses are tried: overrides first,
// internal before external, DNS names before IPs (metrics-server pkg/utils/address_resolver.go,
// the default of --kubelet-preferred-address-types).
var DefaultAddressTypePriority = []corev1.NodeAddressType{
	corev1.NodeHostName,
	corev1.NodeInternalDNS,
	corev1.NodeInternalIP,
	corev1.NodeExternalDNS,
	corev1.NodeExternalIP,
}

// KubeletMetricsGetter fetches the resource metrics of one node's kubelet.
type KubeletMetricsGetter interface {
	GetMetrics(ctx context.Context, node *corev1.Node) (*storage.MetricsBatch, error)
}

// KubeletClientConfig says how to reach kubelets (metrics-server pkg/scraper/client/configs.go).
type KubeletClientConfig struct {
	// Client holds the TLS settings and credentials: the kubeconfig's, with the kubelet CA
	// (or insecure) in place of the cluster CA.
	Client rest.Config
	// AddressTypePriority is the order in which node addresses are tried.
	AddressTypePriority []corev1.NodeAddressType
	// Scheme is https (http only with the deprecated completely-insecure mode).
	Scheme string
	// DefaultPort is the kubelet port when the node status does not say, or when
	// UseNodeStatusPort is off.
	DefaultPort       int
	UseNodeStatusPort bool
}

// KubeletClient fetches and decodes /metrics/resource (metrics-server
// pkg/scraper/client/resource/client.go). It is safe for concurrent use.
type KubeletClient struct {
	client            *http.Client
	scheme            string
	defaultPort       int
	useNodeStatusPort bool
	addrPriority      []corev1.NodeAddressType
	// buffers hold response bodies, decoders their per-node indexes: both are reused from
	// scrape to scrape, so that steady state allocates little more than what is stored.
	buffers  sync.Pool
	decoders sync.Pool
}

var _ KubeletMetricsGetter = (*KubeletClient)(nil)

// NewKubeletClient builds a client; it connects to nothing until GetMetrics.
func NewKubeletClient(c KubeletClientConfig) (*KubeletClient, error) {
	transport, err := rest.TransportFor(&c.Client)
	if err != nil {
		return nil, fmt.Errorf("building the kubelet transport: %w", err)
	}
	return newKubeletClient(&http.Client{Transport: transport, Timeout: c.Client.Timeout}, c), nil
}

func newKubeletClient(hc *http.Client, c KubeletClientConfig) *KubeletClient {
	priority := c.AddressTypePriority
	if len(priority) == 0 {
		priority = DefaultAddressTypePriority
	}
	scheme := c.Scheme
	if scheme == "" {
		scheme = "https"
	}
	return &KubeletClient{
		client:            hc,
		scheme:            scheme,
		defaultPort:       c.DefaultPort,
		useNodeStatusPort: c.UseNodeStatusPort,
		addrPriority:      priority,
		buffers:           sync.Pool{New: func() any { return new(bytes.Buffer) }},
		decoders:          sync.Pool{New: func() any { return newDecoder() }},
	}
}

// URL is where node's kubelet serves its resource metrics: the first of the node's addresses
// in priority order, the port from the node status (or the default), and the path from the
// node's annotation (or /metrics/resource).
func (kc *KubeletClient) URL(node *corev1.Node) (string, error) {
	port := kc.defaultPort
	if statusPort := int(node.Status.DaemonEndpoints.KubeletEndpoint.Port); kc.useNodeStatusPort && statusPort != 0 {
		port = statusPort
	}
	path := DefaultResourceMetricsPath
	if p := node.Annotations[AnnotationResourceMetricsPath]; p != "" {
		path = p
	}
	addr, err := NodeAddress(node, kc.addrPriority)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: kc.scheme, Host: net.JoinHostPort(addr, strconv.Itoa(port)), Path: path}
	return u.String(), nil
}

// NodeAddress returns the first address of node whose type comes first in priority
// (metrics-server pkg/utils/address_resolver.go).
func NodeAddress(node *corev1.Node, priority []corev1.NodeAddressType) (string, error) {
	for _, t := range priority {
		for _, a := range node.Status.Addresses {
			if a.Type == t && a.Address != "" {
				return a.Address, nil
			}
		}
	}
	return "", fmt.Errorf("node %s has no address of types %v", node.Name, priority)
}

// CloseIdleConnections closes the connections to kubelets that are not in use (when the
// metrics server stops).
func (kc *KubeletClient) CloseIdleConnections() { utilnet.CloseIdleConnectionsFor(kc.client.Transport) }

// GetMetrics fetches node's resource metrics and decodes them into a batch.
func (kc *KubeletClient) GetMetrics(ctx context.Context, node *corev1.Node) (*storage.MetricsBatch, error) {
	u, err := kc.URL(node)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	requestTime := time.Now()
	resp, err := kc.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	buf := kc.buffers.Get().(*bytes.Buffer)
	defer kc.buffers.Put(buf)
	buf.Reset()
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("reading the response of %s: %w", u, err)
	}
	d := kc.decoders.Get().(*decoder)
	defer kc.decoders.Put(d)
	return d.decode(buf.Bytes(), requestTime, node.Name)
}
