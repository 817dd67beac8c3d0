// Package api is the metrics.k8s.io API of the metrics server: NodeMetrics ("nodes") and
// PodMetrics ("pods"), get and list, in v1beta1 and v1 from the same storage, served as JSON,
// protobuf and Table. It reads usage from the metrics server's storage and which nodes and pods
// exist from informers of the chain, and answers as metrics-server's pkg/api does.
package api

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	v1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/metrics/pkg/apis/metrics"
	"k8s.io/metrics/pkg/apis/metrics/install"
	metricsv1 "k8s.io/metrics/pkg/apis/metrics/v1"
	"k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// NewScheme returns the metrics server's scheme: metrics.k8s.io (internal, v1beta1, v1, v1
// preferred) and the unversioned meta types. Each call builds a new one.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return scheme
}

// NewCodecs returns the codecs for scheme: JSON, YAML, protobuf (what kubectl top sends) and CBOR.
func NewCodecs(scheme *runtime.Scheme) serializer.CodecFactory {
	return serializer.NewCodecFactory(scheme)
}

// MetricsGetter is where usage comes from: the metrics server's storage.
type MetricsGetter interface {
	GetNodeMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error)
	GetPodMetrics(pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error)
}

// Config is what the API reads.
type Config struct {
	Metrics MetricsGetter
	// Nodes lists the cluster's Nodes.
	Nodes v1listers.NodeLister
	// Pods lists the metadata (*metav1.PartialObjectMetadata) of the running Pods.
	Pods cache.GenericLister
	// NodeSelector limits NodeMetrics to the nodes the scraper scrapes (--node-selector).
	NodeSelector []labels.Requirement
	// ObserveFreshness, if set, is told the age of every metric served.
	ObserveFreshness func(age time.Duration)
}

// APIGroupInfo returns metrics.k8s.io with both versions backed by the same storage
// (metrics-server pkg/api/install.go serves v1beta1 only; v1 is GA since Kubernetes 1.37).
func (c Config) APIGroupInfo(scheme *runtime.Scheme, codecs serializer.CodecFactory) genericapiserver.APIGroupInfo {
	info := genericapiserver.NewDefaultAPIGroupInfo(metrics.GroupName, scheme, metav1.ParameterCodec, codecs)
	resources := map[string]rest.Storage{
		"nodes": newNodeMetrics(c.Metrics, c.Nodes, c.NodeSelector, c.ObserveFreshness),
		"pods":  newPodMetrics(c.Metrics, c.Pods, c.ObserveFreshness),
	}
	info.VersionedResourcesStorageMap[v1beta1.SchemeGroupVersion.Version] = resources
	info.VersionedResourcesStorageMap[metricsv1.SchemeGroupVersion.Version] = resources
	return info
}
