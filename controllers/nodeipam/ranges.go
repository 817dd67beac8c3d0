package nodeipam

import (
	"fmt"
	"net/netip"
)

// ranges is the cluster CIDR cut into node ranges of one size, and who holds each: a bitmap
// by index, as kube-controller-manager's cidrset keeps it. The i-th range starts i range
// sizes after the cluster CIDR's first address.
type ranges struct {
	cluster netip.Prefix
	mask    int      // bits of every node range
	holder  []string // by index: the node holding the range, reserved for the Service range, or ""
	byNode  map[string]int
	next    int // where the search for a free range starts: ranges are handed out in turn
}

// reserved marks a range no node gets (it overlaps the Service range).
const reserved = "\x00service"

// maxRangeBits is how many bits of node ranges one cluster CIDR may hold (kube-controller-
// manager's limit too): 65,536 ranges.
const maxRangeBits = 16

// Capacity is how many node ranges of mask bits the cluster CIDR holds, or an error saying why
// the two do not fit together. Options validation uses it too.
func Capacity(cluster netip.Prefix, mask int) (int, error) {
	switch {
	case !cluster.Addr().Is4():
		return 0, fmt.Errorf("only IPv4 cluster CIDRs are supported")
	case mask < cluster.Bits() || mask > 30:
		return 0, fmt.Errorf("the node mask size must be between the cluster CIDR's (%d) and 30", cluster.Bits())
	case mask-cluster.Bits() > maxRangeBits:
		return 0, fmt.Errorf("the node mask size may be at most %d bits longer than the cluster CIDR's: %d ranges at most", maxRangeBits, 1<<maxRangeBits)
	}
	return 1 << (mask - cluster.Bits()), nil
}

func newRanges(cluster netip.Prefix, mask int, service netip.Prefix) (*ranges, error) {
	n, err := Capacity(cluster, mask)
	if err != nil {
		return nil, err
	}
	r := &ranges{cluster: cluster.Masked(), mask: mask, holder: make([]string, n), byNode: map[string]int{}}
	// No pod gets an address that a Service could have (kube-controller-manager's
	// filterOutServiceRange).
	if service.IsValid() && service.Overlaps(r.cluster) {
		for i := range r.holder {
			if r.prefix(i).Overlaps(service) {
				r.holder[i] = reserved
			}
		}
	}
	return r, nil
}

// prefix is range i.
func (r *ranges) prefix(i int) netip.Prefix {
	v := number(r.cluster.Addr()) + uint32(i)<<(32-r.mask)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), r.mask)
}

// index is the range that p is, or -1 when p is not one of the ranges.
func (r *ranges) index(p netip.Prefix) int {
	if !p.Addr().Is4() || p.Bits() != r.mask || p.Masked() != p || !r.cluster.Contains(p.Addr()) {
		return -1
	}
	return int((number(p.Addr()) - number(r.cluster.Addr())) >> (32 - r.mask))
}

// number is an IPv4 address as a number.
func number(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// occupy records that node holds p (it has it as its pod CIDR already).
func (r *ranges) occupy(node string, p netip.Prefix) error {
	i := r.index(p)
	switch {
	case i < 0:
		return fmt.Errorf("%s is not a /%d range of the cluster CIDR %s", p, r.mask, r.cluster)
	case r.holder[i] == reserved:
		return fmt.Errorf("%s overlaps the Service range", p)
	case r.holder[i] != "" && r.holder[i] != node:
		return fmt.Errorf("%s is held by node %s", p, r.holder[i])
	}
	r.holder[i], r.byNode[node] = node, i
	return nil
}

// allocate returns node's range, handing it the next free one if it holds none; false when
// every range is taken.
func (r *ranges) allocate(node string) (netip.Prefix, bool) {
	if i, ok := r.byNode[node]; ok {
		return r.prefix(i), true
	}
	for k := range r.holder {
		i := (r.next + k) % len(r.holder)
		if r.holder[i] == "" {
			r.holder[i], r.byNode[node] = node, i
			r.next = i + 1
			return r.prefix(i), true
		}
	}
	return netip.Prefix{}, false
}

// release frees node's range, reporting whether it held one.
func (r *ranges) release(node string) bool {
	i, ok := r.byNode[node]
	if ok {
		r.holder[i] = ""
		delete(r.byNode, node)
	}
	return ok
}
