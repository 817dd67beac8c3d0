// Package core is the Core server, the middle of the chain: it serves the built-in API groups
// (/api/v1, discovery.k8s.io, coordination.k8s.io, ...) from etcd, as kube-apiserver's
// pkg/controlplane does. Requests reach it from the Aggregator, which delegates everything it
// does not own; what Core does not serve falls through to ApiExtensions.
//
// Lifecycle, as every server of the chain: NewConfig → Complete → New(delegate) → PrepareRun → Run.
package core

import (
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"

	"github.com/apichain/apichain/internal/serviceaccount"
	corereg "github.com/apichain/apichain/servers/core/registry/core"
)

// Config is the Core server's configuration.
type Config struct {
	Generic *genericapiserver.RecommendedConfig
	Extra
}

// Extra is what Core needs beyond the generic apiserver configuration.
type Extra struct {
	// ServiceClusterIPRange is the CIDR ClusterIPs come from (--service-cluster-ip-range).
	ServiceClusterIPRange string
	// EventTTL is how long Events are kept after their last write (--event-ttl); 0 keeps
	// kube-apiserver's default, an hour.
	EventTTL time.Duration
	// NodePortBase and NodePortSize give the NodePort range (kube-apiserver: 30000-32767).
	NodePortBase, NodePortSize int
	// KubernetesServicePort is the port of the default/kubernetes service's endpoints: the
	// chain's secure port.
	KubernetesServicePort int
	// Authentication is published in kube-system/extension-apiserver-authentication, where
	// aggregated API servers learn whom to trust.
	Authentication ClusterAuthenticationInfo
	// ServiceAccountTokens signs the tokens of serviceaccounts/token; nil leaves it out.
	ServiceAccountTokens serviceaccount.TokenGenerator
	// Kubelets is the client certificate pods/log and nodes/proxy present to kubelets, and the
	// CA they verify them with (kube-apiserver's --kubelet-client-certificate and
	// --kubelet-certificate-authority).
	Kubelets corereg.KubeletClient
	// Components report the health of what kube-apiserver lists in componentstatuses besides
	// etcd, which Core probes itself: the scheduler and the controller-manager, which the chain
	// runs in its own process (its controllers).
	Components map[string]corereg.Probe

	scheme *runtime.Scheme
	codecs serializer.CodecFactory
	// etcd is the storage Core's objects are in, which componentstatuses probes.
	etcd storagebackend.Config
}

// ClusterAuthenticationInfo is what the chain trusts, as kube-apiserver publishes it
// (pkg/controlplane/controller/clusterauthenticationtrust).
type ClusterAuthenticationInfo struct {
	ClientCA        []byte
	RequestHeaderCA []byte
	// RequestHeaderAllowedNames are the CNs allowed to assert users through headers.
	RequestHeaderAllowedNames                                 []string
	RequestHeaderUsernameHeaders, RequestHeaderGroupHeaders   []string
	RequestHeaderExtraHeaderPrefixes, RequestHeaderUIDHeaders []string
}

// servedGroupVersions are the group versions Core serves, for storage and resource config.
var servedGroupVersions = []schema.GroupVersion{
	corev1.SchemeGroupVersion, authenticationv1.SchemeGroupVersion, authorizationv1.SchemeGroupVersion,
	autoscalingv2.SchemeGroupVersion, batchv1.SchemeGroupVersion, certificatesv1.SchemeGroupVersion,
	coordinationv1.SchemeGroupVersion, discoveryv1.SchemeGroupVersion, networkingv1.SchemeGroupVersion,
	policyv1.SchemeGroupVersion, rbacv1.SchemeGroupVersion, storagev1.SchemeGroupVersion,
	appsv1.SchemeGroupVersion, admissionregistrationv1.SchemeGroupVersion, eventsv1.SchemeGroupVersion,
	schedulingv1.SchemeGroupVersion, resourcev1.SchemeGroupVersion, storagemigrationv1.SchemeGroupVersion,
	schedulingv1.SchemeGroupVersion, nodev1.SchemeGroupVersion, flowcontrolv1.SchemeGroupVersion,
}

// specialResourcePrefixes keep kube-apiserver's historical etcd keys
// (pkg/kubeapiserver/default_storage_factory_builder.go), so /registry looks the same.
var specialResourcePrefixes = map[schema.GroupResource]string{
	{Resource: "replicationcontrollers"}:                "controllers",
	{Resource: "endpoints"}:                             "services/endpoints",
	{Resource: "nodes"}:                                 "minions",
	{Resource: "services"}:                              "services/specs",
	{Group: "networking.k8s.io", Resource: "ingresses"}: "ingress",
}

// NewConfig derives Core's configuration from the chain's shared generic configuration, as
// kube-apiserver's CreateKubeAPIServerConfig does: its own scheme and codecs, and storage in
// etcd through a storage factory that encodes objects as protobuf.
func NewConfig(shared genericapiserver.Config, sharedInformers informers.SharedInformerFactory, etcd genericoptions.EtcdOptions, extra Extra) (*Config, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, fmt.Errorf("building core scheme: %w", err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	generic := shared
	// Core installs its OpenAPI handlers itself, v2 built on first request (Server.InstallOpenAPI).
	generic.SkipOpenAPIInstallation = true
	resources := serverstorage.NewResourceConfig()
	resources.EnableVersions(servedGroupVersions...)
	generic.MergedResourceConfig = resources

	factory := serverstorage.NewDefaultStorageFactory(etcd.StorageConfig, runtime.ContentTypeProtobuf, codecs,
		serverstorage.NewDefaultResourceEncodingConfig(scheme), resources, specialResourcePrefixes)
	// events.k8s.io Events are core Events: stored once, under /registry/events, as core/v1
	// (pkg/kubeapiserver/default_storage_factory_builder.go).
	factory.AddCohabitatingResources(corev1.Resource("events"), eventsv1.Resource("events"))
	// The stores count their objects for API Priority and Fairness, which gives a LIST seats by
	// how many objects it may read; the factory's copy of the storage configuration has no
	// tracker of its own (kube-apiserver's BuildGenericConfig sets it the same way).
	factory.StorageConfig.StorageObjectCountTracker = generic.StorageObjectCountTracker
	if err := etcd.ApplyWithStorageFactoryTo(factory, &generic); err != nil {
		return nil, fmt.Errorf("core storage: %w", err)
	}
	extra.scheme, extra.codecs, extra.etcd = scheme, codecs, etcd.StorageConfig
	return &Config{
		Generic: &genericapiserver.RecommendedConfig{Config: generic, SharedInformerFactory: sharedInformers},
		Extra:   extra,
	}, nil
}

type completedConfig struct {
	Generic genericapiserver.CompletedConfig
	Extra   *Extra
}

// CompletedConfig is a Config on which Complete has run.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in what the Config leaves out.
func (c *Config) Complete() CompletedConfig {
	if c.NodePortBase == 0 {
		c.NodePortBase, c.NodePortSize = 30000, 2768
	}
	return CompletedConfig{&completedConfig{Generic: c.Generic.Complete(), Extra: &c.Extra}}
}
