package kubelet

import (
	"fmt"
	"net/http"

	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// NodeAPI is what a node's kubelet asks the chain as itself: its Node, its pods' status and
// deletion, its Events (core/v1), its Lease (coordination.k8s.io/v1) and, for the endpoints,
// who calls them and what they may do (authentication.k8s.io, authorization.k8s.io). A
// kubernetes.Interface is one. NewNodeClient makes one that holds these four groups only: a
// simulator keeps one a node, and a whole Clientset, fifty-odd REST clients, is ~37 KB, 37 MB
// for 1,000 nodes.
type NodeAPI interface {
	CoreV1() corev1client.CoreV1Interface
	CoordinationV1() coordinationv1client.CoordinationV1Interface
	AuthenticationV1() authenticationv1client.AuthenticationV1Interface
	AuthorizationV1() authorizationv1client.AuthorizationV1Interface
}

// NewNodeClient makes a node's client from cfg (its kubelet's credentials): the four groups
// of NodeAPI on one HTTP client, so one connection, and one rate limiter for all of them, as a
// Clientset has. The simulator closes its idle connection when the node is gone.
func NewNodeClient(cfg *rest.Config) (NodeAPI, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	if cfg.Proxy == nil {
		// client-go keeps every transport it makes for a TLS configuration in a cache of its
		// own, for the life of the process, unless the configuration has a Proxy function
		// (transport/cache.go): each node's certificate is new, and a node's transport must go
		// with it. This is the proxy client-go uses when none is said.
		cfg.Proxy = http.ProxyFromEnvironment
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	c := &nodeClient{http: hc}
	if c.core, err = corev1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.coordination, err = coordinationv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.authentication, err = authenticationv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	if c.authorization, err = authorizationv1client.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, err
	}
	return c, nil
}

type nodeClient struct {
	http           *http.Client
	core           *corev1client.CoreV1Client
	coordination   *coordinationv1client.CoordinationV1Client
	authentication *authenticationv1client.AuthenticationV1Client
	authorization  *authorizationv1client.AuthorizationV1Client
}

func (c *nodeClient) CoreV1() corev1client.CoreV1Interface { return c.core }
func (c *nodeClient) CoordinationV1() coordinationv1client.CoordinationV1Interface {
	return c.coordination
}
func (c *nodeClient) AuthenticationV1() authenticationv1client.AuthenticationV1Interface {
	return c.authentication
}
func (c *nodeClient) AuthorizationV1() authorizationv1client.AuthorizationV1Interface {
	return c.authorization
}

// CloseIdleConnections closes the client's connection unless a request is using it.
func (c *nodeClient) CloseIdleConnections() { c.http.CloseIdleConnections() }
