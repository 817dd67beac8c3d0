// Follows kubernetes pkg/printers/storage/storage.go (TableConvertor) and
// pkg/printers/tablegenerator.go (HumanReadableGenerator.GenerateTable), as of
// kube-apiserver v1.37.
//
// Upstream always generates with GenerateOptions{Wide: true}, so a Row here
// always returns every cell, including the priority 1 (-o wide) ones.

package printers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Printer prints one resource the way kube-apiserver's `kubectl get` Table does.
type Printer struct {
	Columns []metav1.TableColumnDefinition                  // in upstream order; Priority 0 = default, 1 = -o wide
	Row     func(obj runtime.Object) ([]interface{}, error) // the cells of one object's row, in Columns order
}

// ConvertToTable implements k8s.io/apiserver/pkg/registry/rest.TableConvertor.
func (p Printer) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	noHeaders := false
	if tableOptions != nil {
		switch t := tableOptions.(type) {
		case *metav1.TableOptions:
			if t != nil {
				noHeaders = t.NoHeaders
			}
		default:
			return nil, fmt.Errorf("unrecognized type %T for table options, can't display tabular output", tableOptions)
		}
	}
	if p.Row == nil {
		return nil, fmt.Errorf("no table handler registered for this type %T", object)
	}

	var rows []metav1.TableRow
	if meta.IsListType(object) {
		items, err := meta.ExtractList(object)
		if err != nil {
			return nil, err
		}
		rows = make([]metav1.TableRow, 0, len(items))
		for _, item := range items {
			row, err := p.row(item)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
		decorateListRows(object, rows)
	} else {
		row, err := p.row(object)
		if err != nil {
			return nil, err
		}
		rows = []metav1.TableRow{row}
	}

	var columns []metav1.TableColumnDefinition
	if !noHeaders {
		columns = append([]metav1.TableColumnDefinition(nil), p.Columns...)
	}
	table := &metav1.Table{
		ColumnDefinitions: columns,
		Rows:              rows,
	}
	if m, err := meta.ListAccessor(object); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
		table.Continue = m.GetContinue()
		table.RemainingItemCount = m.GetRemainingItemCount()
	} else if m, err := meta.CommonAccessor(object); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
		table.SelfLink = m.GetSelfLink()
	}
	return table, nil
}

// row builds one TableRow: the cells, the object itself and, like upstream's
// printPod, the Completed condition of finished pods.
func (p Printer) row(obj runtime.Object) (metav1.TableRow, error) {
	cells, err := p.Row(obj)
	if err != nil {
		return metav1.TableRow{}, err
	}
	return metav1.TableRow{
		Cells:      cells,
		Conditions: rowConditions(obj),
		Object:     runtime.RawExtension{Object: obj},
	}, nil
}

var (
	podSuccessConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	podFailedConditions  = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
)

// rowConditions returns the row conditions that upstream's printPod sets.
func rowConditions(obj runtime.Object) []metav1.TableRowCondition {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		return podSuccessConditions
	case corev1.PodFailed:
		return podFailedConditions
	}
	return nil
}

// decorateListRows applies what upstream's list printers compute across the
// whole list rather than per item: printStorageClassList marks the effective
// default StorageClass with " (default)".
func decorateListRows(list runtime.Object, rows []metav1.TableRow) {
	scList, ok := list.(*storagev1.StorageClassList)
	if !ok || len(scList.Items) != len(rows) {
		return
	}
	effectiveDefault := getEffectiveDefaultStorageClass(scList.Items)
	if effectiveDefault == "" {
		return
	}
	for i := range scList.Items {
		if scList.Items[i].Name != effectiveDefault || len(rows[i].Cells) == 0 {
			continue
		}
		if name, ok := rows[i].Cells[0].(string); ok && name == effectiveDefault {
			rows[i].Cells[0] = name + " (default)"
		}
	}
}
