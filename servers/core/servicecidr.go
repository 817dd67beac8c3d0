package core

import (
	"context"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1apply "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/servers/core/allocator"
)

// DefaultServiceCIDRName is the ServiceCIDR that holds --service-cluster-ip-range.
const DefaultServiceCIDRName = "kubernetes"

// defaultServiceCIDRManager is the field manager of the default range's status, kube-apiserver's.
const defaultServiceCIDRManager = "kubernetes-service-cidr-controller"

// defaultServiceCIDR keeps the ServiceCIDR named kubernetes, made from
// --service-cluster-ip-range, as kube-apiserver's default ServiceCIDR controller
// (pkg/controlplane/controller/defaultservicecidr) does: create it if it is missing, and mark it
// Ready if its CIDRs are the flag's and no Ready condition says otherwise. A range that is
// being deleted, or that a user changed, is left as it is. Unlike kube-apiserver, which checks
// again every 10 seconds and so recreates a deleted default range, the chain does it once, at
// start, as it does the kubernetes Service.
func (b *bootstrap) defaultServiceCIDR(hc genericapiserver.PostStartHookContext) error {
	cs, err := client(hc)
	if err != nil {
		return err
	}
	return retry(hc, "default ServiceCIDR", func(ctx context.Context) error {
		return ensureDefaultServiceCIDR(ctx, cs, b.serviceCIDR)
	})
}

func ensureDefaultServiceCIDR(ctx context.Context, cs kubernetes.Interface, cidr netip.Prefix) error {
	cidrs := cs.NetworkingV1().ServiceCIDRs()
	c, err := cidrs.Get(ctx, DefaultServiceCIDRName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		c, err = cidrs.Create(ctx, &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceCIDRName},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: []string{cidr.String()}},
		}, metav1.CreateOptions{})
	}
	if err != nil {
		return err // an AlreadyExists from another instance: retried, and then found
	}
	if c.DeletionTimestamp != nil || slices.ContainsFunc(c.Status.Conditions, func(cond metav1.Condition) bool {
		return cond.Type == networkingv1.ServiceCIDRConditionReady
	}) || !slices.Equal(c.Spec.CIDRs, []string{cidr.String()}) {
		return nil
	}
	ready := networkingv1apply.ServiceCIDR(DefaultServiceCIDRName).WithStatus(networkingv1apply.ServiceCIDRStatus().WithConditions(
		metav1apply.Condition().WithType(networkingv1.ServiceCIDRConditionReady).WithStatus(metav1.ConditionTrue).
			WithMessage("Kubernetes default Service CIDR is ready").WithLastTransitionTime(metav1.Now())))
	_, err = cidrs.ApplyStatus(ctx, ready, metav1.ApplyOptions{FieldManager: defaultServiceCIDRManager, Force: true})
	return err
}

// serviceIPs gives every ClusterIP of the range that a Service holds its IPAddress, as
// kube-apiserver's IPAddress repair loop does: Services stored before the chain allocated
// addresses as IPAddress objects (or whose IPAddress someone deleted) would otherwise see their
// address handed out again. It runs once, at start; it deletes nothing (see
// servers/core/allocator).
func (b *bootstrap) serviceIPs(hc genericapiserver.PostStartHookContext) error {
	cs, err := client(hc)
	if err != nil {
		return err
	}
	return retry(hc, "service IP addresses", func(ctx context.Context) error {
		return repairServiceIPs(ctx, cs, b.serviceCIDR)
	})
}

func repairServiceIPs(ctx context.Context, cs kubernetes.Interface, cidr netip.Prefix) error {
	services, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	addresses, err := cs.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, a := range addresses.Items {
		have[a.Name] = true
	}
	for _, svc := range services.Items {
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		for _, s := range svc.Spec.ClusterIPs {
			ip, err := netip.ParseAddr(s)
			if err != nil || !cidr.Contains(ip) || have[ip.String()] {
				continue // None, another family or range, or held already
			}
			a := allocator.NewIPAddress(ip, allocator.Owner{Namespace: svc.Namespace, Name: svc.Name})
			if _, err := cs.NetworkingV1().IPAddresses().Create(ctx, a, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
	}
	return nil
}
