package printers

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Printer is one resource's `kubectl get` table. It implements
// k8s.io/apiserver/pkg/registry/rest.TableConvertor.
type Printer struct {
	Columns []metav1.TableColumnDefinition                  // priority 0 shown by default, 1 with -o wide
	Row     func(obj runtime.Object) ([]interface{}, error) // one object's cells, one per column

	conditions func(obj runtime.Object) []metav1.TableRowCondition // optional, per row
	markList   func(list runtime.Object, rows []metav1.TableRow)   // optional, across a list's rows
}

// ConvertToTable prints an object, or each item of a list, as rows.
func (p Printer) ConvertToTable(_ context.Context, obj runtime.Object, options runtime.Object) (*metav1.Table, error) {
	opts, ok := options.(*metav1.TableOptions)
	if options != nil && !ok {
		return nil, fmt.Errorf("printing a table: options of type %T are not TableOptions", options)
	}
	rows, err := metatable.MetaToTableRow(obj, func(item runtime.Object, _ metav1.Object, _, _ string) ([]interface{}, error) {
		return p.Row(item)
	})
	if err != nil {
		return nil, err
	}
	if p.conditions != nil {
		for i := range rows {
			rows[i].Conditions = p.conditions(rows[i].Object.Object)
		}
	}
	if p.markList != nil && meta.IsListType(obj) {
		p.markList(obj, rows)
	}

	table := &metav1.Table{Rows: rows}
	if opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = slices.Clone(p.Columns)
	}
	if list, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = list.GetResourceVersion()
		table.Continue = list.GetContinue()
		table.RemainingItemCount = list.GetRemainingItemCount()
	} else if object, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = object.GetResourceVersion()
		table.SelfLink = object.GetSelfLink()
	}
	return table, nil
}

// withConditions returns p with conditions set on every row.
func (p Printer) withConditions(conditions func(obj runtime.Object) []metav1.TableRowCondition) Printer {
	p.conditions = conditions
	return p
}

// withListMarks returns p with mark applied to the rows of a whole list.
func (p Printer) withListMarks(mark func(list runtime.Object, rows []metav1.TableRow)) Printer {
	p.markList = mark
	return p
}

// define declares a resource: its columns from columns.json, its row from
// cells, which returns one Go value per column (see asCells).
func define[T runtime.Object](resource string, cells func(T) []any) Printer {
	columns := columnsByResource[resource]
	if len(columns) == 0 {
		panic("printers: columns.json has no columns for " + resource)
	}
	return Printer{
		Columns: columns,
		Row: func(obj runtime.Object) ([]interface{}, error) {
			typed, ok := obj.(T)
			if !ok {
				return nil, fmt.Errorf("printing %s: cannot print a %T", resource, obj)
			}
			values := cells(typed)
			if len(values) != len(columns) {
				return nil, fmt.Errorf("printing %s: %d cells for %d columns", resource, len(values), len(columns))
			}
			return asCells(values)
		},
	}
}

// asCells turns Go values into the JSON values of Table cells: every integer
// an int64, every string kind (PodPhase, ServiceType, ...) a string.
func asCells(values []any) ([]any, error) {
	for i, v := range values {
		switch r := reflect.ValueOf(v); r.Kind() {
		case reflect.String:
			values[i] = r.String()
		case reflect.Int, reflect.Int32, reflect.Int64:
			values[i] = r.Int()
		case reflect.Bool:
		default:
			return nil, fmt.Errorf("cell %d: a %T is not a table cell", i, v)
		}
	}
	return values, nil
}

//go:embed columns.json
var columnsFile []byte

// columnsByResource is columns.json: each resource's columns, by resource name as
// in the reference tables. The metadata columns (Name, Age, Created At) are
// written there without their description, which is ObjectMeta's.
var columnsByResource = func() map[string][]metav1.TableColumnDefinition {
	var byResource map[string][]metav1.TableColumnDefinition
	if err := json.Unmarshal(columnsFile, &byResource); err != nil {
		panic("printers: reading columns.json: " + err.Error())
	}
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	fromMetadata := map[string]string{"Name": docs["name"], "Age": docs["creationTimestamp"], "Created At": docs["creationTimestamp"]}
	for _, columns := range byResource {
		for i := range columns {
			if columns[i].Description == "" {
				columns[i].Description = fromMetadata[columns[i].Name]
			}
		}
	}
	return byResource
}()
