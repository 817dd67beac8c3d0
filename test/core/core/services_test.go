package core_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

func TestKubernetesServiceHasFirstAddress(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	svc, err := cs.CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != "10.0.0.1" || svc.Spec.Ports[0].Port != 443 {
		t.Errorf("kubernetes service: clusterIP %s, ports %+v", svc.Spec.ClusterIP, svc.Spec.Ports)
	}
}

func TestServiceClusterIPAllocation(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	svcs := cs.CoreV1().Services(ns)
	cidr := netip.MustParsePrefix("10.0.0.0/24")

	seen := map[string]bool{"10.0.0.1": true}
	for _, name := range []string{"a", "b", "c"} {
		s, err := svcs.Create(ctx, coretest.Service(name, "", ""), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ip, err := netip.ParseAddr(s.Spec.ClusterIP)
		if err != nil || !cidr.Contains(ip) || seen[s.Spec.ClusterIP] {
			t.Errorf("service %s got clusterIP %q (taken before: %v)", name, s.Spec.ClusterIP, seen[s.Spec.ClusterIP])
		}
		seen[s.Spec.ClusterIP] = true
		if len(s.Spec.ClusterIPs) != 1 || s.Spec.ClusterIPs[0] != s.Spec.ClusterIP ||
			len(s.Spec.IPFamilies) != 1 || s.Spec.IPFamilies[0] != corev1.IPv4Protocol ||
			s.Spec.IPFamilyPolicy == nil || *s.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
			t.Errorf("service %s: clusterIPs %v, families %v, policy %v", name, s.Spec.ClusterIPs, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy)
		}
		if s.Spec.Type != corev1.ServiceTypeClusterIP || s.Spec.SessionAffinity != corev1.ServiceAffinityNone ||
			s.Spec.Ports[0].Protocol != corev1.ProtocolTCP || s.Spec.Ports[0].TargetPort.IntValue() != 80 {
			t.Errorf("service %s not defaulted: %+v", name, s.Spec)
		}
	}

	// A chosen address, then the same address again. Addresses from the low band of the range,
	// which automatic allocation leaves for such requests, so that services other tests create
	// in this shared chain do not take them first.
	if s, err := svcs.Create(ctx, coretest.Service("fixed", "", "10.0.0.10"), metav1.CreateOptions{}); err != nil || s.Spec.ClusterIP != "10.0.0.10" {
		t.Fatalf("fixed clusterIP: %v", err)
	}
	_, err := svcs.Create(ctx, coretest.Service("clash", "", "10.0.0.10"), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Errorf("taken clusterIP: %v, want Invalid ... already allocated", err)
	}
	_, err = svcs.Create(ctx, coretest.Service("outside", "", "10.9.9.9"), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "is not in the valid range") {
		t.Errorf("clusterIP outside the range: %v, want Invalid ... not in the valid range", err)
	}
	// Deleting frees the address.
	if err := svcs.Delete(ctx, "fixed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Create(ctx, coretest.Service("again", "", "10.0.0.10"), metav1.CreateOptions{}); err != nil {
		t.Errorf("reusing a freed clusterIP: %v", err)
	}
	// A dry run allocates nothing.
	if _, err := svcs.Create(ctx, coretest.Service("dry", "", "10.0.0.11"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Create(ctx, coretest.Service("wet", "", "10.0.0.11"), metav1.CreateOptions{}); err != nil {
		t.Errorf("address used by a dry run stayed allocated: %v", err)
	}
	// Headless services get no address.
	if s, err := svcs.Create(ctx, coretest.Service("headless", "", "None"), metav1.CreateOptions{}); err != nil || s.Spec.ClusterIP != "None" {
		t.Errorf("headless: %v %v", err, s)
	}
}

func TestServiceNodePortAllocation(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	svcs := cs.CoreV1().Services(ns)
	s, err := svcs.Create(ctx, coretest.Service("np", corev1.ServiceTypeNodePort, ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := s.Spec.Ports[0].NodePort
	if port < 30000 || port > 32767 {
		t.Errorf("nodePort %d outside 30000-32767", port)
	}
	clash := coretest.Service("np2", corev1.ServiceTypeNodePort, "")
	clash.Spec.Ports[0].NodePort = port
	if _, err := svcs.Create(ctx, clash, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("taken nodePort: %v, want Invalid", err)
	}
	// An update that leaves the node port out keeps it.
	s.Spec.Ports[0].NodePort = 0
	s.Labels = map[string]string{"touched": "yes"}
	u, err := svcs.Update(ctx, s, metav1.UpdateOptions{})
	if err != nil || u.Spec.Ports[0].NodePort != port {
		t.Errorf("update: %v, nodePort %v want %d", err, u.Spec.Ports, port)
	}
	// Switching to ClusterIP releases it.
	u.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := svcs.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Create(ctx, clash, metav1.CreateOptions{}); err != nil {
		t.Errorf("nodePort released by a type change is still taken: %v", err)
	}
}

// TestServiceClusterIPsAreIPAddresses: as in kube-apiserver v1.37, a Service's ClusterIP is an
// IPAddress object named by the address, whose parent is the Service: created with the
// Service, deleted with it; an IPAddress that exists holds its address against any Service.
func TestServiceClusterIPsAreIPAddresses(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	addresses := cs.NetworkingV1().IPAddresses()
	parentOf := func(ip string) string {
		a, err := addresses.Get(ctx, ip, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "none"
		}
		if err != nil || a.Spec.ParentRef == nil || a.Labels["ipaddress.kubernetes.io/managed-by"] != "ipallocator.k8s.io" {
			t.Fatalf("IPAddress %s: %v %+v", ip, err, a)
		}
		return a.Spec.ParentRef.Resource + "/" + a.Spec.ParentRef.Namespace + "/" + a.Spec.ParentRef.Name
	}
	if got := parentOf("10.0.0.1"); got != "services/default/kubernetes" {
		t.Errorf("10.0.0.1 belongs to %s", got)
	}
	web, err := cs.CoreV1().Services(ns).Create(ctx, coretest.Service("web", "", ""), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := parentOf(web.Spec.ClusterIP); got != "services/"+ns+"/web" {
		t.Errorf("%s belongs to %s", web.Spec.ClusterIP, got)
	}
	if out, err := testchain.Kubectl(t, shared, "get", "ipaddress", web.Spec.ClusterIP); err != nil || !strings.Contains(out, "services/"+ns+"/web") {
		t.Errorf("kubectl get ipaddress: %v\n%s", err, out)
	}
	// Becoming an ExternalName gives the address back.
	web.Spec.Type, web.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
	if _, err := cs.CoreV1().Services(ns).Update(ctx, web, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := parentOf(web.Spec.ClusterIP); got != "none" {
		t.Errorf("after the type change, %s belongs to %s", web.Spec.ClusterIP, got)
	}

	// An address someone else recorded is taken; deleting the Service that was refused it, or
	// any other, leaves that record alone.
	reserved := allocatorIPAddress("10.0.0.12", "reserved-by-hand")
	if _, err := addresses.Create(ctx, reserved, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = addresses.Delete(ctx, "10.0.0.12", metav1.DeleteOptions{}) })
	if _, err := cs.CoreV1().Services(ns).Create(ctx, coretest.Service("wants-12", "", "10.0.0.12"), metav1.CreateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Errorf("a recorded address: %v, want Invalid ... already allocated", err)
	}
	if got := parentOf("10.0.0.12"); got != "services/default/reserved-by-hand" {
		t.Errorf("10.0.0.12 belongs to %s", got)
	}
	fixed, err := cs.CoreV1().Services(ns).Create(ctx, coretest.Service("fixed-13", "", "10.0.0.13"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Services(ns).Delete(ctx, fixed.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := parentOf("10.0.0.13"); got != "none" {
		t.Errorf("after its Service was deleted, 10.0.0.13 belongs to %s", got)
	}
}

// allocatorIPAddress is an IPAddress as the allocator labels it, for a Service of default.
func allocatorIPAddress(ip, service string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip, Labels: map[string]string{"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: service}},
	}
}
