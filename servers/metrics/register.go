package metrics

import (
	"context"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"
)

// What the metrics server registers, as metrics-server's manifest (components.yaml) declares it.
const (
	serviceNamespace = metav1.NamespaceSystem
	serviceName      = "metrics-server"
	servicePortName  = "https"
	servicePort      = 443
	// localhostName stands for 127.0.0.1 in an EndpointSlice, which rejects loopback
	// addresses: RFC 6761 reserves *.localhost for the loopback, and the chain's Aggregator
	// dials such names there.
	localhostName = "metrics-server.localhost"
	// managedBy marks the EndpointSlices the metrics server maintains itself.
	managedBy = "metrics-server.apichain"
	apiGroup  = "metrics.k8s.io"
)

// apiServices are the group versions registered: v1beta1 with the manifest's priorities, v1
// (GA since Kubernetes 1.37) with a higher version priority, so that clients prefer it.
var apiServices = []struct {
	version         string
	versionPriority int32
}{{"v1beta1", 100}, {"v1", 200}}

// registration routes metrics.k8s.io from the Aggregator to this server: a selector-less
// Service whose EndpointSlice holds the advertise address and serving port, and an APIService
// per version that names the Service and trusts the serving CA.
type registration struct {
	client          kubernetes.Interface
	apiregistration apiregistrationclient.Interface
	advertise       net.IP
	port            int32
	caBundle        []byte
	// frontProxyCA, if set, is the CA this server verifies the Aggregator's front-proxy
	// certificate with. It comes from the chain's ConfigMap a moment after the server starts
	// serving; registered before that, the Aggregator's first availability checks get 403.
	frontProxyCA interface{ CurrentCABundleContent() []byte }
}

// run registers, retrying with backoff until it works or ctx ends (the server stops). A
// post-start hook that fails stops the process, so failures are logged and retried instead.
func (r *registration) run(ctx context.Context) {
	if r.frontProxyCA != nil {
		err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(context.Context) (bool, error) {
			return len(r.frontProxyCA.CurrentCABundleContent()) > 0, nil
		})
		if err != nil {
			return // stopping
		}
	}
	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: math.MaxInt32, Cap: 5 * time.Second}
	err := wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		if err := r.ensure(ctx); err != nil {
			klog.ErrorS(err, "Registering metrics.k8s.io with the chain failed; retrying")
			return false, nil
		}
		return true, nil
	})
	if err == nil {
		_, address := r.address()
		klog.InfoS("Registered metrics.k8s.io", "service", serviceNamespace+"/"+serviceName, "address", address, "port", r.port)
	}
}

// withdraw deletes the APIServices on a graceful stop, if they still route to this server (its
// EndpointSlice holds this address and port): left behind, they would have the Aggregator
// report metrics.k8s.io unavailable, with errors, on every start of the chain until a metrics
// server registers again. A server that registered since keeps its registration.
func (r *registration) withdraw(ctx context.Context) error {
	// The EndpointSlice says whether the registration is ours, even one still being retried.
	addressType, address := r.address()
	slice, err := r.client.DiscoveryV1().EndpointSlices(serviceNamespace).Get(ctx, serviceName+"-"+strings.ToLower(string(addressType)), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil // never registered
	}
	if err != nil {
		return fmt.Errorf("reading the endpointslice: %w", err)
	}
	ours := len(slice.Endpoints) == 1 && slices.Equal(slice.Endpoints[0].Addresses, []string{address}) &&
		len(slice.Ports) == 1 && slice.Ports[0].Port != nil && *slice.Ports[0].Port == r.port
	if !ours {
		return nil
	}
	for _, v := range apiServices {
		err := r.apiregistration.ApiregistrationV1().APIServices().Delete(ctx, v.version+"."+apiGroup, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting apiservice %s.metrics.k8s.io: %w", v.version, err)
		}
	}
	// The Aggregator acts on the deletes a moment later, from its informer: its registration
	// controller unregisters each version's route, then takes the version out of its OpenAPI
	// controllers (APIAggregator.RemoveAPIService), which drop a download they have queued.
	// Were this server to close its listener before that, a download queued a second after
	// the registration would be refused, and the chain would log it as an error. A version's
	// path that falls through to the chain's 404 says the route is gone, and with it, a few
	// statements later, the download.
	for _, v := range apiServices {
		err := wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			err := r.client.Discovery().RESTClient().Get().AbsPath("/apis", apiGroup, v.version).Do(ctx).Error()
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			return fmt.Errorf("waiting for the aggregator to drop /apis/%s/%s: %w", apiGroup, v.version, err)
		}
	}
	klog.InfoS("Withdrew metrics.k8s.io from the chain")
	return nil
}

func (r *registration) ensure(ctx context.Context) error {
	svc, err := r.ensureService(ctx)
	if err != nil {
		return fmt.Errorf("service %s/%s: %w", serviceNamespace, serviceName, err)
	}
	if err := r.ensureEndpointSlice(ctx, svc); err != nil {
		return fmt.Errorf("endpointslice: %w", err)
	}
	for _, v := range apiServices {
		if err := r.ensureAPIService(ctx, v.version, v.versionPriority); err != nil {
			return fmt.Errorf("apiservice %s.metrics.k8s.io: %w", v.version, err)
		}
	}
	return nil
}

func (r *registration) ensureService(ctx context.Context) (*corev1.Service, error) {
	want := corev1.ServiceSpec{
		Type:  corev1.ServiceTypeClusterIP,
		Ports: []corev1.ServicePort{{Name: servicePortName, Protocol: corev1.ProtocolTCP, Port: servicePort, TargetPort: intstr.FromInt32(r.port)}},
	}
	services := r.client.CoreV1().Services(serviceNamespace)
	svc, err := services.Get(ctx, serviceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return services.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: serviceName, Namespace: serviceNamespace, Labels: map[string]string{"k8s-app": serviceName}},
			Spec:       want,
		}, metav1.CreateOptions{})
	}
	if err != nil {
		return nil, err
	}
	if svc.Spec.Type == want.Type && svc.Spec.Selector == nil && len(svc.Spec.Ports) == 1 && svc.Spec.Ports[0] == want.Ports[0] {
		return svc, nil
	}
	svc.Spec.Type, svc.Spec.Selector, svc.Spec.Ports = want.Type, nil, want.Ports
	return services.Update(ctx, svc, metav1.UpdateOptions{})
}

// address is what the EndpointSlice holds: the advertise address, or metrics-server.localhost
// for a loopback one.
func (r *registration) address() (discoveryv1.AddressType, string) {
	switch {
	case r.advertise.IsLoopback():
		return discoveryv1.AddressTypeFQDN, localhostName
	case r.advertise.To4() != nil:
		return discoveryv1.AddressTypeIPv4, r.advertise.String()
	default:
		return discoveryv1.AddressTypeIPv6, r.advertise.String()
	}
}

func (r *registration) ensureEndpointSlice(ctx context.Context, svc *corev1.Service) error {
	addressType, address := r.address()
	// One name per address type: the type of a slice cannot change.
	name := serviceName + "-" + strings.ToLower(string(addressType))
	want := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: serviceNamespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: serviceName, discoveryv1.LabelManagedBy: managedBy},
			// Deleting the Service deletes its slice, as for the slices of the EndpointSlice controller.
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
		AddressType: addressType,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{address}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(servicePortName), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(r.port)}},
	}
	slices := r.client.DiscoveryV1().EndpointSlices(serviceNamespace)
	existing, err := slices.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := slices.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		existing.Labels, existing.OwnerReferences = want.Labels, want.OwnerReferences
		existing.Endpoints, existing.Ports = want.Endpoints, want.Ports
		if _, err := slices.Update(ctx, existing, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}

	// Slices of an earlier start with another address type would route to a stale address.
	selector := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: serviceName, discoveryv1.LabelManagedBy: managedBy})
	list, err := slices.List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return err
	}
	for _, s := range list.Items {
		if s.Name == name {
			continue
		}
		if err := slices.Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (r *registration) ensureAPIService(ctx context.Context, version string, versionPriority int32) error {
	name := version + "." + apiGroup
	want := apiregistrationv1.APIServiceSpec{
		Service:              &apiregistrationv1.ServiceReference{Namespace: serviceNamespace, Name: serviceName, Port: ptr.To[int32](servicePort)},
		Group:                apiGroup,
		Version:              version,
		CABundle:             r.caBundle,
		GroupPriorityMinimum: 100,
		VersionPriority:      versionPriority,
	}
	apiservices := r.apiregistration.ApiregistrationV1().APIServices()
	existing, err := apiservices.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = apiservices.Create(ctx, &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"k8s-app": serviceName}},
			Spec:       want,
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	existing.Spec = want
	_, err = apiservices.Update(ctx, existing, metav1.UpdateOptions{})
	return err
}
