package api

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	v1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// nodeMetrics is the REST storage of NodeMetrics (metrics-server pkg/api/node.go).
type nodeMetrics struct {
	groupResource    schema.GroupResource
	metrics          MetricsGetter
	nodeLister       v1listers.NodeLister
	nodeSelector     []labels.Requirement
	observeFreshness func(time.Duration)
}

var (
	_ rest.KindProvider         = &nodeMetrics{}
	_ rest.Storage              = &nodeMetrics{}
	_ rest.Getter               = &nodeMetrics{}
	_ rest.Lister               = &nodeMetrics{}
	_ rest.Scoper               = &nodeMetrics{}
	_ rest.TableConvertor       = &nodeMetrics{}
	_ rest.SingularNameProvider = &nodeMetrics{}
)

func newNodeMetrics(gr schema.GroupResource, m MetricsGetter, nodeLister v1listers.NodeLister, nodeSelector []labels.Requirement, observe func(time.Duration)) *nodeMetrics {
	return &nodeMetrics{groupResource: gr, metrics: m, nodeLister: nodeLister, nodeSelector: nodeSelector, observeFreshness: observe}
}

// New implements rest.Storage.
func (m *nodeMetrics) New() runtime.Object { return &metrics.NodeMetrics{} }

// Destroy implements rest.Storage.
func (m *nodeMetrics) Destroy() {}

// Kind implements rest.KindProvider.
func (m *nodeMetrics) Kind() string { return "NodeMetrics" }

// NewList implements rest.Lister.
func (m *nodeMetrics) NewList() runtime.Object { return &metrics.NodeMetricsList{} }

// NamespaceScoped implements rest.Scoper.
func (m *nodeMetrics) NamespaceScoped() bool { return false }

// GetSingularName implements rest.SingularNameProvider; empty means the lower-cased kind.
func (m *nodeMetrics) GetSingularName() string { return "" }

// List implements rest.Lister: the metrics of the nodes that match the selectors.
func (m *nodeMetrics) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	nodes, err := m.nodes(options)
	if err != nil {
		return &metrics.NodeMetricsList{}, err
	}
	ms, err := m.getMetrics(nodes...)
	if err != nil {
		klog.ErrorS(err, "Failed reading nodes metrics")
		return &metrics.NodeMetricsList{}, fmt.Errorf("failed reading nodes metrics: %w", err)
	}
	return &metrics.NodeMetricsList{Items: ms}, nil
}

func (m *nodeMetrics) nodes(options *metainternalversion.ListOptions) ([]*corev1.Node, error) {
	labelSelector := labels.Everything()
	if options != nil && options.LabelSelector != nil {
		labelSelector = options.LabelSelector
	}
	if m.nodeSelector != nil {
		labelSelector = labelSelector.Add(m.nodeSelector...)
	}
	nodes, err := m.nodeLister.List(labelSelector)
	if err != nil {
		klog.ErrorS(err, "Failed listing nodes", "labelSelector", labelSelector)
		return nil, fmt.Errorf("failed listing nodes: %w", err)
	}
	if options != nil && options.FieldSelector != nil {
		nodes = filterNodes(nodes, options.FieldSelector)
	}
	return nodes, nil
}

// Get implements rest.Getter: NotFound for a node that does not exist or has no metrics yet.
func (m *nodeMetrics) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	node, err := m.nodeLister.Get(name)
	if err != nil {
		if errors.IsNotFound(err) {
			return nil, err
		}
		klog.ErrorS(err, "Failed getting node", "node", klog.KRef("", name))
		return nil, fmt.Errorf("failed getting node: %w", err)
	}
	if node == nil {
		return nil, errors.NewNotFound(m.groupResource, name)
	}
	ms, err := m.getMetrics(node)
	if err != nil {
		klog.ErrorS(err, "Failed reading node metrics", "node", klog.KRef("", name))
		return nil, fmt.Errorf("failed reading node metrics: %w", err)
	}
	if len(ms) == 0 {
		return nil, errors.NewNotFound(m.groupResource, name)
	}
	return &ms[0], nil
}

// ConvertToTable implements rest.TableConvertor (kubectl get nodes.metrics.k8s.io).
func (m *nodeMetrics) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	var table metav1.Table
	switch t := object.(type) {
	case *metrics.NodeMetrics:
		table.ResourceVersion = t.ResourceVersion
		addNodeMetricsToTable(&table, *t)
	case *metrics.NodeMetricsList:
		table.ResourceVersion = t.ResourceVersion
		table.Continue = t.Continue
		addNodeMetricsToTable(&table, t.Items...)
	}
	return &table, nil
}

func (m *nodeMetrics) getMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	ms, err := m.metrics.GetNodeMetrics(nodes...)
	if err != nil {
		return nil, err
	}
	if m.observeFreshness != nil {
		for _, x := range ms {
			m.observeFreshness(time.Since(x.Timestamp.Time))
		}
	}
	// The order the Kubernetes API lists nodes in.
	slices.SortFunc(ms, func(a, b metrics.NodeMetrics) int { return strings.Compare(a.Name, b.Name) })
	return ms, nil
}
