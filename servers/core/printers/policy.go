// Follows kubernetes pkg/printers/internalversion/printers.go
// (printPodDisruptionBudget and its column definitions) as of kube-apiserver
// v1.37, on the policy/v1 types.

package printers

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodDisruptionBudget prints policy/v1 PodDisruptionBudgets.
var PodDisruptionBudget = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
		{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
		{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
		ageColumn(),
	},
	Row: rowFunc(func(obj *policyv1.PodDisruptionBudget) ([]interface{}, error) {
		var minAvailable string
		var maxUnavailable string
		if obj.Spec.MinAvailable != nil {
			minAvailable = obj.Spec.MinAvailable.String()
		} else {
			minAvailable = "N/A"
		}

		if obj.Spec.MaxUnavailable != nil {
			maxUnavailable = obj.Spec.MaxUnavailable.String()
		} else {
			maxUnavailable = "N/A"
		}

		return []interface{}{obj.Name, minAvailable, maxUnavailable, int64(obj.Status.DisruptionsAllowed), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}
