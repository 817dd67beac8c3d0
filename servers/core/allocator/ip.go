package allocator

import (
	"context"
	"fmt"
	"math/big"
	"net/netip"

	"k8s.io/apiserver/pkg/storage"
)

// IPRange allocates addresses of a service CIDR. The network address (and, for IPv4, the
// broadcast address) is never handed out; the first usable address goes to the kubernetes
// service, as in kube-apiserver.
type IPRange struct {
	cidr  netip.Prefix
	first netip.Addr // offset 0
	*Range
}

// NewIPRange returns the allocator for cidr, stored at key.
func NewIPRange(st storage.Interface, key string, cidr netip.Prefix) (*IPRange, error) {
	cidr = cidr.Masked()
	hostBits := cidr.Addr().BitLen() - cidr.Bits()
	if hostBits < 2 {
		return nil, fmt.Errorf("service CIDR %s is too small", cidr)
	}
	size := new(big.Int).Lsh(big.NewInt(1), uint(min(hostBits, 20))) // cap huge IPv6 ranges at 1M
	n := int(size.Int64()) - 1                                       // minus the network address
	if cidr.Addr().Is4() && hostBits <= 20 {
		n-- // minus broadcast
	}
	return &IPRange{cidr: cidr, first: cidr.Addr().Next(), Range: NewRange(st, key, cidr.String(), n)}, nil
}

// CIDR is the range's prefix.
func (r *IPRange) CIDR() netip.Prefix { return r.cidr }

// Offset maps an address to its offset, or reports that it is outside the range.
func (r *IPRange) Offset(ip netip.Addr) (int, bool) {
	if !r.cidr.Contains(ip) {
		return 0, false
	}
	d := new(big.Int).Sub(new(big.Int).SetBytes(ip.AsSlice()), new(big.Int).SetBytes(r.first.AsSlice()))
	if d.Sign() < 0 || d.Cmp(big.NewInt(int64(r.size))) >= 0 {
		return 0, false
	}
	return int(d.Int64()), true
}

// Addr maps an offset back to its address.
func (r *IPRange) Addr(offset int) netip.Addr {
	v := new(big.Int).Add(new(big.Int).SetBytes(r.first.AsSlice()), big.NewInt(int64(offset)))
	b := v.FillBytes(make([]byte, r.first.BitLen()/8))
	a, _ := netip.AddrFromSlice(b)
	return a
}

// PortRange allocates node ports from [Base, Base+Size).
type PortRange struct {
	Base, Size int
	*Range
}

// NewPortRange returns the allocator for ports base..base+size-1, stored at key.
func NewPortRange(st storage.Interface, key string, base, size int) *PortRange {
	return &PortRange{Base: base, Size: size, Range: NewRange(st, key, fmt.Sprintf("%d-%d", base, base+size-1), size)}
}

// AllocatePort takes a given port.
func (p *PortRange) AllocatePort(ctx context.Context, port int) error {
	if port < p.Base || port >= p.Base+p.Size {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", p.Base, p.Base+p.Size-1)
	}
	return p.Allocate(ctx, port-p.Base)
}
