package api

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/metrics/pkg/apis/metrics"

	"github.com/apichain/apichain/internal/tracing"
)

// readOnly is what the two resources share: they are read-only kinds with a Table form.
// nodeMetrics and podMetrics add Get and List.
type readOnly struct {
	kind       string
	namespaced bool
	newObj     func() runtime.Object
	newList    func() runtime.Object
	// observe, if set, is told the age of every usage served (a freshness histogram).
	observe func(age time.Duration)
}

var (
	_ rest.Storage              = readOnly{}
	_ rest.KindProvider         = readOnly{}
	_ rest.Scoper               = readOnly{}
	_ rest.SingularNameProvider = readOnly{}
	_ rest.TableConvertor       = readOnly{}
)

func (r readOnly) New() runtime.Object     { return r.newObj() }
func (r readOnly) NewList() runtime.Object { return r.newList() }
func (r readOnly) Destroy()                {}
func (r readOnly) Kind() string            { return r.kind }
func (r readOnly) NamespaceScoped() bool   { return r.namespaced }

// GetSingularName is empty: the lower-cased kind.
func (r readOnly) GetSingularName() string { return "" }

// observed tells observe the age of each timestamp.
func (r readOnly) observed(timestamps ...metav1.Time) {
	if r.observe == nil {
		return
	}
	for _, t := range timestamps {
		r.observe(time.Since(t.Time))
	}
}

// labelSelector is the request's label selector, everything when it has none.
func labelSelector(opts *metainternalversion.ListOptions) labels.Selector {
	if opts == nil || opts.LabelSelector == nil {
		return labels.Everything()
	}
	return opts.LabelSelector
}

// ConvertToTable gives `kubectl get nodes.metrics.k8s.io` (and pods) its columns: the name, one
// quantity per resource in the usage, sorted (pods add up their containers), and the window.
func (r readOnly) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	type row struct {
		name   string
		usage  corev1.ResourceList
		window metav1.Duration
		obj    runtime.Object
	}
	var rows []row
	addNodes := func(items []metrics.NodeMetrics) {
		for i := range items {
			rows = append(rows, row{items[i].Name, items[i].Usage, items[i].Window, &items[i]})
		}
	}
	addPods := func(items []metrics.PodMetrics) {
		for i := range items {
			sum := corev1.ResourceList{}
			for _, c := range items[i].Containers {
				for name, q := range c.Usage {
					total := sum[name]
					total.Add(q)
					sum[name] = total
				}
			}
			rows = append(rows, row{items[i].Name, sum, items[i].Window, &items[i]})
		}
	}
	switch o := obj.(type) {
	case *metrics.NodeMetrics:
		addNodes([]metrics.NodeMetrics{*o})
	case *metrics.NodeMetricsList:
		addNodes(o.Items)
	case *metrics.PodMetrics:
		addPods([]metrics.PodMetrics{*o})
	case *metrics.PodMetricsList:
		addPods(o.Items)
	}

	table := &metav1.Table{}
	if len(rows) == 0 {
		return table, nil
	}
	// The first row decides the columns.
	var resources []corev1.ResourceName
	for name := range rows[0].usage {
		resources = append(resources, name)
	}
	slices.Sort(resources)
	table.ColumnDefinitions = append(table.ColumnDefinitions,
		metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name of the resource"})
	for _, name := range resources {
		table.ColumnDefinitions = append(table.ColumnDefinitions, metav1.TableColumnDefinition{Name: string(name), Type: "string", Format: "quantity"})
	}
	table.ColumnDefinitions = append(table.ColumnDefinitions, metav1.TableColumnDefinition{Name: "Window", Type: "string", Format: "duration"})
	for _, r := range rows {
		cells := []any{r.name}
		for _, name := range resources {
			q := r.usage[name]
			cells = append(cells, q.String())
		}
		cells = append(cells, r.window.Duration.String())
		table.Rows = append(table.Rows, metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: r.obj}})
	}
	return table, nil
}

// readSpan is the span of one read of the storage, in the trace of the request it serves.
type readSpan struct{ span trace.Span }

// startRead starts the span of a read of the usage of asked nodes or pods.
func startRead(ctx context.Context, asked int) readSpan {
	_, span := tracing.Start(ctx, tracing.StorageSpanName("read"),
		attribute.String(tracing.AttrStorageOperation, "read"), attribute.Int(tracing.AttrMetricsAsked, asked))
	return readSpan{span}
}

// end ends it with how many had a usage.
func (s readSpan) end(found int, err error) {
	s.span.SetAttributes(attribute.Int(tracing.AttrMetricsFound, found))
	if err != nil {
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.End()
}
