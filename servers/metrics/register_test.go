package metrics

import (
	"context"
	"net"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	aggregatorfake "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
)

// TestRegistration checks the objects registered, and that a restart on another port and
// address updates them rather than adding to them.
func TestRegistration(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	aggregator := aggregatorfake.NewClientset()
	r := &registration{client: client, apiregistration: aggregator, advertise: net.IPv4(127, 0, 0, 1), port: 4443, caBundle: []byte("CA")}
	if err := r.ensure(ctx); err != nil {
		t.Fatal(err)
	}

	svc, err := client.CoreV1().Services("kube-system").Get(ctx, "metrics-server", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := svc.Spec.Ports; svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Selector != nil || len(p) != 1 ||
		p[0].Name != "https" || p[0].Port != 443 || p[0].TargetPort.IntValue() != 4443 {
		t.Errorf("service spec: %+v", svc.Spec)
	}

	slice, err := client.DiscoveryV1().EndpointSlices("kube-system").Get(ctx, "metrics-server-fqdn", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slice.AddressType != discoveryv1.AddressTypeFQDN || slice.Labels[discoveryv1.LabelServiceName] != "metrics-server" ||
		len(slice.Endpoints) != 1 || slice.Endpoints[0].Addresses[0] != "metrics-server.localhost" || !*slice.Endpoints[0].Conditions.Ready ||
		len(slice.Ports) != 1 || *slice.Ports[0].Name != "https" || *slice.Ports[0].Port != 4443 {
		t.Errorf("endpointslice: %+v", slice)
	}

	for _, want := range []struct {
		name     string
		priority int32
	}{{"v1beta1.metrics.k8s.io", 100}, {"v1.metrics.k8s.io", 200}} {
		as, err := aggregator.ApiregistrationV1().APIServices().Get(ctx, want.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := as.Spec
		if s.Service == nil || s.Service.Namespace != "kube-system" || s.Service.Name != "metrics-server" || *s.Service.Port != 443 ||
			string(s.CABundle) != "CA" || s.InsecureSkipTLSVerify || s.GroupPriorityMinimum != 100 || s.VersionPriority != want.priority {
			t.Errorf("%s: %+v", want.name, s)
		}
	}

	// Restart on another port and a routable address.
	r.port, r.advertise, r.caBundle = 5443, net.ParseIP("192.0.2.10"), []byte("CA2")
	if err := r.ensure(ctx); err != nil {
		t.Fatal(err)
	}
	svc, _ = client.CoreV1().Services("kube-system").Get(ctx, "metrics-server", metav1.GetOptions{})
	if svc.Spec.Ports[0].TargetPort.IntValue() != 5443 {
		t.Errorf("targetPort not updated: %+v", svc.Spec.Ports)
	}
	slices, err := client.DiscoveryV1().EndpointSlices("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(slices.Items) != 1 || slices.Items[0].Name != "metrics-server-ipv4" || slices.Items[0].Endpoints[0].Addresses[0] != "192.0.2.10" || *slices.Items[0].Ports[0].Port != 5443 {
		t.Errorf("slices after restart: %+v", slices.Items)
	}
	as, _ := aggregator.ApiregistrationV1().APIServices().Get(ctx, "v1.metrics.k8s.io", metav1.GetOptions{})
	if string(as.Spec.CABundle) != "CA2" {
		t.Errorf("caBundle not updated")
	}
}
