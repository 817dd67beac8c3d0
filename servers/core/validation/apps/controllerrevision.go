package apps

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateControllerRevision is the rule list of a new ControllerRevision: a snapshot of a
// workload's template that a controller writes to roll back to. Its data is a JSON object.
func ValidateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	return validation.Join(
		revision(cr),
		revisionData(field.NewPath("data"), cr.Data.Raw),
	)
}

// ValidateControllerRevisionUpdate is the rule list of an update: a snapshot never changes.
func ValidateControllerRevisionUpdate(cr, old *appsv1.ControllerRevision) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&cr.ObjectMeta, &old.ObjectMeta, metadata),
		revision(cr),
		validation.Immutable(field.NewPath("data"), cr.Data, old.Data),
	)
}

func revision(cr *appsv1.ControllerRevision) field.ErrorList {
	return validation.Join(
		validation.Meta(&cr.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.NonNegative(field.NewPath("revision"), cr.Revision),
	)
}

func revisionData(path *field.Path, raw []byte) field.ErrorList {
	if raw == nil {
		return field.ErrorList{field.Required(path, "data is mandatory")}
	}
	var v interface{}
	if err := json.Unmarshal(raw, &v); err != nil {
		return field.ErrorList{field.Invalid(path, "<value omitted>", "error parsing data: "+err.Error())}
	}
	switch v.(type) {
	case nil:
		return field.ErrorList{field.Required(path, "data is mandatory")}
	case map[string]interface{}:
		return nil
	}
	return field.ErrorList{field.Required(path, "data must be a valid JSON object")}
}
