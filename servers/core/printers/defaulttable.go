// Follows k8s.io/apiserver/pkg/registry/rest/table.go (defaultTableConvertor),
// which kube-apiserver v1.37 uses for the resources that have no printer in
// pkg/printers/internalversion: Role, ClusterRole and LimitRange.

package printers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultTablePrinter returns the Name / Created At printer of the default
// table convertor.
func defaultTablePrinter() Printer {
	return Printer{
		Columns: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: objectMetaSwagger["name"]},
			{Name: "Created At", Type: "date", Description: objectMetaSwagger["creationTimestamp"]},
		},
		Row: func(obj runtime.Object) ([]interface{}, error) {
			m, err := meta.Accessor(obj)
			if err != nil {
				return nil, err
			}
			return []interface{}{m.GetName(), m.GetCreationTimestamp().Time.UTC().Format(time.RFC3339)}, nil
		},
	}
}
