package core

import (
	"context"
	"net/netip"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	metav1apply "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1apply "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"
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
