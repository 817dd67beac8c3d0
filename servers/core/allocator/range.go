// Package allocator hands out service ClusterIPs and NodePorts inside the Core server, so that
// several chain instances sharing one etcd never hand out the same value twice.
//
// ClusterIPs are allocated as kube-apiserver v1.37 allocates them (its IPAddress allocator,
// pkg/registry/core/service/ipallocator): an address is taken when an IPAddress object named by
// it exists (networking.k8s.io/v1, key /registry/ipaddresses/<ip>), with a parentRef to the
// Service that holds it, and freed when that object is deleted. Creating the object is the
// allocation: etcd refuses a second create of one key. What differs from kube-apiserver:
//   - the addresses come from --service-cluster-ip-range alone, which is the default ServiceCIDR
//     `kubernetes`; kube-apiserver allocates from every Ready ServiceCIDR, so a ServiceCIDR a
//     user creates gives it more addresses, and gives the chain none;
//   - single-stack: one family, one range;
//   - the objects are written to storage by the allocator itself, not through the API with a
//     client as kube-apiserver's allocator does: they carry no managedFields;
//   - kube-apiserver's repair loop, which every few minutes recreates the IPAddress a Service
//     lacks and deletes the ones whose Service is gone, runs once here, at start, and only
//     recreates (servers/core/servicecidr.go); an address a failed release leaves behind stays
//     taken until its IPAddress is deleted.
//
// NodePorts are a bitmap kept in one etcd key (/registry/ranges/servicenodeports) and changed
// only by compare-and-swap, as kubernetes' pkg/registry/core/service/allocator/storage does.
package allocator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
)

var (
	// ErrAllocated says the asked-for value is taken.
	ErrAllocated = errors.New("provided value is already allocated")
	// ErrFull says nothing is left.
	ErrFull = errors.New("range is full")
)

// Range is a set of the integers [0, size), persisted as a bitmap in a RangeAllocation object.
type Range struct {
	storage storage.Interface
	key     string
	spec    string // RangeAllocation.Range: what the bitmap covers, e.g. "10.0.0.0/24"
	size    int
	// staticBand is the low part of the range that AllocateNext tries last, leaving it for
	// values users ask for by number (kube's ipallocator does the same).
	staticBand int
}

// NewRange returns the range stored at key in st.
func NewRange(st storage.Interface, key, spec string, size int) *Range {
	return &Range{storage: st, key: key, spec: spec, size: size, staticBand: staticBandOf(size)}
}

// Allocate takes one given offset.
func (r *Range) Allocate(ctx context.Context, offset int) error {
	if offset < 0 || offset >= r.size {
		return fmt.Errorf("offset %d outside [0,%d)", offset, r.size)
	}
	return r.update(ctx, func(bits *big.Int) error {
		if bits.Bit(offset) == 1 {
			return ErrAllocated
		}
		bits.SetBit(bits, offset, 1)
		return nil
	})
}

// AllocateNext takes a free offset, chosen at random.
func (r *Range) AllocateNext(ctx context.Context) (int, error) {
	var got int
	err := r.update(ctx, func(bits *big.Int) error {
		off, ok := r.free(bits)
		if !ok {
			return ErrFull
		}
		bits.SetBit(bits, off, 1)
		got = off
		return nil
	})
	return got, err
}

// PeekNext returns an offset that is free now, without taking it (dry-run requests).
func (r *Range) PeekNext(ctx context.Context) (int, error) {
	bits, err := r.read(ctx)
	if err != nil {
		return 0, err
	}
	off, ok := r.free(bits)
	if !ok {
		return 0, ErrFull
	}
	return off, nil
}

// Has reports whether offset is taken.
func (r *Range) Has(ctx context.Context, offset int) (bool, error) {
	bits, err := r.read(ctx)
	if err != nil {
		return false, err
	}
	return bits.Bit(offset) == 1, nil
}

// Release frees offsets; freeing a free offset is not an error.
func (r *Range) Release(ctx context.Context, offsets ...int) error {
	if len(offsets) == 0 {
		return nil
	}
	return r.update(ctx, func(bits *big.Int) error {
		for _, o := range offsets {
			if o >= 0 && o < r.size {
				bits.SetBit(bits, o, 0)
			}
		}
		return nil
	})
}

// free picks a random free offset above the static band, then anywhere.
func (r *Range) free(bits *big.Int) (int, bool) {
	return pickFree(bits, r.size, r.staticBand)
}

// staticBandOf is the low part of a range of size that picking a free value tries last.
func staticBandOf(size int) int {
	return min(max(16, size/16), 256, size)
}

// pickFree picks a random offset of [0, size) whose bit is 0: first above the static band,
// then in it.
func pickFree(bits *big.Int, size, staticBand int) (int, bool) {
	scan := func(lo, hi int) (int, bool) {
		if hi <= lo {
			return 0, false
		}
		start := lo + rand.IntN(hi-lo)
		for i := 0; i < hi-lo; i++ {
			o := lo + (start-lo+i)%(hi-lo)
			if bits.Bit(o) == 0 {
				return o, true
			}
		}
		return 0, false
	}
	if o, ok := scan(staticBand, size); ok {
		return o, true
	}
	return scan(0, staticBand)
}

func (r *Range) read(ctx context.Context) (*big.Int, error) {
	ra := &corev1.RangeAllocation{}
	err := r.storage.Get(ctx, r.key, storage.GetOptions{IgnoreNotFound: true}, ra)
	if err != nil {
		return nil, err
	}
	return r.bitsOf(ra), nil
}

// bitsOf reads the bitmap; one stored for another range (the flag changed) counts as empty.
func (r *Range) bitsOf(ra *corev1.RangeAllocation) *big.Int {
	if ra.Range != r.spec {
		return new(big.Int)
	}
	return new(big.Int).SetBytes(ra.Data)
}

func (r *Range) update(ctx context.Context, change func(*big.Int) error) error {
	return r.storage.GuaranteedUpdate(ctx, r.key, &corev1.RangeAllocation{}, true, nil,
		storage.SimpleUpdate(func(in runtime.Object) (runtime.Object, error) {
			ra := in.(*corev1.RangeAllocation)
			bits := r.bitsOf(ra)
			if err := change(bits); err != nil {
				return nil, err
			}
			ra.Range = r.spec
			ra.Data = bits.Bytes()
			return ra, nil
		}), nil)
}
