package metav1

import (
	"context"

	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateCustom_Condition_LastTransitionTime is the +k8s:customValidation of
// Condition.lastTransitionTime: a condition says when it last changed. The tag is alpha in
// v1.37, so this runs but is never enforced.
func ValidateCustom_Condition_LastTransitionTime(_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *metav1.Time) field.ErrorList {
	if value == nil || value.IsZero() {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return nil
}
