package api

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/metrics/pkg/apis/metrics"
)

// podMetrics serves PodMetrics: the usage of the running pods of the chain (the lister holds
// their metadata only), for those whose every container the storage has a usage of.
type podMetrics struct {
	readOnly
	usage MetricsGetter
	pods  cache.GenericLister
}

var (
	_ rest.Getter = &podMetrics{}
	_ rest.Lister = &podMetrics{}
)

func newPodMetrics(usage MetricsGetter, pods cache.GenericLister, observe func(time.Duration)) *podMetrics {
	return &podMetrics{
		readOnly: readOnly{
			kind:       "PodMetrics",
			namespaced: true,
			newObj:     func() runtime.Object { return &metrics.PodMetrics{} },
			newList:    func() runtime.Object { return &metrics.PodMetricsList{} },
			observe:    observe,
		},
		usage: usage, pods: pods,
	}
}

// List returns the usage of the pods of the request's namespace (of all, for none) that match
// the label and field selectors, by namespace and name.
func (m *podMetrics) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	objs, err := m.pods.ByNamespace(genericapirequest.NamespaceValue(ctx)).List(labelSelector(opts))
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	var sel fields.Selector
	if opts != nil {
		sel = opts.FieldSelector
	}
	items, err := m.usageOf(ctx, podsMatching(objs, sel)...)
	if err != nil {
		return nil, err
	}
	return &metrics.PodMetricsList{Items: items}, nil
}

// Get returns the usage of one pod; NotFound when the pod is not running, or has no usage yet.
func (m *podMetrics) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	namespace := genericapirequest.NamespaceValue(ctx)
	obj, err := m.pods.ByNamespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("getting pod %s/%s: %w", namespace, name, err)
	}
	items, err := m.usageOf(ctx, podsMatching([]runtime.Object{obj}, nil)...)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		// metrics-server names the pod namespace/name here.
		return nil, apierrors.NewNotFound(metrics.Resource("podmetrics"), namespace+"/"+name)
	}
	return &items[0], nil
}

func (m *podMetrics) usageOf(ctx context.Context, pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error) {
	span := startRead(ctx, len(pods))
	items, err := m.usage.GetPodMetrics(pods...)
	span.end(len(items), err)
	if err != nil {
		return nil, fmt.Errorf("reading pod usage: %w", err)
	}
	for _, item := range items {
		m.observed(item.Timestamp)
	}
	slices.SortFunc(items, func(a, b metrics.PodMetrics) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return items, nil
}

// podsMatching keeps the pod metadata whose metadata.name and metadata.namespace the field
// selector (nil: any) selects.
func podsMatching(objs []runtime.Object, sel fields.Selector) []*metav1.PartialObjectMetadata {
	var out []*metav1.PartialObjectMetadata
	for _, obj := range objs {
		pod, ok := obj.(*metav1.PartialObjectMetadata)
		if ok && (sel == nil || sel.Matches(fields.Set{"metadata.name": pod.Name, "metadata.namespace": pod.Namespace})) {
			out = append(out, pod)
		}
	}
	return out
}
