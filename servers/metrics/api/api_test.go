package api

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/metrics/pkg/apis/metrics"
)

// The fixtures: four nodes and four pods in ns1 (one more in ns2); node4 and pod4 have no
// usage, as a node or pod does before its second scrape.

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func quantities(cpu, mem string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
}

// fakeMetrics has metrics for node1..3 and ns1/pod1..3.
type fakeMetrics struct{}

func (fakeMetrics) GetNodeMetrics(nodes ...*corev1.Node) ([]metrics.NodeMetrics, error) {
	usage := map[string]corev1.ResourceList{
		"node1": {corev1.ResourceName("res1"): resource.MustParse("10m")},
		"node2": {corev1.ResourceName("res1"): resource.MustParse("5Mi")},
		"node3": {corev1.ResourceName("res1"): resource.MustParse("1")},
	}
	var ms []metrics.NodeMetrics
	window := map[string]time.Duration{"node1": time.Microsecond, "node2": 2 * time.Microsecond, "node3": 3 * time.Microsecond}
	for _, n := range nodes {
		if u, ok := usage[n.Name]; ok {
			ms = append(ms, metrics.NodeMetrics{
				ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
				Timestamp:  metav1.NewTime(now), Window: metav1.Duration{Duration: window[n.Name]}, Usage: u,
			})
		}
	}
	// Reversed, to check that the API sorts.
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	return ms, nil
}

func (fakeMetrics) GetPodMetrics(pods ...*metav1.PartialObjectMetadata) ([]metrics.PodMetrics, error) {
	containers := map[string][]metrics.ContainerMetrics{
		"pod1": {{Name: "c1", Usage: quantities("10m", "5Mi")}},
		"pod2": {{Name: "c1", Usage: quantities("10m", "5Mi")}, {Name: "c2", Usage: quantities("10m", "10Mi")}},
		"pod3": {{Name: "c1", Usage: quantities("20m", "25Mi")}},
	}
	var ms []metrics.PodMetrics
	for _, p := range pods {
		if c, ok := containers[p.Name]; ok && p.Namespace == "ns1" {
			window := map[string]time.Duration{"pod1": time.Microsecond, "pod2": 2 * time.Microsecond, "pod3": 3 * time.Microsecond}[p.Name]
			ms = append(ms, metrics.PodMetrics{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels},
				Timestamp:  metav1.NewTime(now), Window: metav1.Duration{Duration: window}, Containers: c,
			})
		}
	}
	return ms, nil
}

func testNodes() corelisters.NodeLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, l := range map[string]string{"node1": "labelValue", "node2": "otherValue", "node3": "otherValue", "node4": "labelValue"} {
		_ = idx.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"labelKey": l}}})
	}
	return corelisters.NewNodeLister(idx)
}

func testPods() cache.GenericLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range []struct{ ns, name, label string }{
		{"ns1", "pod1", "labelValue"}, {"ns1", "pod2", "otherValue"}, {"ns1", "pod3", "otherValue"},
		{"ns1", "pod4", "labelValue"}, {"ns2", "pod5", "labelValue"},
	} {
		_ = idx.Add(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name, Labels: map[string]string{"labelKey": p.label}}})
	}
	return cache.NewGenericLister(idx, corev1.Resource("pods"))
}

func names(obj runtime.Object) []string {
	var out []string
	switch l := obj.(type) {
	case *metrics.NodeMetricsList:
		for _, i := range l.Items {
			out = append(out, i.Name)
		}
	case *metrics.PodMetricsList:
		for _, i := range l.Items {
			out = append(out, i.Namespace+"/"+i.Name)
		}
	}
	return out
}

func TestNodeList(t *testing.T) {
	tests := []struct {
		name         string
		opts         *metainternalversion.ListOptions
		nodeSelector string
		want         []string
	}{
		{name: "all", want: []string{"node1", "node2", "node3"}},
		{name: "field selector, no match", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "node5")}},
		{name: "field selector", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "node2")}, want: []string{"node2"}},
		{name: "field selector, not equal", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermNotEqualSelector("metadata.name", "node2")}, want: []string{"node1", "node3"}},
		{name: "label selector", opts: &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"labelKey": "labelValue"})}, want: []string{"node1"}},
		{name: "both", opts: &metainternalversion.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", "node3"),
			LabelSelector: labels.SelectorFromSet(labels.Set{"labelKey": "otherValue"}),
		}, want: []string{"node3"}},
		{name: "--node-selector", nodeSelector: "labelKey=otherValue", want: []string{"node2", "node3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req []labels.Requirement
			if tc.nodeSelector != "" {
				var err error
				if req, err = labels.ParseToRequirements(tc.nodeSelector); err != nil {
					t.Fatal(err)
				}
			}
			r := newNodeMetrics(fakeMetrics{}, testNodes(), req, nil)
			got, err := r.List(genericapirequest.NewContext(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(names(got)) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", names(got), tc.want)
			}
		})
	}
}

func TestNodeGet(t *testing.T) {
	r := newNodeMetrics(fakeMetrics{}, testNodes(), nil, nil)
	got, err := r.Get(genericapirequest.NewContext(), "node1", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := got.(*metrics.NodeMetrics); n.Name != "node1" || n.Labels["labelKey"] != "labelValue" {
		t.Errorf("got %+v", n)
	}
	for _, name := range []string{"node4" /* no metrics */, "node5" /* no node */} {
		if _, err := r.Get(genericapirequest.NewContext(), name, &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Get(%s): want NotFound, got %v", name, err)
		}
	}
}

func TestPodList(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		opts      *metainternalversion.ListOptions
		want      []string
	}{
		{name: "all namespaces", want: []string{"ns1/pod1", "ns1/pod2", "ns1/pod3"}},
		{name: "one namespace", namespace: "ns2"},
		{name: "field selector name", namespace: "ns1", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "pod2")}, want: []string{"ns1/pod2"}},
		{name: "field selector namespace", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "ns2")}},
		{name: "label selector", opts: &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"labelKey": "otherValue"})}, want: []string{"ns1/pod2", "ns1/pod3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newPodMetrics(fakeMetrics{}, testPods(), nil)
			ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), tc.namespace)
			got, err := r.List(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(names(got)) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", names(got), tc.want)
			}
		})
	}
}

func TestPodGet(t *testing.T) {
	r := newPodMetrics(fakeMetrics{}, testPods(), nil)
	ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), "ns1")
	got, err := r.Get(ctx, "pod2", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := got.(*metrics.PodMetrics); p.Name != "pod2" || len(p.Containers) != 2 {
		t.Errorf("got %+v", p)
	}
	for _, name := range []string{"pod4" /* no metrics */, "pod9" /* no pod */} {
		if _, err := r.Get(ctx, name, &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Get(%s): want NotFound, got %v", name, err)
		}
	}
}

// TestConvertToTable: the Table form of lists and of one object, as `kubectl get` shows it.
func TestConvertToTable(t *testing.T) {
	ctx := context.Background()
	nodes := newNodeMetrics(fakeMetrics{}, testNodes(), nil, nil)
	list, _ := nodes.List(ctx, nil)
	table, err := nodes.ConvertToTable(ctx, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := [][]any{{"node1", "10m", "1µs"}, {"node2", "5Mi", "2µs"}, {"node3", "1", "3µs"}}
	if got := columnNames(table); fmt.Sprint(got) != "[Name res1 Window]" {
		t.Errorf("node columns %v", got)
	}
	if got := cells(table); fmt.Sprint(got) != fmt.Sprint(wantNodes) {
		t.Errorf("node rows %v, want %v", got, wantNodes)
	}

	pods := newPodMetrics(fakeMetrics{}, testPods(), nil)
	list, _ = pods.List(genericapirequest.WithNamespace(ctx, "ns1"), nil)
	table, err = pods.ConvertToTable(ctx, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Pods add up their containers.
	wantPods := [][]any{{"pod1", "10m", "5Mi", "1µs"}, {"pod2", "20m", "15Mi", "2µs"}, {"pod3", "20m", "25Mi", "3µs"}}
	if got := columnNames(table); fmt.Sprint(got) != "[Name cpu memory Window]" {
		t.Errorf("pod columns %v", got)
	}
	if got := cells(table); fmt.Sprint(got) != fmt.Sprint(wantPods) {
		t.Errorf("pod rows %v, want %v", got, wantPods)
	}

	// One object.
	one, _ := pods.Get(genericapirequest.WithNamespace(ctx, "ns1"), "pod3", &metav1.GetOptions{})
	table, _ = pods.ConvertToTable(ctx, one, nil)
	if got := cells(table); fmt.Sprint(got) != fmt.Sprint(wantPods[2:]) {
		t.Errorf("single pod row %v", got)
	}
}

func columnNames(t *metav1.Table) []string {
	var out []string
	for _, c := range t.ColumnDefinitions {
		out = append(out, c.Name)
	}
	return out
}

func cells(t *metav1.Table) [][]any {
	var out [][]any
	for _, r := range t.Rows {
		out = append(out, r.Cells)
	}
	return out
}
