package kubelet

import (
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
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

// claimIP records the address a pod of ours already has (from an earlier run).
func (s *Simulator) claimIP(pod *corev1.Pod) {
	n := s.byName[pod.Spec.NodeName]
	if n == nil || pod.Spec.HostNetwork || pod.Status.PodIP == "" {
		return
	}
	if a, err := netip.ParseAddr(pod.Status.PodIP); err == nil {
		n.pods.claim(pod.UID, a)
	}
}
