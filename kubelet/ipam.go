package kubelet

import (
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// ipPool hands out pod addresses from a node's pod CIDR, as a CNI's host-local IPAM does:
// .1 is the bridge, pods get .2 and up, an address is free again once its pod is gone.
type ipPool struct {
	prefix netip.Prefix
	mu     sync.Mutex
	byUID  map[types.UID]netip.Addr
	used   map[netip.Addr]types.UID
}

func newIPPool(prefix netip.Prefix) *ipPool {
	return &ipPool{prefix: prefix, byUID: map[types.UID]netip.Addr{}, used: map[netip.Addr]types.UID{}}
}

// claim records that uid holds addr, if addr is in the pool and nobody else holds it.
func (p *ipPool) claim(uid types.UID, addr netip.Addr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.prefix.Contains(addr) {
		return false
	}
	if holder, ok := p.used[addr]; ok {
		return holder == uid
	}
	p.used[addr], p.byUID[uid] = uid, addr
	return true
}

// allocate returns uid's address, giving it the lowest free one if it has none.
func (p *ipPool) allocate(uid types.UID) (netip.Addr, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.byUID[uid]; ok {
		return a, nil
	}
	a := p.prefix.Addr().Next().Next()
	for ; p.prefix.Contains(a) && a != lastAddr(p.prefix); a = a.Next() {
		if _, taken := p.used[a]; !taken {
			p.used[a], p.byUID[uid] = uid, a
			return a, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no free address left in %s", p.prefix)
}

// release frees uid's address.
func (p *ipPool) release(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.byUID[uid]; ok {
		delete(p.used, a)
		delete(p.byUID, uid)
	}
}

// lastAddr is the broadcast address of an IPv4 prefix, never handed out.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// pool is node n's address pool, made from its spec.podCIDR the first time it is needed, with
// the addresses its pods already have (from an earlier run) claimed before any is handed out.
// A node without a pod CIDR yet (the node-ipam-controller assigns it) has none.
func (s *Simulator) pool(n *node) (*ipPool, error) {
	n.podsMu.Lock()
	defer n.podsMu.Unlock()
	if n.pods != nil {
		return n.pods, nil
	}
	obj, err := s.nodeLister.Get(n.name)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.name, err)
	}
	if obj.Spec.PodCIDR == "" {
		return nil, fmt.Errorf("node %s has no pod CIDR yet", n.name)
	}
	prefix, err := netip.ParsePrefix(obj.Spec.PodCIDR)
	if err != nil || !prefix.Addr().Is4() || prefix.Bits() > 30 {
		return nil, fmt.Errorf("node %s: pod CIDR %q is not an IPv4 range of 4 addresses or more", n.name, obj.Spec.PodCIDR)
	}
	pool := newIPPool(prefix.Masked())
	objs, _ := s.pods.ByIndex(sharedinformers.PodsByNode, n.name)
	for _, o := range objs {
		pod := o.(*corev1.Pod)
		if a, err := netip.ParseAddr(pod.Status.PodIP); err == nil && !pod.Spec.HostNetwork {
			pool.claim(pod.UID, a)
		}
	}
	n.pods = pool
	return pool, nil
}
