// Follows kubernetes pkg/printers/internalversion/printers.go
// (printMutatingAdmissionPolicy, printMutatingAdmissionPolicyBinding and their
// column definitions) as of kube-apiserver v1.37, on the admissionregistration/v1
// types.

package printers

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MutatingAdmissionPolicy prints admissionregistration/v1 MutatingAdmissionPolicies.
var MutatingAdmissionPolicy = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.MutatingAdmissionPolicy) ([]interface{}, error) {
		paramKind := "<unset>"
		if obj.Spec.ParamKind != nil {
			paramKind = obj.Spec.ParamKind.APIVersion + "/" + obj.Spec.ParamKind.Kind
		}
		return []interface{}{obj.Name, int64(len(obj.Spec.Mutations)), paramKind, translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// MutatingAdmissionPolicyBinding prints admissionregistration/v1 MutatingAdmissionPolicyBindings.
var MutatingAdmissionPolicyBinding = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.MutatingAdmissionPolicyBinding) ([]interface{}, error) {
		return []interface{}{obj.Name, obj.Spec.PolicyName, paramRefString(obj.Spec.ParamRef), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// paramRefString is how printValidatingAdmissionPolicyBinding and
// printMutatingAdmissionPolicyBinding show a paramRef.
func paramRefString(pr *admissionregistrationv1.ParamRef) string {
	if pr == nil {
		return "<unset>"
	}
	if len(pr.Name) > 0 {
		if pr.Namespace != "" {
			return pr.Namespace + "/" + pr.Name
		}
		// Can't tell from here if param is cluster-scoped, so all
		// params without names get * namespace
		return "*/" + pr.Name
	}
	if pr.Selector != nil {
		return pr.Selector.String()
	}
	return "<unset>"
}
