// Package extensions is the ApiExtensions server, the innermost server of the chain: it serves
// apiextensions.k8s.io (CustomResourceDefinitions) and every custom resource, using
// k8s.io/apiextensions-apiserver as kube-apiserver does (pkg/controlplane/apiserver/apiextensions.go).
// Requests reach it when neither the Aggregator nor Core serves them; what it does not serve falls
// through to the chain's NotFound handler.
//
// The upstream library keeps its scheme in a package variable (apiextensionsapiserver.Scheme);
// the chain uses it as is.
package extensions

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apiextensionsoptions "k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/informers"
)

// Config is the ApiExtensions server's configuration.
type Config struct {
	*apiextensionsapiserver.Config
}

// NewConfig derives the configuration from the chain's shared generic configuration: the
// library's scheme, CRDs stored as kube-apiserver stores them, custom resources stored as JSON.
func NewConfig(shared server.Config, sharedInformers informers.SharedInformerFactory, etcd genericoptions.EtcdOptions) (*Config, error) {
	generic := shared
	generic.PostStartHooks = map[string]server.PostStartHookConfigEntry{}
	generic.RESTOptionsGetter = nil
	generic.MergedResourceConfig = apiextensionsapiserver.DefaultAPIResourceConfigSource()

	etcd.StorageConfig.Codec = apiextensionsapiserver.Codecs.LegacyCodec(apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
	// kube-apiserver stores CRDs as v1beta1 (more compact) until kubernetes/kubernetes#82292.
	etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiextensionsv1beta1.SchemeGroupVersion, schema.GroupKind{Group: apiextensionsv1beta1.GroupName})
	etcd.SkipHealthEndpoints = true // Core registers the etcd checks once
	if err := etcd.ApplyTo(&generic); err != nil {
		return nil, err
	}
	crds := apiextensionsoptions.NewCRDRESTOptionsGetter(etcd, generic.ResourceTransformers, generic.StorageObjectCountTracker)
	return &Config{&apiextensionsapiserver.Config{
		GenericConfig: &server.RecommendedConfig{Config: generic, SharedInformerFactory: sharedInformers},
		ExtraConfig: apiextensionsapiserver.ExtraConfig{
			CRDRESTOptionsGetter: crds,
			// More than one makes every CRD wait 5 s before it is Established (an HA safety margin).
			MasterCount: 1,
		},
	}}, nil
}

// CompletedConfig is a Config on which Complete has run.
type CompletedConfig struct {
	apiextensionsapiserver.CompletedConfig
}

// Complete fills in what the Config leaves out.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{c.Config.Complete()}
}

// Server is the ApiExtensions server.
type Server struct {
	*apiextensionsapiserver.CustomResourceDefinitions
}

// New builds the server in front of delegate (the chain's NotFound handler).
func (c CompletedConfig) New(delegate server.DelegationTarget) (*Server, error) {
	s, err := c.CompletedConfig.New(delegate)
	if err != nil {
		return nil, err
	}
	s.GenericAPIServer.Handler.Director = rejectProtobufBodies(s.GenericAPIServer.Handler.Director)
	return &Server{s}, nil
}

// CRDInformers are the informers the Aggregator uses to register an APIService per CRD group.
func (s *Server) CRDInformers() apiextensionsinformers.SharedInformerFactory { return s.Informers }

// PreparedServer is a Server on which PrepareRun has run.
type PreparedServer struct {
	runnable interface{ RunWithContext(context.Context) error }
}

// PrepareRun readies the server to serve alone, without the chain in front (tests).
func (s *Server) PrepareRun() PreparedServer {
	return PreparedServer{runnable: s.GenericAPIServer.PrepareRun()}
}

// Run serves until ctx is done.
func (s PreparedServer) Run(ctx context.Context) error { return s.runnable.RunWithContext(ctx) }
