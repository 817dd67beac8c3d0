package allocator

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/internal/etcdstorage"
)

// clusterIPs returns n allocators of cidr that share one real embedded etcd, as n chain
// instances would.
func clusterIPs(t *testing.T, cidr string, n int) []*ClusterIPs {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	server, err := etcd.Start(ctx, etcd.Config{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	gv := networkingv1.SchemeGroupVersion
	config := storagebackend.NewDefaultConfig("/registry", codecs.CodecForVersions(codecs.LegacyCodec(gv), codecs.UniversalDecoder(gv), gv, gv))
	config.Transport.ServerList = []string{server.ClientURL}
	clients := etcdstorage.NewClients()
	var out []*ClusterIPs
	for range n {
		st, destroy, err := clients.NewStore(config.ForResource(schema.GroupResource{Group: gv.Group, Resource: "ipaddresses"}),
			func() runtime.Object { return &networkingv1.IPAddress{} }, func() runtime.Object { return &networkingv1.IPAddressList{} }, "/ipaddresses")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(destroy)
		ips, err := NewClusterIPs(st, "/ipaddresses", netip.MustParsePrefix(cidr))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ips)
	}
	return out
}

func TestClusterIPsAreIPAddressObjects(t *testing.T) {
	ctx := context.Background()
	ips := clusterIPs(t, "10.0.0.0/29", 1)[0] // six usable addresses, .1 to .6
	web := Owner{Namespace: "default", Name: "web"}
	first := netip.MustParseAddr("10.0.0.1")
	if err := ips.Allocate(ctx, first, web); err != nil {
		t.Fatal(err)
	}
	if err := ips.Allocate(ctx, first, Owner{Namespace: "default", Name: "other"}); !errors.Is(err, ErrAllocated) {
		t.Errorf("the same address again: %v, want ErrAllocated", err)
	}
	if err := ips.Allocate(ctx, netip.MustParseAddr("10.0.0.7"), web); err == nil {
		t.Error("the broadcast address was handed out")
	}
	got := &networkingv1.IPAddress{}
	if err := ips.storage.Get(ctx, "/ipaddresses/10.0.0.1", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if ref := got.Spec.ParentRef; ref == nil || *ref != (networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}) ||
		got.Labels[networkingv1.LabelIPAddressFamily] != "IPv4" || got.Labels[networkingv1.LabelManagedBy] != ManagedBy || got.UID == "" {
		t.Errorf("the IPAddress of 10.0.0.1: %+v", got)
	}

	seen := map[netip.Addr]bool{first: true}
	for range 5 {
		ip, err := ips.AllocateNext(ctx, web)
		if err != nil || seen[ip] || !ips.CIDR().Contains(ip) {
			t.Fatalf("next address %v (seen before: %v): %v", ip, seen[ip], err)
		}
		seen[ip] = true
	}
	if _, err := ips.AllocateNext(ctx, web); !errors.Is(err, ErrFull) {
		t.Errorf("a seventh address: %v, want ErrFull", err)
	}
	if _, err := ips.PeekNext(ctx); !errors.Is(err, ErrFull) {
		t.Errorf("peeking into a full range: %v, want ErrFull", err)
	}

	// Only the owner releases an address.
	if err := ips.Release(ctx, Owner{Namespace: "default", Name: "other"}, first); err != nil {
		t.Fatal(err)
	}
	if has, err := ips.Has(ctx, first); err != nil || !has {
		t.Errorf("another object released 10.0.0.1: has %v, %v", has, err)
	}
	if err := ips.Release(ctx, web, first, netip.MustParseAddr("10.0.0.9")); err != nil {
		t.Fatal(err)
	}
	if has, err := ips.Has(ctx, first); err != nil || has {
		t.Errorf("after its release: has %v, %v", has, err)
	}
	if ip, err := ips.PeekNext(ctx); err != nil || ip != first {
		t.Errorf("peek: %v %v, want the one free address", ip, err)
	}
}

// TestClusterIPsAreUniqueAcrossInstances: allocators on one etcd never hand out one address
// twice, however they race.
func TestClusterIPsAreUniqueAcrossInstances(t *testing.T) {
	ctx := context.Background()
	instances := clusterIPs(t, "10.1.0.0/27", 2) // 30 addresses
	var mu sync.Mutex
	got := map[netip.Addr]int{}
	var wg sync.WaitGroup
	for i, ips := range instances {
		for j := range 15 {
			wg.Go(func() {
				ip, err := ips.AllocateNext(ctx, Owner{Namespace: "ns", Name: string(rune('a'+i)) + string(rune('a'+j))})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				got[ip]++
			})
		}
	}
	wg.Wait()
	if len(got) != 30 {
		t.Errorf("%d distinct addresses for 30 allocations: %v", len(got), got)
	}
}
