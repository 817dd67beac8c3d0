package api

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/metrics/pkg/apis/metrics"
)

// Table output for kubectl get (metrics-server pkg/api/table.go): the name, one quantity column
// per resource (cpu, memory; pods add up their containers) and the window.

func addPodMetricsToTable(table *metav1.Table, pods ...metrics.PodMetrics) {
	usage := make(corev1.ResourceList, 3)
	var names []string
	for i, pod := range pods {
		clear(usage)
		for _, container := range pod.Containers {
			for k, v := range container.Usage {
				u := usage[k]
				u.Add(v)
				usage[k] = u
			}
		}
		if names == nil {
			names = sortedNames(usage)
			table.ColumnDefinitions = columns(names)
		}
		row := make([]any, 0, len(names)+2)
		row = append(row, pod.Name)
		for _, name := range names {
			v := usage[corev1.ResourceName(name)]
			row = append(row, v.String())
		}
		row = append(row, pod.Window.Duration.String())
		table.Rows = append(table.Rows, metav1.TableRow{Cells: row, Object: runtime.RawExtension{Object: &pods[i]}})
	}
}

func addNodeMetricsToTable(table *metav1.Table, nodes ...metrics.NodeMetrics) {
	var names []string
	for i, node := range nodes {
		if names == nil {
			names = sortedNames(node.Usage)
			table.ColumnDefinitions = columns(names)
		}
		row := make([]any, 0, len(names)+2)
		row = append(row, node.Name)
		for _, name := range names {
			v := node.Usage[corev1.ResourceName(name)]
			row = append(row, v.String())
		}
		row = append(row, node.Window.Duration.String())
		table.Rows = append(table.Rows, metav1.TableRow{Cells: row, Object: runtime.RawExtension{Object: &nodes[i]}})
	}
}

// sortedNames returns the resource names of usage, sorted; never nil, so that a first item
// without usage still fixes the columns.
func sortedNames(usage corev1.ResourceList) []string {
	names := make([]string, 0, len(usage))
	for k := range usage {
		names = append(names, string(k))
	}
	slices.Sort(names)
	return names
}

func columns(names []string) []metav1.TableColumnDefinition {
	defs := []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name", Description: "Name of the resource"}}
	for _, name := range names {
		defs = append(defs, metav1.TableColumnDefinition{Name: name, Type: "string", Format: "quantity"})
	}
	return append(defs, metav1.TableColumnDefinition{Name: "Window", Type: "string", Format: "duration"})
}

// filterNodes keeps the nodes whose metadata.name matches selector (metrics-server
// pkg/api/filter.go).
func filterNodes(nodes []*corev1.Node, selector fields.Selector) []*corev1.Node {
	out := make([]*corev1.Node, 0, len(nodes))
	set := make(fields.Set, 2)
	for _, node := range nodes {
		clear(set)
		if selector.Matches(generic.AddObjectMetaFieldsSet(set, &node.ObjectMeta, false)) {
			out = append(out, node)
		}
	}
	return out
}

// filterPartialObjectMetadata keeps the pods whose metadata.name and metadata.namespace match
// selector (metrics-server pkg/api/filter.go).
func filterPartialObjectMetadata(objs []runtime.Object, selector fields.Selector) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs))
	set := make(fields.Set, 2)
	for _, obj := range objs {
		pod, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			continue
		}
		clear(set)
		if selector.Matches(generic.AddObjectMetaFieldsSet(set, &pod.ObjectMeta, true)) {
			out = append(out, obj)
		}
	}
	return out
}
