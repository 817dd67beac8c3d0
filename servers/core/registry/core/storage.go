// Package core is the legacy core API group (/api/v1) of the Core server: namespaces,
// configmaps, secrets, serviceaccounts, events, services, endpoints, nodes, pods and their
// subresources, following kubernetes pkg/registry/core.
package core

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
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
	ServiceIPs   *allocator.IPRange
	ServicePorts *allocator.PortRange
	// ServiceAccountTokens signs the tokens of serviceaccounts/token.
	ServiceAccountTokens ServiceAccountTokens
	// Kubelets is how pods/log, exec, attach, portforward and nodes/proxy reach the kubelets.
	Kubelets KubeletClient
	// Authorizer checks that exec, attach and portforward, reached by a GET (WebSocket), may create.
	Authorizer authorizer.Authorizer
	// Components are what componentstatuses reports on, by name (etcd-0, scheduler...).
	Components map[string]Probe
}

var _ registry.StorageProvider = StorageProvider{}

// GroupName implements registry.StorageProvider.
func (StorageProvider) GroupName() string { return corev1.GroupName }

// NewRESTStorage implements registry.StorageProvider.
func (p StorageProvider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, built, err := registry.NewGroup(corev1.SchemeGroupVersion, scheme, codecs, optsGetter, definitions...)
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

// NewAllocators builds the ClusterIP and NodePort ranges on the storage that optsGetter gives for
// them (keys /registry/ranges/serviceips and /registry/ranges/servicenodeports, as in kube).
func NewAllocators(optsGetter generic.RESTOptionsGetter, serviceCIDR string, nodePortBase, nodePortSize int) (*allocator.IPRange, *allocator.PortRange, func(), error) {
	ipStorage, destroyIPs, err := rawStorage(optsGetter, "serviceipallocations", "/ranges/serviceips")
	if err != nil {
		return nil, nil, nil, err
	}
	portStorage, destroyPorts, err := rawStorage(optsGetter, "servicenodeportallocations", "/ranges/servicenodeports")
	if err != nil {
		destroyIPs()
		return nil, nil, nil, err
	}
	prefix, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		err = fmt.Errorf("service cluster IP range %q: %w", serviceCIDR, err)
		destroyIPs()
		destroyPorts()
		return nil, nil, nil, err
	}
	ips, err := allocator.NewIPRange(ipStorage, "/ranges/serviceips", prefix)
	if err != nil {
		destroyIPs()
		destroyPorts()
		return nil, nil, nil, err
	}
	ports := allocator.NewPortRange(portStorage, "/ranges/servicenodeports", nodePortBase, nodePortSize)
	return ips, ports, func() { destroyIPs(); destroyPorts() }, nil
}

func rawStorage(optsGetter generic.RESTOptionsGetter, resource, key string) (storage.Interface, func(), error) {
	opts, err := etcdstorage.Uncached(optsGetter).GetRESTOptions(schema.GroupResource{Resource: resource}, &corev1.RangeAllocation{})
	if err != nil {
		return nil, nil, err
	}
	st, destroy, err := opts.Decorator(opts.StorageConfig, key, nil, func() runtime.Object { return &corev1.RangeAllocation{} }, nil, nil, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	return st, func() { destroy() }, nil
}
