package kubelet

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// Which nodes the simulator runs, and the start and end of each one's simulation.

// runs says whether the simulator runs node: one it registers itself (and that was not deleted
// in this run), or one that asks for it by NodeAnnotation or NodeLabel.
func (s *Simulator) runs(node *corev1.Node) bool {
	return node.Annotations[NodeAnnotation] == NodeAnnotationValue ||
		node.Labels[NodeLabel] == NodeLabelValue ||
		s.registersItself(node.Name)
}

// registersItself says whether name is a node the simulator registers, and it was not deleted
// in this run: a kubelet whose Node is deleted stops; this one stops simulating it.
func (s *Simulator) registersItself(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.gone.Has(name) && slices.Contains(s.registers, name)
}

// node is the node of that name the simulator runs now, or nil.
func (s *Simulator) node(name string) *node {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byName[name]
}

// nodeHandler queues the nodes to look at: those the simulator runs or may run now, and those
// it runs that were deleted.
func (s *Simulator) nodeHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if node := obj.(*corev1.Node); s.runs(node) {
				s.nodeQueue.Add(node.Name)
			}
		},
		UpdateFunc: func(oldObj, obj any) {
			old, node := oldObj.(*corev1.Node), obj.(*corev1.Node)
			n := s.node(node.Name)
			if n == nil && !s.runs(node) {
				return
			}
			// Status changes are the simulator's own (or a heartbeat's); only what it did not
			// write needs a look: labels, annotations, spec.
			if n == nil || old.Generation != node.Generation || !mapsEqual(old.Labels, node.Labels) || !mapsEqual(old.Annotations, node.Annotations) {
				s.nodeQueue.Add(node.Name)
			}
			if old.Spec.PodCIDR == "" && node.Spec.PodCIDR != "" && n != nil {
				s.queuePodsOf(node.Name) // they waited for addresses
			}
		},
		DeleteFunc: func(obj any) {
			node, ok := tombstone[*corev1.Node](obj)
			if !ok {
				return
			}
			if n := s.node(node.Name); n != nil && (n.uid == "" || n.uid == node.UID) {
				n.deleted.Store(true)
				s.nodeQueue.Add(node.Name)
			}
		},
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// queuePodsOf queues the pods bound to node.
func (s *Simulator) queuePodsOf(node string) {
	objs, _ := s.pods.ByIndex(sharedinformers.PodsByNode, node)
	for _, obj := range objs {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			s.podQueue.Add(key)
		}
	}
}

// start begins the simulation of node name: its kubelet endpoint listens on a port of its own,
// as every kubelet has its own, which tells kube-apiserver and the metrics server which node
// they reach. The pods already bound to it are queued.
func (s *Simulator) start(name string) (*node, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(s.bind.String(), "0"))
	if err != nil {
		return nil, fmt.Errorf("kubelet endpoint of %s: %w", name, err)
	}
	n := &node{name: name, bootID: string(uuid.NewUUID()), port: ln.Addr().(*net.TCPAddr).Port}
	n.host = s.hostsys != nil && name == s.hostsys.nodeName
	n.registered = slices.Contains(s.registers, name)
	// Its streams (logs -f, exec, port-forward) end when its simulation does.
	ctx, cancel := context.WithCancel(s.runCtx)
	n.stopStreams = cancel
	n.srv = &http.Server{
		Handler: traced(s.tracer, name, s.guard.wrap(s.endpoint(ctx, n), name)),
		// Asked for, not required: a caller without one may still bring a bearer token, and
		// gets a 401 rather than a failed handshake without either.
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.cert}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          serverLog(),
	}
	s.mu.Lock()
	s.byName[name] = n
	s.mu.Unlock()
	s.serving.Go(func() {
		if err := n.srv.ServeTLS(ln, "", ""); err != http.ErrServerClosed {
			klog.ErrorS(err, "kubelet endpoint stopped", "node", name)
		}
	})
	klog.V(2).InfoS("simulating node", "node", name, "port", n.port)
	s.queuePodsOf(name)
	return n, nil
}

// stop ends the simulation of n: its endpoint closes, and a node the simulator registers itself
// is not registered again in this run.
func (s *Simulator) stop(n *node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName[n.name] != n {
		return
	}
	delete(s.byName, n.name)
	if n.deleted.Load() && n.registered {
		s.gone.Insert(n.name)
	}
	s.stopServing(n)
	s.forgetClient(n.name)
	klog.V(2).InfoS("no longer simulating node", "node", n.name)
}

// stopServing shuts n's endpoint down in the background: its streams end, and Shutdown waits
// for them, at most 5 s.
func (s *Simulator) stopServing(n *node) {
	n.stopStreams()
	s.serving.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = n.srv.Shutdown(ctx)
	})
}
