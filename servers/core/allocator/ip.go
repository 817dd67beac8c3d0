package allocator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/storage"
)

// ManagedBy is the value of an allocated IPAddress's ipaddress.kubernetes.io/managed-by label,
// kube-apiserver's.
const ManagedBy = "ipallocator.k8s.io"

// probes is how many random addresses AllocateNext tries before it reads which are taken: in a
// range that is mostly free, the first one is.
const probes = 3

// ClusterIPs allocates the addresses of a service CIDR as IPAddress objects (see the package
// doc). The network address (and, for IPv4, the broadcast address) is never handed out; the
// first usable address goes to the kubernetes service, as in kube-apiserver.
type ClusterIPs struct {
	cidr       netip.Prefix
	first      netip.Addr // offset 0
	size       int
	staticBand int
	storage    storage.Interface
	prefix     string // the IPAddresses' key prefix: their key is prefix/<ip>
}

// Owner is the Service an address is allocated to.
type Owner struct{ Namespace, Name string }

// NewClusterIPs returns the allocator of cidr, keeping its IPAddress objects in st under prefix.
func NewClusterIPs(st storage.Interface, prefix string, cidr netip.Prefix) (*ClusterIPs, error) {
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
	return &ClusterIPs{cidr: cidr, first: cidr.Addr().Next(), size: n, staticBand: staticBandOf(n), storage: st, prefix: prefix}, nil
}

// CIDR is the range's prefix.
func (r *ClusterIPs) CIDR() netip.Prefix { return r.cidr }

// Offset maps an address to its offset, or reports that it is outside the range.
func (r *ClusterIPs) Offset(ip netip.Addr) (int, bool) {
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
func (r *ClusterIPs) Addr(offset int) netip.Addr {
	v := new(big.Int).Add(new(big.Int).SetBytes(r.first.AsSlice()), big.NewInt(int64(offset)))
	b := v.FillBytes(make([]byte, r.first.BitLen()/8))
	a, _ := netip.AddrFromSlice(b)
	return a
}

// Allocate takes ip for owner: ErrAllocated if an IPAddress of that name exists.
func (r *ClusterIPs) Allocate(ctx context.Context, ip netip.Addr, owner Owner) error {
	if _, ok := r.Offset(ip); !ok {
		return fmt.Errorf("%s is outside %s", ip, r.cidr)
	}
	out := &networkingv1.IPAddress{}
	err := r.storage.Create(ctx, r.key(ip), NewIPAddress(ip, owner), out, 0)
	if storage.IsExist(err) {
		return ErrAllocated
	}
	return err
}

// AllocateNext takes a free address for owner, chosen at random (above the static band first).
func (r *ClusterIPs) AllocateNext(ctx context.Context, owner Owner) (netip.Addr, error) {
	for range probes {
		ip := r.Addr(randomIn(r.staticBand, r.size))
		if err := r.Allocate(ctx, ip, owner); !errors.Is(err, ErrAllocated) {
			return ip, err
		}
	}
	taken, err := r.taken(ctx)
	if err != nil {
		return netip.Addr{}, err
	}
	for {
		off, ok := pickFree(taken, r.size, r.staticBand)
		if !ok {
			return netip.Addr{}, ErrFull
		}
		ip := r.Addr(off)
		if err := r.Allocate(ctx, ip, owner); !errors.Is(err, ErrAllocated) {
			return ip, err
		}
		taken.SetBit(taken, off, 1) // taken by someone else meanwhile
	}
}

// PeekNext returns an address that is free now, without taking it (dry-run requests).
func (r *ClusterIPs) PeekNext(ctx context.Context) (netip.Addr, error) {
	taken, err := r.taken(ctx)
	if err != nil {
		return netip.Addr{}, err
	}
	off, ok := pickFree(taken, r.size, r.staticBand)
	if !ok {
		return netip.Addr{}, ErrFull
	}
	return r.Addr(off), nil
}

// Has reports whether ip is taken.
func (r *ClusterIPs) Has(ctx context.Context, ip netip.Addr) (bool, error) {
	out := &networkingv1.IPAddress{}
	err := r.storage.Get(ctx, r.key(ip), storage.GetOptions{IgnoreNotFound: true}, out)
	return out.Name != "", err
}

// Release frees the addresses owner holds; an address another object holds, or nobody, is
// left alone.
func (r *ClusterIPs) Release(ctx context.Context, owner Owner, ips ...netip.Addr) error {
	var errs []error
	for _, ip := range ips {
		err := r.storage.Delete(ctx, r.key(ip), &networkingv1.IPAddress{}, nil, func(_ context.Context, obj runtime.Object) error {
			if ref := obj.(*networkingv1.IPAddress).Spec.ParentRef; ref == nil || *ref != parentRef(owner) {
				return errNotOwned
			}
			return nil
		}, nil, storage.DeleteOptions{})
		if err != nil && !storage.IsNotFound(err) && !errors.Is(err, errNotOwned) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var errNotOwned = errors.New("held by another object")

// taken reads which addresses of the range have an IPAddress.
func (r *ClusterIPs) taken(ctx context.Context) (*big.Int, error) {
	list := &networkingv1.IPAddressList{}
	opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
	if err := r.storage.GetList(ctx, r.prefix+"/", opts, list); err != nil {
		return nil, err
	}
	bits := new(big.Int)
	for _, a := range list.Items {
		if ip, err := netip.ParseAddr(a.Name); err == nil {
			if off, ok := r.Offset(ip); ok {
				bits.SetBit(bits, off, 1)
			}
		}
	}
	return bits, nil
}

func (r *ClusterIPs) key(ip netip.Addr) string { return r.prefix + "/" + ip.String() }

// NewIPAddress is the IPAddress that says owner holds ip, labelled as kube-apiserver's allocator
// labels it.
func NewIPAddress(ip netip.Addr, owner Owner) *networkingv1.IPAddress {
	family := "IPv4"
	if ip.Is6() {
		family = "IPv6"
	}
	ref := parentRef(owner)
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip.String(), UID: uuid.NewUUID(), CreationTimestamp: metav1.Now(),
			Labels: map[string]string{networkingv1.LabelIPAddressFamily: family, networkingv1.LabelManagedBy: ManagedBy}},
		Spec: networkingv1.IPAddressSpec{ParentRef: &ref},
	}
}

func parentRef(owner Owner) networkingv1.ParentReference {
	return networkingv1.ParentReference{Resource: "services", Namespace: owner.Namespace, Name: owner.Name}
}

// randomIn is a random offset of [lo, hi), or of [0, hi) when that is empty.
func randomIn(lo, hi int) int {
	if hi <= lo {
		lo = 0
	}
	return lo + rand.IntN(hi-lo)
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
