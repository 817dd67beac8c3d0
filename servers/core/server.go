package core

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/registry/admissionregistration"
	"github.com/apichain/apichain/servers/core/registry/apps"
	"github.com/apichain/apichain/servers/core/registry/authentication"
	"github.com/apichain/apichain/servers/core/registry/authorization"
	"github.com/apichain/apichain/servers/core/registry/autoscaling"
	"github.com/apichain/apichain/servers/core/registry/batch"
	"github.com/apichain/apichain/servers/core/registry/certificates"
	"github.com/apichain/apichain/servers/core/registry/coordination"
	corereg "github.com/apichain/apichain/servers/core/registry/core"
	"github.com/apichain/apichain/servers/core/registry/discovery"
	"github.com/apichain/apichain/servers/core/registry/events"
	"github.com/apichain/apichain/servers/core/registry/flowcontrol"
	"github.com/apichain/apichain/servers/core/registry/networking"
	"github.com/apichain/apichain/servers/core/registry/node"
	"github.com/apichain/apichain/servers/core/registry/policy"
	"github.com/apichain/apichain/servers/core/registry/rbac"
	"github.com/apichain/apichain/servers/core/registry/resource"
	"github.com/apichain/apichain/servers/core/registry/scheduling"
	"github.com/apichain/apichain/servers/core/registry/storage"
	"github.com/apichain/apichain/servers/core/registry/storagemigration"
)

// Server is the Core server.
type Server struct {
	GenericAPIServer *genericapiserver.GenericAPIServer

	openAPIV2   *common.Config
	openAPIV3   *common.OpenAPIV3Config
	openAPIOnce sync.Once
}

// New builds the Core server in front of delegate (ApiExtensions): every built-in group installed,
// its start-up work registered as post-start hooks. Nothing runs until the head server runs.
func (c CompletedConfig) New(delegate genericapiserver.DelegationTarget) (*Server, error) {
	s, err := c.Generic.New("core", delegate)
	if err != nil {
		return nil, err
	}
	optsGetter := c.Generic.RESTOptionsGetter

	ips, ports, destroyAllocators, err := corereg.NewAllocators(optsGetter, c.Extra.ServiceClusterIPRange, c.Extra.NodePortBase, c.Extra.NodePortSize)
	if err != nil {
		return nil, fmt.Errorf("service allocators: %w", err)
	}
	s.RegisterDestroyFunc(destroyAllocators)

	// componentstatuses: the etcd Core stores in, which it probes, and what the chain reports on.
	components := map[string]corereg.Probe{"etcd-0": corereg.EtcdProbe(c.Extra.etcd)}
	maps.Copy(components, c.Extra.Components)
	dra, err := resource.Group().WithCluster(c.Generic.Authorization.Authorizer, c.Generic.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("resource.k8s.io: %w", err)
	}

	// One provider per group, in kube-apiserver's order.
	providers := []registry.StorageProvider{
		corereg.StorageProvider{ServiceIPs: ips, ServicePorts: ports, ServiceAccountTokens: corereg.ServiceAccountTokens{Generator: c.Extra.ServiceAccountTokens, APIAudiences: c.Generic.Authentication.APIAudiences},
			Kubelets: c.Extra.Kubelets, Authorizer: c.Generic.Authorization.Authorizer, Components: components,
			EventTTL: c.Extra.EventTTL},
		authentication.StorageProvider{Authenticator: c.Generic.Authentication.Authenticator, APIAudiences: c.Generic.Authentication.APIAudiences},
		authorization.StorageProvider{Authorizer: c.Generic.Authorization.Authorizer, RuleResolver: c.Generic.RuleResolver},
		autoscaling.Group(),
		batch.Group(),
		certificates.Group().WithAuthorizer(c.Generic.Authorization.Authorizer),
		coordination.Group(),
		discovery.Group(),
		networking.Group(),
		node.Group(),
		policy.Group(),
		rbac.StorageProvider{Authorizer: c.Generic.Authorization.Authorizer},
		storage.Group(),
		flowcontrol.Group(),
		apps.Group(),
		admissionregistration.Group().WithAuthorizer(c.Generic.Authorization.Authorizer, c.Generic.LoopbackClientConfig),
		events.Provider{TTL: c.Extra.EventTTL},
		scheduling.Group(),
		dra,
		storagemigration.Group(),
	}
	// The named groups are installed in one call: each call builds the OpenAPI models of the
	// types it installs (for server-side apply's type converter), so one call per group
	// would build the shared ones (ObjectMeta, PodSpec, ...) once a group, about twenty times
	// (start-up CPU; docs/performance.md). kube-apiserver installs them together too.
	var groups []*genericapiserver.APIGroupInfo
	for _, p := range providers {
		info, err := p.NewRESTStorage(c.Extra.scheme, c.Extra.codecs, optsGetter)
		if err != nil {
			return nil, fmt.Errorf("storage for group %q: %w", p.GroupName(), err)
		}
		if served(&info) == 0 {
			continue // a group with nothing to serve yet
		}
		if p.GroupName() != "" {
			groups = append(groups, &info)
			continue
		}
		if err := s.InstallLegacyAPIGroup(genericapiserver.DefaultLegacyAPIPrefix, &info); err != nil {
			return nil, fmt.Errorf("installing the legacy group: %w", err)
		}
	}
	if err := s.InstallAPIGroups(groups...); err != nil {
		return nil, fmt.Errorf("installing groups: %w", err)
	}

	b := &bootstrap{serviceIP: ips.Addr(0), serviceCIDR: ips.CIDR(), port: c.Extra.KubernetesServicePort, auth: c.Extra.Authentication}
	s.AddPostStartHookOrDie("start-core-system-namespaces", b.systemNamespaces)
	s.AddPostStartHookOrDie("start-core-kubernetes-service", b.kubernetesService)
	s.AddPostStartHookOrDie("start-core-cluster-authentication-info", b.clusterAuthenticationInfo)
	s.AddPostStartHookOrDie("start-core-default-service-cidr", b.defaultServiceCIDR)
	s.AddPostStartHookOrDie("start-core-service-ip-repair", b.serviceIPs)
	s.AddPostStartHookOrDie(rbac.PostStartHookName, rbac.EnsurePolicy)
	s.AddPostStartHookOrDie(scheduling.PostStartHookName, scheduling.BootstrapSystemPriorityClasses)
	s.AddPostStartHookOrDie(flowcontrol.PostStartHookName, flowcontrol.KeepBootstrapConfiguration)
	return &Server{GenericAPIServer: s, openAPIV2: c.Generic.OpenAPIConfig, openAPIV3: c.Generic.OpenAPIV3Config}, nil
}

// PreparedServer is a Server on which PrepareRun has run.
type PreparedServer struct {
	runnable interface{ RunWithContext(context.Context) error }
}

// PrepareRun sets up what serving needs (OpenAPI, health checks); Core alone, without the
// chain in front, is used by tests and benchmarks.
func (s *Server) PrepareRun() PreparedServer {
	s.InstallOpenAPI()
	return PreparedServer{runnable: s.GenericAPIServer.PrepareRun()}
}

// Run serves until ctx is done.
func (s PreparedServer) Run(ctx context.Context) error {
	return s.runnable.RunWithContext(ctx)
}

// served drops the versions that have no resources from info (autoscaling/v1 is in the scheme
// for its Scale alone), which the generic server would skip with a warning, and returns how many
// are left.
func served(info *genericapiserver.APIGroupInfo) int {
	info.PrioritizedVersions = slices.DeleteFunc(info.PrioritizedVersions, func(gv schema.GroupVersion) bool {
		return len(info.VersionedResourcesStorageMap[gv.Version]) == 0
	})
	return len(info.PrioritizedVersions)
}
