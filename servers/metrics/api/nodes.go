package api

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	v1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/metrics/pkg/apis/metrics"
)

// nodeMetrics serves NodeMetrics: the usage of the nodes the chain has, for those the storage
// has a usage of.
type nodeMetrics struct {
	readOnly
	usage MetricsGetter
	nodes v1listers.NodeLister
	// only are the --node-selector requirements: lists leave other nodes out.
	only []labels.Requirement
}

var (
	_ rest.Getter = &nodeMetrics{}
	_ rest.Lister = &nodeMetrics{}
)

func newNodeMetrics(usage MetricsGetter, nodes v1listers.NodeLister, only []labels.Requirement, observe func(time.Duration)) *nodeMetrics {
	return &nodeMetrics{
		readOnly: readOnly{
			kind:    "NodeMetrics",
			newObj:  func() runtime.Object { return &metrics.NodeMetrics{} },
			newList: func() runtime.Object { return &metrics.NodeMetricsList{} },
			observe: observe,
		},
		usage: usage, nodes: nodes, only: only,
	}
}

// List returns the usage of the nodes that match the label and field selectors, by name.
func (m *nodeMetrics) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	nodes, err := m.nodes.List(labelSelector(opts).Add(m.only...))
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if opts != nil && opts.FieldSelector != nil {
		nodes = nodesMatching(nodes, opts.FieldSelector)
	}
	items, err := m.usageOf(ctx, nodes...)
	if err != nil {
		return nil, err
	}
	return &metrics.NodeMetricsList{Items: items}, nil
}

// Get returns the usage of one node; NotFound when there is no such node, or no usage yet.
func (m *nodeMetrics) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	node, err := m.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("getting node %s: %w", name, err)
	}
	items, err := m.usageOf(ctx, node)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, apierrors.NewNotFound(metrics.Resource("nodemetrics"), name)
	}
	return &items[0], nil
}

func (m *nodeMetrics) usageOf(ctx context.Context, nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	span := startRead(ctx, len(nodes))
	items, err := m.usage.GetNodeMetrics(nodes...)
	span.end(len(items), err)
	if err != nil {
		return nil, fmt.Errorf("reading node usage: %w", err)
	}
	for _, item := range items {
		m.observed(item.Timestamp)
	}
	slices.SortFunc(items, func(a, b metrics.NodeMetrics) int { return strings.Compare(a.Name, b.Name) })
	return items, nil
}

// nodesMatching keeps the nodes whose metadata.name the field selector selects.
func nodesMatching(nodes []*corev1.Node, sel fields.Selector) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range nodes {
		if sel.Matches(fields.Set{"metadata.name": n.Name}) {
			out = append(out, n)
		}
	}
	return out
}
