package authorization

import (
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// The questions a review asks, as authorizer attributes; this follows kubernetes
// pkg/registry/authorization/util/helpers.go.

func resourceAttributes(u user.Info, in authorizationv1.ResourceAttributes) authorizer.AttributesRecord {
	version := in.Version
	if version == "" {
		version = "*"
	}
	out := authorizer.AttributesRecord{
		User: u, Verb: in.Verb, Namespace: in.Namespace, APIGroup: in.Group, APIVersion: version,
		Resource: in.Resource, Subresource: in.Subresource, Name: in.Name, ResourceRequest: true,
	}
	if ls := in.LabelSelector; ls != nil {
		if ls.RawSelector != "" {
			if sel, err := labels.Parse(ls.RawSelector); err != nil {
				out.LabelSelectorParsingErr = err
			} else {
				out.LabelSelectorRequirements, _ = sel.Requirements()
			}
		}
		if len(ls.Requirements) > 0 {
			out.LabelSelectorRequirements, out.LabelSelectorParsingErr = labelRequirements(ls.Requirements)
		}
	}
	if fs := in.FieldSelector; fs != nil {
		if fs.RawSelector != "" {
			if sel, err := fields.ParseSelector(fs.RawSelector); err != nil {
				out.FieldSelectorParsingErr = err
			} else {
				out.FieldSelectorRequirements = sel.Requirements()
			}
		}
		if len(fs.Requirements) > 0 {
			out.FieldSelectorRequirements, out.FieldSelectorParsingErr = fieldRequirements(fs.Requirements)
		}
	}
	return out
}

func nonResourceAttributes(u user.Info, in authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Path: in.Path, Verb: in.Verb}
}

var labelOperators = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var reqs labels.Requirements
	var errs []error
	for _, r := range in {
		op, ok := labelOperators[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, utilerrors.NewAggregate(errs)
}

func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var reqs fields.Requirements
	var errs []error
	for _, r := range in {
		if len(r.Values) > 1 {
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support multiple values"))
			continue
		}
		var op selection.Operator
		switch r.Operator {
		case metav1.FieldSelectorOpIn:
			op = selection.Equals
		case metav1.FieldSelectorOpNotIn:
			op = selection.NotEquals
		case metav1.FieldSelectorOpExists, metav1.FieldSelectorOpDoesNotExist:
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator))
			continue
		default:
			errs = append(errs, fmt.Errorf("%q is not a valid field selector operator", r.Operator))
			continue
		}
		if len(r.Values) != 1 {
			errs = append(errs, fmt.Errorf("fieldSelectors %s must have one value", strings.ToLower(string(r.Operator))))
			continue
		}
		reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: op, Value: r.Values[0]})
	}
	return reqs, utilerrors.NewAggregate(errs)
}

// evaluationError reports the authorizer's error and any selector that could not be parsed.
func evaluationError(err error, attrs authorizer.AttributesRecord) string {
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if reqs, err := attrs.GetFieldSelector(); err != nil {
		msgs = append(msgs, "spec.resourceAttributes.fieldSelector "+ignored(len(reqs))+" due to parse error")
	}
	if reqs, err := attrs.GetLabelSelector(); err != nil {
		msgs = append(msgs, "spec.resourceAttributes.labelSelector "+ignored(len(reqs))+" due to parse error")
	}
	return strings.Join(msgs, "; ")
}

func ignored(kept int) string {
	if kept > 0 {
		return "partially ignored"
	}
	return "ignored"
}
