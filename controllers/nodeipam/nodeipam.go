// Package nodeipam gives every node its own range of pod addresses.
//
// kube-controller-manager's node-ipam-controller (with --allocate-node-cidrs and the default
// RangeAllocator) cuts --cluster-cidr into ranges of --node-cidr-mask-size bits and hands one
// to every node that has none, in spec.podCIDR and spec.podCIDRs; a node's network plugin then
// gives its pods addresses from that range. The ranges that nodes already hold are marked taken
// before any is handed out, a deleted node's range is free again, and ranges that overlap the
// Service range are never handed out. A node for which no range is left gets an Event
// (reason CIDRNotAvailable) and waits until one is freed.
//
// Ours does the same for one IPv4 cluster CIDR; the simulated kubelets (kubelet/) read the range
// from the Node, as a CNI's host-local IPAM does. Left out: dual-stack (a second cluster CIDR),
// the cloud allocator, and the multi-CIDR allocator (ClusterCIDR objects).
package nodeipam

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	nodeutil "k8s.io/component-helpers/node/util"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// Config is kube-controller-manager's --cluster-cidr, --node-cidr-mask-size and
// --service-cluster-ip-range.
type Config struct {
	ClusterCIDR  netip.Prefix
	NodeMaskSize int
	// ServiceCIDR, if set, is the Service range: node ranges that overlap it are not handed out.
	ServiceCIDR netip.Prefix
}

// Controller hands out node ranges. Build it with New, start it with Run.
type Controller struct {
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	synced cache.InformerSynced
	queue  loop.Queue // node names

	// The ranges are learned from the nodes once, before the first is handed out.
	learn    sync.Once
	mu       sync.Mutex
	ranges   *ranges
	starving sets.Set[string] // nodes waiting for a range to be freed

	recorder record.EventRecorder // set by Run
}

// New watches nodes through informer.
func New(client kubernetes.Interface, informer coreinformers.NodeInformer, cfg Config) (*Controller, error) {
	r, err := newRanges(cfg.ClusterCIDR, cfg.NodeMaskSize, cfg.ServiceCIDR)
	if err != nil {
		return nil, fmt.Errorf("cluster CIDR %s, node mask size %d: %w", cfg.ClusterCIDR, cfg.NodeMaskSize, err)
	}
	c := &Controller{
		client: client, nodes: informer.Lister(), synced: informer.Informer().HasSynced,
		queue: loop.NewQueue("node_ipam_controller"), ranges: r, starving: sets.New[string](),
	}
	enqueue := func(obj any) { loop.Enqueue(c.queue, obj) }
	_, err = informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		// Only a node that lost its range (a new one by the same name) needs one again.
		UpdateFunc: func(_, obj any) {
			if obj.(*corev1.Node).Spec.PodCIDR == "" {
				enqueue(obj)
			}
		},
		DeleteFunc: enqueue,
	})
	return c, err
}

// Run hands out ranges with workers goroutines until ctx is done, and returns once they have
// finished.
func (c *Controller) Run(ctx context.Context, workers int) {
	// kube-controller-manager's range allocator reports as "cidrAllocator".
	c.recorder = loop.Recorder(ctx, c.client, "cidrAllocator")
	loop.Run(ctx, c.queue, workers, c.sync, c.synced)
}

func (c *Controller) sync(ctx context.Context, name string) error {
	c.learn.Do(c.occupyAll)
	node, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		c.release(name)
		return nil
	}
	if err != nil {
		return err
	}
	if node.Spec.PodCIDR != "" {
		c.occupy(node)
		return nil
	}
	c.mu.Lock()
	p, ok := c.ranges.allocate(name)
	told := c.starving.Has(name)
	if !ok {
		c.starving.Insert(name)
	}
	c.mu.Unlock()
	if !ok {
		if told {
			return nil // said so already; its heartbeats change nothing
		}
		// kube-controller-manager's RecordNodeStatusChange: a Normal event on the node.
		c.recorder.Eventf(&corev1.ObjectReference{Kind: "Node", Name: name, UID: node.UID}, corev1.EventTypeNormal,
			"CIDRNotAvailable", "Node %s status is now: CIDRNotAvailable", name)
		klog.FromContext(ctx).Info("no pod range left for the node: it waits for one to be freed", "node", name, "clusterCIDR", c.ranges.cluster)
		return nil // a released range queues it again
	}
	// A strategic merge patch of spec.podCIDR and spec.podCIDRs, kube-controller-manager's.
	err = nodeutil.PatchNodeCIDRs(ctx, c.client, types.NodeName(name), []string{p.String()})
	if err != nil {
		// PatchNodeCIDRs keeps only the error's text (%v), so a node deleted meanwhile cannot be
		// told apart here: the retry finds it gone from the cache and stops (the Get above).
		c.release(name)
		return fmt.Errorf("assigning %s to node %s: %w", p, name, err)
	}
	klog.FromContext(ctx).V(2).Info("assigned the node its pod range", "node", name, "podCIDR", p)
	return nil
}

// occupyAll marks the ranges every node holds as taken: no range is handed out twice.
func (c *Controller) occupyAll() {
	nodes, _ := c.nodes.List(labels.Everything())
	for _, n := range nodes {
		if n.Spec.PodCIDR != "" {
			c.occupy(n)
		}
	}
}

// occupy marks the node's pod ranges as its own. A range that is not one of ours (set by hand,
// or from another cluster CIDR) is left to the node: its pods use it, and nothing is handed out.
func (c *Controller) occupy(node *corev1.Node) {
	cidrs := node.Spec.PodCIDRs
	if len(cidrs) == 0 {
		cidrs = []string{node.Spec.PodCIDR}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range cidrs {
		p, err := netip.ParsePrefix(s)
		if err == nil && !p.Addr().Is4() {
			continue // the IPv6 range of a dual-stack node: not ours to track
		}
		if err == nil {
			err = c.ranges.occupy(node.Name, p)
		}
		if err != nil {
			klog.V(2).InfoS("node pod range not tracked", "node", node.Name, "podCIDR", s, "reason", err)
		}
	}
}

// release frees a deleted node's range, and queues the nodes that waited for one.
func (c *Controller) release(name string) {
	c.mu.Lock()
	freed := c.ranges.release(name)
	waiting := c.starving.UnsortedList()
	if freed {
		c.starving.Clear()
	}
	c.mu.Unlock()
	if freed {
		for _, n := range waiting {
			c.queue.Add(n)
		}
	}
}
