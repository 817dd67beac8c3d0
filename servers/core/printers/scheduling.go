// Follows kubernetes pkg/printers/internalversion/printers.go
// (printPriorityClass and its column definitions) as of kube-apiserver v1.37,
// on the scheduling/v1 types.

package printers

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PriorityClass prints scheduling/v1 PriorityClasses.
var PriorityClass = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Value", Type: "integer", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["value"]},
		{Name: "Global-Default", Type: "boolean", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["globalDefault"]},
		ageColumn(),
		{Name: "PreemptionPolicy", Type: "string", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["preemptionPolicy"]},
	},
	Row: rowFunc(func(obj *schedulingv1.PriorityClass) ([]interface{}, error) {
		var preemptionPolicy string
		if obj.PreemptionPolicy != nil {
			preemptionPolicy = string(*obj.PreemptionPolicy)
		}
		return []interface{}{obj.Name, int64(obj.Value), obj.GlobalDefault, translateTimestampSince(obj.CreationTimestamp), preemptionPolicy}, nil
	}),
}
