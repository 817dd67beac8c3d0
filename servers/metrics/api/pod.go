package api

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/metrics"
)

// podMetrics is the REST storage of PodMetrics (metrics-server pkg/api/pod.go).
type podMetrics struct {
	groupResource    schema.GroupResource
	metrics          MetricsGetter
	podLister        cache.GenericLister
	observeFreshness func(time.Duration)
}

var (
	_ rest.KindProvider         = &podMetrics{}
	_ rest.Storage              = &podMetrics{}
	_ rest.Getter               = &podMetrics{}
	_ rest.Lister               = &podMetrics{}
	_ rest.TableConvertor       = &podMetrics{}
	_ rest.Scoper               = &podMetrics{}
	_ rest.SingularNameProvider = &podMetrics{}
)

func newPodMetrics(gr schema.GroupResource, m MetricsGetter, podLister cache.GenericLister, observe func(time.Duration)) *podMetrics {
	return &podMetrics{groupResource: gr, metrics: m, podLister: podLister, observeFreshness: observe}
}

// New implements rest.Storage.
func (m *podMetrics) New() runtime.Object { return &metrics.PodMetrics{} }

// Destroy implements rest.Storage.
func (m *podMetrics) Destroy() {}

// Kind implements rest.KindProvider.
func (m *podMetrics) Kind() string { return "PodMetrics" }

// NewList implements rest.Lister.
func (m *podMetrics) NewList() runtime.Object { return &metrics.PodMetricsList{} }

// NamespaceScoped implements rest.Scoper.
func (m *podMetrics) NamespaceScoped() bool { return true }

// GetSingularName implements rest.SingularNameProvider; empty means the lower-cased kind.
func (m *podMetrics) GetSingularName() string { return "" }

// List implements rest.Lister: the metrics of the running pods of the request's namespace (all
// namespaces if none) that match the selectors.
func (m *podMetrics) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	pods, err := m.pods(ctx, options)
	if err != nil {
		return &metrics.PodMetricsList{}, err
	}
	ms, err := m.getMetrics(pods...)
	if err != nil {
		klog.ErrorS(err, "Failed reading pods metrics", "namespace", klog.KRef("", genericapirequest.NamespaceValue(ctx)))
		return &metrics.PodMetricsList{}, fmt.Errorf("failed reading pods metrics: %w", err)
	}
	return &metrics.PodMetricsList{Items: ms}, nil
}

func (m *podMetrics) pods(ctx context.Context, options *metainternalversion.ListOptions) ([]runtime.Object, error) {
	labelSelector := labels.Everything()
	if options != nil && options.LabelSelector != nil {
		labelSelector = options.LabelSelector
	}
	namespace := genericapirequest.NamespaceValue(ctx)
	pods, err := m.podLister.ByNamespace(namespace).List(labelSelector)
	if err != nil {
		klog.ErrorS(err, "Failed listing pods", "labelSelector", labelSelector, "namespace", klog.KRef("", namespace))
		return nil, fmt.Errorf("failed listing pods: %w", err)
	}
	if options != nil && options.FieldSelector != nil {
		pods = filterPartialObjectMetadata(pods, options.FieldSelector)
	}
	return pods, nil
}

// Get implements rest.Getter: NotFound for a pod that is not running or has no metrics yet.
func (m *podMetrics) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	namespace := genericapirequest.NamespaceValue(ctx)
	pod, err := m.podLister.ByNamespace(namespace).Get(name)
	if err != nil {
		if errors.IsNotFound(err) {
			return &metrics.PodMetrics{}, err
		}
		klog.ErrorS(err, "Failed getting pod", "pod", klog.KRef(namespace, name))
		return &metrics.PodMetrics{}, fmt.Errorf("failed getting pod: %w", err)
	}
	if pod == nil {
		return &metrics.PodMetrics{}, errors.NewNotFound(corev1.Resource("pods"), fmt.Sprintf("%s/%s", namespace, name))
	}
	ms, err := m.getMetrics(pod)
	if err != nil {
		klog.ErrorS(err, "Failed reading pod metrics", "pod", klog.KRef(namespace, name))
		return nil, fmt.Errorf("failed pod metrics: %w", err)
	}
	if len(ms) == 0 {
		return nil, errors.NewNotFound(m.groupResource, fmt.Sprintf("%s/%s", namespace, name))
	}
	return &ms[0], nil
}

// ConvertToTable implements rest.TableConvertor (kubectl get pods.metrics.k8s.io).
func (m *podMetrics) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	var table metav1.Table
	switch t := object.(type) {
	case *metrics.PodMetrics:
		table.ResourceVersion = t.ResourceVersion
		addPodMetricsToTable(&table, *t)
	case *metrics.PodMetricsList:
		table.ResourceVersion = t.ResourceVersion
		table.Continue = t.Continue
		addPodMetricsToTable(&table, t.Items...)
	}
	return &table, nil
}

func (m *podMetrics) getMetrics(pods ...runtime.Object) ([]metrics.PodMetrics, error) {
	objs := make([]*metav1.PartialObjectMetadata, 0, len(pods))
	for _, pod := range pods {
		if p, ok := pod.(*metav1.PartialObjectMetadata); ok {
			objs = append(objs, p)
		}
	}
	ms, err := m.metrics.GetPodMetrics(objs...)
	if err != nil {
		return nil, err
	}
	if m.observeFreshness != nil {
		for _, x := range ms {
			m.observeFreshness(time.Since(x.Timestamp.Time))
		}
	}
	slices.SortFunc(ms, func(a, b metrics.PodMetrics) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return ms, nil
}
