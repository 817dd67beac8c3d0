// Follows kubernetes pkg/printers/internalversion/printers.go (printLease and
// its column definitions) as of kube-apiserver v1.37, on the coordination/v1
// types.

package printers

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lease prints coordination/v1 Leases.
var Lease = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Holder", Type: "string", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *coordinationv1.Lease) ([]interface{}, error) {
		var holderIdentity string
		if obj.Spec.HolderIdentity != nil {
			holderIdentity = *obj.Spec.HolderIdentity
		}
		return []interface{}{obj.Name, holderIdentity, translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}
