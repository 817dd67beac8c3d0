package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// SystemNamespaces exist in every cluster from the start.
var SystemNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}

// bootstrap is the work kube-apiserver does once it serves: the system namespaces, the
// default/kubernetes service, the default ServiceCIDR and the authentication ConfigMap. Each is a post-start hook, so
// /readyz stays false until it is done and /readyz?verbose names it.
type bootstrap struct {
	serviceIP   netip.Addr
	serviceCIDR netip.Prefix
	port        int
	auth        ClusterAuthenticationInfo
}

// retry runs f until it succeeds or the server stops: the hooks start while etcd and the
// loopback client may still be warming up.
// A hook that returns an error stops the process, so a server stopped mid-way ends quietly.
func retry(ctx context.Context, what string, f func(context.Context) error) error {
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := f(ctx); err != nil {
			klog.V(2).InfoS("bootstrap step not done yet", "step", what, "err", err)
			return false, nil
		}
		return true, nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func client(hc genericapiserver.PostStartHookContext) (kubernetes.Interface, error) {
	return kubernetes.NewForConfig(hc.LoopbackClientConfig)
}

// systemNamespaces follows kubernetes pkg/controlplane/controller/systemnamespaces.
func (b *bootstrap) systemNamespaces(hc genericapiserver.PostStartHookContext) error {
	cs, err := client(hc)
	if err != nil {
		return err
	}
	return retry(hc, "system namespaces", func(ctx context.Context) error {
		for _, ns := range SystemNamespaces {
			if err := ensureNamespace(ctx, cs, ns); err != nil {
				return err
			}
		}
		return nil
	})
}

func ensureNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// kubernetesService creates default/kubernetes with the first address of the service range, as
// kube-apiserver's kubernetesservice controller does. Like kube-apiserver bound to a loopback
// address (as envtest runs it), it publishes no endpoints: loopback addresses are not valid
// endpoint addresses.
func (b *bootstrap) kubernetesService(hc genericapiserver.PostStartHookContext) error {
	cs, err := client(hc)
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{
			ClusterIP: b.serviceIP.String(),
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
				TargetPort: intstr.FromInt32(int32(b.port))}},
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	return retry(hc, "kubernetes service", func(ctx context.Context) error {
		if err := ensureNamespace(ctx, cs, metav1.NamespaceDefault); err != nil {
			return err
		}
		// Look first: creating it again would fail on its address, which it already holds.
		if _, err := cs.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, svc.Name, metav1.GetOptions{}); err == nil {
			return nil
		}
		_, err := cs.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, svc, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// clusterAuthenticationInfo publishes kube-system/extension-apiserver-authentication, which
// aggregated API servers read to trust the chain's client CA and the aggregator's front-proxy
// certificate (kubernetes pkg/controlplane/controller/clusterauthenticationtrust).
func (b *bootstrap) clusterAuthenticationInfo(hc genericapiserver.PostStartHookContext) error {
	cs, err := client(hc)
	if err != nil {
		return err
	}
	data, err := b.auth.configMapData()
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "extension-apiserver-authentication", Namespace: metav1.NamespaceSystem},
		Data:       data,
	}
	return retry(hc, "extension-apiserver-authentication", func(ctx context.Context) error {
		if err := ensureNamespace(ctx, cs, metav1.NamespaceSystem); err != nil {
			return err
		}
		cms := cs.CoreV1().ConfigMaps(metav1.NamespaceSystem)
		existing, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		existing.Data = data
		_, err = cms.Update(ctx, existing, metav1.UpdateOptions{})
		return err
	})
}

// configMapData lays the information out as kube-apiserver does: PEM bundles and JSON lists.
func (a ClusterAuthenticationInfo) configMapData() (map[string]string, error) {
	data := map[string]string{}
	if len(a.ClientCA) > 0 {
		data["client-ca-file"] = string(a.ClientCA)
	}
	if len(a.RequestHeaderCA) == 0 {
		return data, nil
	}
	data["requestheader-client-ca-file"] = string(a.RequestHeaderCA)
	for key, list := range map[string][]string{
		"requestheader-allowed-names":        a.RequestHeaderAllowedNames,
		"requestheader-username-headers":     a.RequestHeaderUsernameHeaders,
		"requestheader-group-headers":        a.RequestHeaderGroupHeaders,
		"requestheader-extra-headers-prefix": a.RequestHeaderExtraHeaderPrefixes,
		"requestheader-uid-headers":          a.RequestHeaderUIDHeaders,
	} {
		if list == nil {
			list = []string{}
		}
		if key == "requestheader-uid-headers" && len(list) == 0 {
			continue // kube-apiserver leaves it out when empty
		}
		b, err := json.Marshal(list)
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %w", key, err)
		}
		data[key] = string(b)
	}
	return data, nil
}
