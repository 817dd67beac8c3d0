// Package registry holds the Core server's API groups, one package per group (registry/core for
// the legacy /api/v1 group, registry/discovery, registry/coordination, ...). Each group package
// declares its resources as resource.Definitions and offers a StorageProvider that turns them
// into the APIGroupInfo the generic apiserver installs, as kube-apiserver's
// pkg/registry/<group>/rest packages do.
package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/servers/core/resource"
)

// StorageProvider builds the storage of one API group.
type StorageProvider interface {
	// GroupName is the API group ("" for the legacy core group).
	GroupName() string
	// NewRESTStorage returns the group's APIGroupInfo, every version and resource filled in.
	NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error)
}

// NewAPIGroupInfo is the empty APIGroupInfo of a group served from scheme.
func NewAPIGroupInfo(group string, scheme *runtime.Scheme, codecs serializer.CodecFactory) genericapiserver.APIGroupInfo {
	return genericapiserver.NewDefaultAPIGroupInfo(group, scheme, runtime.NewParameterCodec(scheme), codecs)
}

// NewGroup builds the APIGroupInfo of a group version from its Definitions, and returns each
// Definition's storage for the group's own additions (subresources, hooks).
func NewGroup(gv schema.GroupVersion, scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter, defs ...*resource.Definition) (genericapiserver.APIGroupInfo, map[*resource.Definition]*resource.Storage, error) {
	info := NewAPIGroupInfo(gv.Group, scheme, codecs)
	m := map[string]rest.Storage{}
	built := map[*resource.Definition]*resource.Storage{}
	for _, def := range defs {
		s, err := resource.NewStorage(def, gv, scheme, optsGetter)
		if err != nil {
			return info, nil, err
		}
		built[def] = s
		for k, v := range s.Map() {
			m[k] = v
		}
	}
	info.VersionedResourcesStorageMap[gv.Version] = m
	return info, built, nil
}

// Group is the StorageProvider of a group whose resources are all plain Definitions, which is
// most groups.
type Group struct {
	GroupVersion schema.GroupVersion
	// AddTypes is the k8s.io/api package's AddToScheme.
	AddTypes    func(*runtime.Scheme) error
	Definitions []*resource.Definition
}

var _ StorageProvider = Group{}

// GroupName implements StorageProvider.
func (g Group) GroupName() string { return g.GroupVersion.Group }

// AddToScheme registers the group's types and field selectors.
func (g Group) AddToScheme(scheme *runtime.Scheme) error {
	return resource.AddToScheme(scheme, g.GroupVersion, g.AddTypes, g.Definitions...)
}

// NewRESTStorage implements StorageProvider.
func (g Group) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, _, err := NewGroup(g.GroupVersion, scheme, codecs, optsGetter, g.Definitions...)
	return info, err
}
