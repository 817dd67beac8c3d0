package printers

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"
)

var _ rest.TableConvertor = Printer{}

func TestConvertToTableList(t *testing.T) {
	remaining := int64(7)
	list := &corev1.PodList{
		ListMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "next-page", RemainingItemCount: &remaining},
		Items: []corev1.Pod{
			{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 1)}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
			{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: corev1.PodSpec{Containers: make([]corev1.Container, 2)}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}},
		},
	}
	table, err := Pod.ConvertToTable(context.Background(), list, &metav1.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if table.ResourceVersion != "42" || table.Continue != "next-page" || table.RemainingItemCount == nil || *table.RemainingItemCount != 7 {
		t.Errorf("list meta not copied: %#v", table.ListMeta)
	}
	if !reflect.DeepEqual(table.ColumnDefinitions, Pod.Columns) {
		t.Errorf("column definitions %#v, want the Pod columns", table.ColumnDefinitions)
	}
	if len(table.Rows) != len(list.Items) {
		t.Fatalf("%d rows for %d items", len(table.Rows), len(list.Items))
	}
	for i := range list.Items {
		row := table.Rows[i]
		if row.Object.Object != &list.Items[i] {
			t.Errorf("row %d object %#v, want the list item", i, row.Object.Object)
		}
		want, _ := Pod.Row(&list.Items[i])
		if !reflect.DeepEqual(row.Cells, want) {
			t.Errorf("row %d cells %#v, want %#v", i, row.Cells, want)
		}
	}
	if table.Rows[0].Cells[0] != "a" || table.Rows[1].Cells[1] != "0/2" {
		t.Errorf("unexpected cells %#v / %#v", table.Rows[0].Cells, table.Rows[1].Cells)
	}
	if table.Rows[0].Conditions != nil || !reflect.DeepEqual(table.Rows[1].Conditions, podSuccessConditions) {
		t.Errorf("row conditions %#v / %#v", table.Rows[0].Conditions, table.Rows[1].Conditions)
	}

	empty, err := Pod.ConvertToTable(context.Background(), &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "43"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(empty.Rows) != 0 || empty.ResourceVersion != "43" || len(empty.ColumnDefinitions) != len(Pod.Columns) {
		t.Errorf("empty list table %#v", empty)
	}
}

func TestConvertToTableNoHeaders(t *testing.T) {
	list := &corev1.ConfigMapList{Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "b"}}}}
	table, err := ConfigMap.ConvertToTable(context.Background(), list, &metav1.TableOptions{NoHeaders: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 0 {
		t.Errorf("NoHeaders: got %d column definitions", len(table.ColumnDefinitions))
	}
	if len(table.Rows) != 1 || !reflect.DeepEqual(table.Rows[0].Cells, []interface{}{"cm", int64(1), "<unknown>"}) {
		t.Errorf("NoHeaders rows %#v", table.Rows)
	}
}

func TestConvertToTableSingleObject(t *testing.T) {
	ns := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "ns", ResourceVersion: "9", SelfLink: "/api/v1/namespaces/ns"},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	table, err := Namespace.ConvertToTable(context.Background(), ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	if table.ResourceVersion != "9" || table.SelfLink != "/api/v1/namespaces/ns" || table.Continue != "" || table.RemainingItemCount != nil {
		t.Errorf("list meta %#v", table.ListMeta)
	}
	if len(table.Rows) != 1 || table.Rows[0].Object.Object != ns {
		t.Fatalf("rows %#v", table.Rows)
	}
	if !reflect.DeepEqual(table.Rows[0].Cells, []interface{}{"ns", "Active", "<unknown>"}) {
		t.Errorf("cells %#v", table.Rows[0].Cells)
	}
}

func TestConvertToTableErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Pod.ConvertToTable(ctx, &corev1.Pod{}, &metav1.ListOptions{}); err == nil {
		t.Error("expected an error for options that are not TableOptions")
	}
	if _, err := Pod.ConvertToTable(ctx, &corev1.Service{}, nil); err == nil {
		t.Error("expected an error for an object of another kind")
	}
	if _, err := Pod.ConvertToTable(ctx, &corev1.ServiceList{Items: []corev1.Service{{}}}, nil); err == nil {
		t.Error("expected an error for a list of another kind")
	}
	var nilOptions *metav1.TableOptions
	if _, err := Pod.ConvertToTable(ctx, &corev1.Pod{}, nilOptions); err != nil {
		t.Errorf("typed nil TableOptions: %v", err)
	}
}

func TestConvertToTableEventsV1List(t *testing.T) {
	list := &eventsv1.EventList{Items: []eventsv1.Event{{
		ObjectMeta: metav1.ObjectMeta{Name: "e"},
		Regarding:  corev1.ObjectReference{Kind: "Pod", Name: "p"},
		Reason:     "R",
		Note:       "M",
	}}}
	table, err := EventsV1Event.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(table.ColumnDefinitions, Event.Columns) {
		t.Error("events.k8s.io Events must have the core Event columns")
	}
	want := []interface{}{"<unknown>", "", "R", "pod/p", "", "", "M", "<unknown>", int64(1), "e"}
	if len(table.Rows) != 1 || !reflect.DeepEqual(table.Rows[0].Cells, want) {
		t.Errorf("rows %#v, want cells %#v", table.Rows, want)
	}
}

// TestEveryPrinterHasCells checks that each exported Printer returns one cell
// per column for an empty object of its kind, and, like upstream's
// TestTableRowDeepCopyShouldNotPanic, that the cells are JSON values that
// TableRow.DeepCopy accepts.
func TestEveryPrinterHasCells(t *testing.T) {
	for name, p := range printersByReferenceFile {
		if len(p.Columns) == 0 || p.Row == nil {
			t.Errorf("%s: empty printer", name)
		}
	}
	for _, o := range emptyObjects() {
		cells, err := o.printer.Row(o.obj)
		if err != nil {
			t.Errorf("%T: %v", o.obj, err)
			continue
		}
		if len(cells) != len(o.printer.Columns) {
			t.Errorf("%T: %d cells for %d columns", o.obj, len(cells), len(o.printer.Columns))
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%T: TableRow.DeepCopy panicked: %v", o.obj, r)
				}
			}()
			row := metav1.TableRow{Cells: cells}
			row.DeepCopy()
		}()
	}
}
