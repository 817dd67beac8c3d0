package core

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/util/dryrun"

	"github.com/apichain/apichain/servers/core/allocator"
	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
)

// services follows kubernetes pkg/registry/core/service (strategy.go; storage/alloc.go for the
// allocation, single-stack only).
var services = &resource.Definition{
	Resource: "services", Singular: "service", Namespaced: true,
	New:                 func() runtime.Object { return &corev1.Service{} },
	NewList:             func() runtime.Object { return &corev1.ServiceList{} },
	ShortNames:          []string{"svc"},
	Categories:          []string{"all"},
	Table:               printers.Service,
	Status:              true,
	AllowCreateOnUpdate: true,
	FieldSelectors:      []string{"spec.clusterIP", "spec.type"},
	Fields: resource.FieldsOf(func(s *corev1.Service) fields.Set {
		return fields.Set{"spec.clusterIP": s.Spec.ClusterIP, "spec.type": string(s.Spec.Type)}
	}),
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		dropTypeDependentFields(obj.(*corev1.Service), old.(*corev1.Service))
	},
	Validate:             resource.Check(corevalidation.ValidateService),
	ValidateUpdate:       resource.CheckUpdate(corevalidation.ValidateServiceUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(corevalidation.ValidateServiceStatusUpdate),
}

// serviceAllocator gives services their ClusterIPs and NodePorts, and takes them back.
type serviceAllocator struct {
	ips   *allocator.ClusterIPs
	ports *allocator.PortRange
}

// install hooks the allocator into the service store: allocate before the write, release what a
// failed write allocated, release what a delete or update freed.
func (a *serviceAllocator) install(store *genericregistry.Store) {
	store.BeginCreate = func(ctx context.Context, obj runtime.Object, options *metav1.CreateOptions) (genericregistry.FinishFunc, error) {
		return a.allocate(ctx, obj.(*corev1.Service), nil, dryrun.IsDryRun(options.DryRun))
	}
	store.BeginUpdate = func(ctx context.Context, obj, old runtime.Object, options *metav1.UpdateOptions) (genericregistry.FinishFunc, error) {
		return a.allocate(ctx, obj.(*corev1.Service), old.(*corev1.Service), dryrun.IsDryRun(options.DryRun))
	}
	store.AfterDelete = func(obj runtime.Object, options *metav1.DeleteOptions) {
		if dryrun.IsDryRun(options.DryRun) {
			return
		}
		svc := obj.(*corev1.Service)
		a.release(context.Background(), svc, holdings(svc))
	}
}

// held is what one service holds from the ranges.
type held struct {
	ips   []netip.Addr
	ports []int
}

func holdings(svc *corev1.Service) held {
	var h held
	if needsClusterIP(svc) {
		for _, s := range svc.Spec.ClusterIPs {
			if ip, err := netip.ParseAddr(s); err == nil {
				h.ips = append(h.ips, ip)
			}
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			h.ports = append(h.ports, int(p.NodePort))
		}
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		h.ports = append(h.ports, int(svc.Spec.HealthCheckNodePort))
	}
	return h
}

// release gives back what svc held.
func (a *serviceAllocator) release(ctx context.Context, svc *corev1.Service, h held) {
	var portOffsets []int
	for _, p := range h.ports {
		portOffsets = append(portOffsets, p-a.ports.Base)
	}
	// A failed release only leaks a value; the write it belongs to has already happened.
	_ = a.ips.Release(ctx, owner(svc), h.ips...)
	_ = a.ports.Release(ctx, portOffsets...)
}

// owner is the Service an IPAddress names as its parent.
func owner(svc *corev1.Service) allocator.Owner {
	return allocator.Owner{Namespace: svc.Namespace, Name: svc.Name}
}

// allocate fills in svc's ClusterIPs, IP families and NodePorts (keeping old's on update) and
// returns the function that, once the write is done, releases what is no longer used.
func (a *serviceAllocator) allocate(ctx context.Context, svc, old *corev1.Service, dryRun bool) (genericregistry.FinishFunc, error) {
	if old != nil {
		patchAllocatedValues(svc, old)
	}
	if err := a.initIPFamilyFields(svc, old); err != nil {
		return nil, err
	}
	var before held
	if old != nil {
		before = holdings(old)
	}
	var taken held // what this request newly allocated
	fail := func(err error) (genericregistry.FinishFunc, error) {
		if !dryRun {
			a.release(ctx, svc, taken)
		}
		return nil, err
	}

	if needsClusterIP(svc) && svc.Spec.ClusterIP != corev1.ClusterIPNone {
		if svc.Spec.ClusterIP == "" {
			ip, err := a.nextIP(ctx, svc, dryRun)
			if err != nil {
				return fail(apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err)))
			}
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip.String(), []string{ip.String()}
			taken.ips = append(taken.ips, ip)
		} else if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil && !slices.Contains(before.ips, ip) {
			if err := a.takeIP(ctx, svc, ip, dryRun); err != nil {
				return fail(apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs, err.Error())}))
			}
			taken.ips = append(taken.ips, ip)
		}
	}

	if needsNodePort(svc) {
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			port, err := a.port(ctx, int(p.NodePort), before.ports, dryRun)
			if err != nil {
				return fail(apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name,
					field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), p.NodePort, err.Error())}))
			}
			if int(p.NodePort) != port || !slices.Contains(before.ports, port) {
				taken.ports = append(taken.ports, port)
			}
			p.NodePort = int32(port)
		}
	}

	return func(ctx context.Context, success bool) {
		if dryRun {
			return
		}
		if !success {
			a.release(ctx, svc, taken)
			return
		}
		// Release what the old object held and the new one does not.
		after := holdings(svc)
		var freed held
		for _, ip := range before.ips {
			if !slices.Contains(after.ips, ip) {
				freed.ips = append(freed.ips, ip)
			}
		}
		for _, p := range before.ports {
			if !slices.Contains(after.ports, p) {
				freed.ports = append(freed.ports, p)
			}
		}
		a.release(ctx, svc, freed)
	}, nil
}

func (a *serviceAllocator) nextIP(ctx context.Context, svc *corev1.Service, dryRun bool) (netip.Addr, error) {
	if dryRun {
		return a.ips.PeekNext(ctx)
	}
	return a.ips.AllocateNext(ctx, owner(svc))
}

func (a *serviceAllocator) takeIP(ctx context.Context, svc *corev1.Service, ip netip.Addr, dryRun bool) error {
	if _, ok := a.ips.Offset(ip); !ok {
		return fmt.Errorf("failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, ip, a.ips.CIDR())
	}
	var err error
	if dryRun {
		var has bool
		if has, err = a.ips.Has(ctx, ip); err == nil && has {
			err = allocator.ErrAllocated
		}
	} else {
		err = a.ips.Allocate(ctx, ip, owner(svc))
	}
	if err == allocator.ErrAllocated {
		return fmt.Errorf("failed to allocate IP %s: provided IP is already allocated", ip)
	}
	return err
}

// port allocates a node port: the asked-for one, or any when asked for 0. A port the service
// already held is kept without allocating it again.
func (a *serviceAllocator) port(ctx context.Context, want int, held []int, dryRun bool) (int, error) {
	if want != 0 && slices.Contains(held, want) {
		return want, nil
	}
	if want == 0 {
		var off int
		var err error
		if dryRun {
			off, err = a.ports.PeekNext(ctx)
		} else {
			off, err = a.ports.AllocateNext(ctx)
		}
		if err != nil {
			return 0, fmt.Errorf("failed to allocate a nodePort: %w", err)
		}
		return a.ports.Base + off, nil
	}
	var err error
	if dryRun {
		if want < a.ports.Base || want >= a.ports.Base+a.ports.Size {
			err = a.ports.AllocatePort(ctx, want) // only to build the range error
		} else if has, herr := a.ports.Has(ctx, want-a.ports.Base); herr != nil {
			err = herr
		} else if has {
			err = allocator.ErrAllocated
		}
	} else {
		err = a.ports.AllocatePort(ctx, want)
	}
	if err == allocator.ErrAllocated {
		return 0, fmt.Errorf("provided port is already allocated")
	}
	return want, err
}

// initIPFamilyFields defaults ipFamilyPolicy, ipFamilies and clusterIPs for a single-stack
// cluster (kubernetes pkg/registry/core/service/storage/alloc.go initIPFamilyFields).
func (a *serviceAllocator) initIPFamilyFields(svc, old *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	family := corev1.IPv4Protocol
	if a.ips.CIDR().Addr().Is6() {
		family = corev1.IPv6Protocol
	}
	headlessNoSelector := svc.Spec.ClusterIP == corev1.ClusterIPNone && len(svc.Spec.Selector) == 0
	if svc.Spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		if old != nil && old.Spec.IPFamilyPolicy != nil {
			policy = *old.Spec.IPFamilyPolicy
		} else if headlessNoSelector {
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		svc.Spec.IPFamilyPolicy = &policy
	}
	gk := corev1.SchemeGroupVersion.WithKind("Service").GroupKind()
	if *svc.Spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack && !headlessNoSelector {
		return apierrors.NewInvalid(gk, svc.Name, field.ErrorList{field.Invalid(field.NewPath("spec", "ipFamilyPolicy"),
			*svc.Spec.IPFamilyPolicy, "this cluster is not configured for dual-stack services")})
	}
	for i, f := range svc.Spec.IPFamilies {
		// A family that does not exist is validation's to report (NotSupported).
		if f != family && (f == corev1.IPv4Protocol || f == corev1.IPv6Protocol) {
			return apierrors.NewInvalid(gk, svc.Name, field.ErrorList{field.Invalid(field.NewPath("spec", "ipFamilies").Index(i),
				f, "not configured on this cluster")})
		}
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{family}
	}
	if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	return nil
}

// patchAllocatedValues keeps what the stored service was given when an update leaves it out
// (kubernetes pkg/registry/core/service/storage/storage.go).
func patchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		used := map[int32]bool{}
		for _, p := range svc.Spec.Ports {
			used[p.NodePort] = true
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			if p := &svc.Spec.Ports[i]; p.NodePort == 0 && !used[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
}

// dropTypeDependentFields wipes allocated values that a type change made useless, unless the
// user also changed them (kubernetes pkg/registry/core/service/strategy.go).
func dropTypeDependentFields(svc, old *corev1.Service) {
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if svc.Spec.ClusterIP == old.Spec.ClusterIP && fmt.Sprint(svc.Spec.ClusterIPs) == fmt.Sprint(old.Spec.ClusterIPs) {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		}
		if fmt.Sprint(svc.Spec.IPFamilies) == fmt.Sprint(old.Spec.IPFamilies) {
			svc.Spec.IPFamilies = nil
		}
		if (svc.Spec.IPFamilyPolicy == nil) == (old.Spec.IPFamilyPolicy == nil) &&
			(svc.Spec.IPFamilyPolicy == nil || *svc.Spec.IPFamilyPolicy == *old.Spec.IPFamilyPolicy) {
			svc.Spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) {
		oldPorts := map[int32]bool{}
		for _, p := range old.Spec.Ports {
			oldPorts[p.NodePort] = true
		}
		same := true
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 && !oldPorts[p.NodePort] {
				same = false
			}
		}
		if same {
			for i := range svc.Spec.Ports {
				svc.Spec.Ports[i].NodePort = 0
			}
		}
	}
	if needsHCNodePort(old) && !needsHCNodePort(svc) && svc.Spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		svc.Spec.HealthCheckNodePort = 0
	}
	if externallyAccessible(old) && !externallyAccessible(svc) && svc.Spec.ExternalTrafficPolicy == old.Spec.ExternalTrafficPolicy {
		svc.Spec.ExternalTrafficPolicy = ""
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

func needsHCNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// externallyAccessible follows kubernetes pkg/apis/core/v1/helper: reachable from outside the cluster.
func externallyAccessible(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer || svc.Spec.Type == corev1.ServiceTypeNodePort ||
		(svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0)
}

func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}
