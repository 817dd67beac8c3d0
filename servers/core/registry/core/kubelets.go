package core

// The other remote path of the chain, beside the aggregated APIs: pods/log and nodes/proxy are
// not answered from etcd but by the kubelet of the node, which Core calls at the address and
// port the Node publishes in its status, over TLS with the apiserver's kubelet client
// certificate (kube-apiserver's --kubelet-client-certificate), and streams back. The kubelet
// asks the chain, by SubjectAccessReview, whether that certificate's user may.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/transport"
)

// KubeletClient is how Core authenticates to kubelets and verifies them: PEM client
// certificate and key, and the CA that signs the kubelets' serving certificates.
type KubeletClient struct {
	CertPEM, KeyPEM, CAPEM []byte
}

// defaultKubeletPort is where a kubelet listens when its Node says nothing.
const defaultKubeletPort = 10250

// addressTypes are the Node addresses tried for its kubelet, in order: kubeadm's
// --kubelet-preferred-address-types.
var addressTypes = []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName}

// kubelets finds the kubelet of a node and holds the transport that reaches it.
type kubelets struct {
	nodes     rest.Getter
	transport http.RoundTripper // TLS with the kubelet client certificate
	plain     http.RoundTripper // for nodes/proxy to another port of the node
}

func newKubelets(c KubeletClient, nodes rest.Getter) (*kubelets, error) {
	tls, err := transport.New(&transport.Config{TLS: transport.TLSConfig{CAData: c.CAPEM, CertData: c.CertPEM, KeyData: c.KeyPEM}})
	if err != nil {
		return nil, fmt.Errorf("kubelet client transport: %w", err)
	}
	plain, err := transport.New(&transport.Config{})
	if err != nil {
		return nil, fmt.Errorf("node proxy transport: %w", err)
	}
	return &kubelets{nodes: nodes, transport: tls, plain: plain}, nil
}

// location is the root URL of node's kubelet: https, its preferred address, its status port.
func (k *kubelets) location(ctx context.Context, node string) (*url.URL, error) {
	obj, err := k.nodes.Get(genericapirequest.WithNamespace(ctx, ""), node, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	n := obj.(*corev1.Node)
	for _, t := range addressTypes {
		for _, a := range n.Status.Addresses {
			if a.Type == t && a.Address != "" {
				port := int(n.Status.DaemonEndpoints.KubeletEndpoint.Port)
				if port <= 0 {
					port = defaultKubeletPort
				}
				return &url.URL{Scheme: "https", Host: net.JoinHostPort(a.Address, strconv.Itoa(port))}, nil
			}
		}
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no preferred addresses found; known addresses: %v", n.Status.Addresses))
}

// kubeletAnswers is the X-Chain-Server of a response Core passes on from node's kubelet.
func kubeletAnswers(node string) string { return "core>kubelet:" + node }

// nodeProxyREST serves nodes/proxy: any request, passed to the node's kubelet (or, for
// nodes/<name>:<port>/proxy, to another port of the node) at the rest of the path.
type nodeProxyREST struct{ kubelets *kubelets }

var _ rest.Connecter = &nodeProxyREST{}

func (r *nodeProxyREST) New() runtime.Object { return &corev1.NodeProxyOptions{} }
func (r *nodeProxyREST) Destroy()            {}

func (r *nodeProxyREST) ConnectMethods() []string {
	return []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
}

// NewConnectOptions: the path after /proxy is NodeProxyOptions.Path.
func (r *nodeProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.NodeProxyOptions{}, true, "path"
}

func (r *nodeProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*corev1.NodeProxyOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid node request %q", id))
	}
	loc, err := r.kubelets.location(ctx, name)
	if err != nil {
		return nil, err
	}
	rt := r.kubelets.transport
	if port != "" && port != loc.Port() {
		loc, rt = &url.URL{Scheme: scheme, Host: net.JoinHostPort(loc.Hostname(), port)}, r.kubelets.plain
		if loc.Scheme == "" {
			loc.Scheme = "http"
		}
	}
	loc.Path = utilnet.JoinPreservingTrailingSlash(loc.Path, o.Path)
	return kubeletHop(name, loc, false, func(loc *url.URL) http.Handler {
		return proxy.NewUpgradeAwareHandler(loc, rt, true, false, proxy.NewErrorResponder(responder))
	}), nil
}
