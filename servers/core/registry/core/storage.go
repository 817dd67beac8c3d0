// Package core is the legacy core API group (/api/v1) of the Core server: namespaces,
// configmaps, secrets, serviceaccounts, events, services, endpoints, nodes, pods and their
// subresources, following kubernetes pkg/registry/core.
package core

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage"

	"github.com/apichain/apichain/internal/etcdstorage"
	"github.com/apichain/apichain/servers/core/allocator"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
)

// definitions are the plain-storage resources of the group, each declared once.
var definitions = []*resource.Definition{configMaps, secrets, serviceAccounts, events, endpoints, nodes, pods, services, namespaces,
	persistentVolumes, persistentVolumeClaims, limitRanges, resourceQuotas,
	podTemplates, replicationControllers}

// AddToScheme registers the core/v1 types and their field selectors.
func AddToScheme(scheme *runtime.Scheme) error {
	if err := resource.AddToScheme(scheme, corev1.SchemeGroupVersion, corev1.AddToScheme, definitions...); err != nil {
		return err
	}
	return addQueryConversions(scheme)
}

// StorageProvider builds the core group's storage.
type StorageProvider struct {
	// Allocators hand out ClusterIPs and NodePorts; built by NewAllocators.
	ServiceIPs   *allocator.ClusterIPs
	ServicePorts *allocator.PortRange
	// ServiceAccountTokens signs the tokens of serviceaccounts/token.
	ServiceAccountTokens ServiceAccountTokens
	// Kubelets is how pods/log, exec, attach, portforward and nodes/proxy reach the kubelets.
	Kubelets KubeletClient
	// Authorizer checks that exec, attach and portforward, reached by a GET (WebSocket), may create.
	Authorizer authorizer.Authorizer
	// Components are what componentstatuses reports on, by name (etcd-0, scheduler...).
	Components map[string]Probe
	// EventTTL is how long an Event is kept after its last write (--event-ttl); 0: an hour.
	EventTTL time.Duration
}

var _ registry.StorageProvider = StorageProvider{}

// GroupName implements registry.StorageProvider.
func (StorageProvider) GroupName() string { return corev1.GroupName }

// NewRESTStorage implements registry.StorageProvider.
func (p StorageProvider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	defs := slices.Clone(definitions)
	defs[slices.Index(defs, events)] = events.WithTTL(p.EventTTL)
	info, built, err := registry.NewGroup(corev1.SchemeGroupVersion, scheme, codecs, optsGetter, defs...)
	if err != nil {
		return info, err
	}
	m := info.VersionedResourcesStorageMap[corev1.SchemeGroupVersion.Version]

	nsREST, finalize := newNamespaceREST(built[namespaces])
	m["namespaces"] = nsREST
	m["namespaces/finalize"] = finalize

	binding := &BindingREST{store: built[pods].Store}
	m["pods/binding"] = binding
	m["bindings"] = &LegacyBindingREST{binding: binding}
	if m["pods/eviction"], err = newEvictionREST(built[pods], scheme, optsGetter); err != nil {
		return info, err
	}

	k, err := newKubelets(p.Kubelets, built[nodes].Store)
	if err != nil {
		return info, err
	}
	m["pods/log"] = &podLogREST{pods: built[pods].Store, kubelets: k}
	m["nodes/proxy"] = &nodeProxyREST{kubelets: k}
	m["pods/exec"] = &podStreamREST{pods: built[pods].Store, kubelets: k, authorizer: p.Authorizer}
	m["pods/attach"] = &podStreamREST{pods: built[pods].Store, kubelets: k, authorizer: p.Authorizer, attach: true}
	m["pods/portforward"] = &podPortForwardREST{pods: built[pods].Store, kubelets: k, authorizer: p.Authorizer}

	m["componentstatuses"] = &componentStatusREST{probes: p.Components}

	(&serviceAllocator{ips: p.ServiceIPs, ports: p.ServicePorts}).install(built[services].Store)
	addServiceAccountToken(m, p.ServiceAccountTokens, built)

	return info, nil
}

// NewAllocators builds the ClusterIP and NodePort allocators on the storage that optsGetter
// gives: ClusterIPs as the IPAddress objects of networking.k8s.io (/registry/ipaddresses/<ip>),
// NodePorts as a bitmap in /registry/ranges/servicenodeports, as in kube-apiserver.
func NewAllocators(optsGetter generic.RESTOptionsGetter, serviceCIDR string, nodePortBase, nodePortSize int) (*allocator.ClusterIPs, *allocator.PortRange, func(), error) {
	prefix, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("service cluster IP range %q: %w", serviceCIDR, err)
	}
	addresses := schema.GroupResource{Group: networkingv1.GroupName, Resource: "ipaddresses"}
	ipStorage, ipPrefix, destroyIPs, err := rawStorage(optsGetter, addresses, &networkingv1.IPAddress{}, &networkingv1.IPAddressList{}, "")
	if err != nil {
		return nil, nil, nil, err
	}
	ips, err := allocator.NewClusterIPs(ipStorage, ipPrefix, prefix)
	if err != nil {
		destroyIPs()
		return nil, nil, nil, err
	}
	portStorage, _, destroyPorts, err := rawStorage(optsGetter, schema.GroupResource{Resource: "servicenodeportallocations"}, &corev1.RangeAllocation{}, nil, "/ranges/servicenodeports")
	if err != nil {
		destroyIPs()
		return nil, nil, nil, err
	}
	ports := allocator.NewPortRange(portStorage, "/ranges/servicenodeports", nodePortBase, nodePortSize)
	return ips, ports, func() { destroyIPs(); destroyPorts() }, nil
}

// rawStorage is a store of resource's objects beside its registry, without a watch cache, for
// keys under prefix (a range's own key), or, when prefix is empty, under the resource's
// registry's prefix ("/ipaddresses"); it returns the prefix.
func rawStorage(optsGetter generic.RESTOptionsGetter, resource schema.GroupResource, example, list runtime.Object, prefix string) (storage.Interface, string, func(), error) {
	opts, err := etcdstorage.Uncached(optsGetter).GetRESTOptions(resource, example)
	if err != nil {
		return nil, "", nil, err
	}
	if prefix == "" {
		prefix = "/" + strings.TrimPrefix(opts.ResourcePrefix, "/")
	}
	newList := func() runtime.Object { return nil }
	if list != nil {
		newList = func() runtime.Object { return list.DeepCopyObject() }
	}
	st, destroy, err := opts.Decorator(opts.StorageConfig, prefix, nil, func() runtime.Object { return example.DeepCopyObject() }, newList, nil, nil, nil)
	if err != nil {
		return nil, "", nil, err
	}
	return st, prefix, func() { destroy() }, nil
}
