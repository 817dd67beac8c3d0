// Follows kubernetes pkg/printers/internalversion/printers.go
// (printValidatingWebhook, printMutatingWebhook,
// printValidatingAdmissionPolicy, printValidatingAdmissionPolicyBinding and
// their column definitions) as of kube-apiserver v1.37, on the
// admissionregistration/v1 types.

package printers

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ValidatingWebhookConfiguration prints admissionregistration/v1 ValidatingWebhookConfigurations.
var ValidatingWebhookConfiguration = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.ValidatingWebhookConfiguration) ([]interface{}, error) {
		return []interface{}{obj.Name, int64(len(obj.Webhooks)), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// MutatingWebhookConfiguration prints admissionregistration/v1 MutatingWebhookConfigurations.
var MutatingWebhookConfiguration = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.MutatingWebhookConfiguration) ([]interface{}, error) {
		return []interface{}{obj.Name, int64(len(obj.Webhooks)), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// ValidatingAdmissionPolicy prints admissionregistration/v1 ValidatingAdmissionPolicies.
var ValidatingAdmissionPolicy = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.ValidatingAdmissionPolicy) ([]interface{}, error) {
		paramKind := "<unset>"
		if obj.Spec.ParamKind != nil {
			paramKind = obj.Spec.ParamKind.APIVersion + "/" + obj.Spec.ParamKind.Kind
		}
		return []interface{}{obj.Name, int64(len(obj.Spec.Validations)), paramKind, translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// ValidatingAdmissionPolicyBinding prints admissionregistration/v1 ValidatingAdmissionPolicyBindings.
var ValidatingAdmissionPolicyBinding = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *admissionregistrationv1.ValidatingAdmissionPolicyBinding) ([]interface{}, error) {
		paramName := "<unset>"
		if pr := obj.Spec.ParamRef; pr != nil {
			if len(pr.Name) > 0 {
				if pr.Namespace != "" {
					paramName = pr.Namespace + "/" + pr.Name
				} else {
					// Can't tell from here if param is cluster-scoped, so all
					// params without names get * namespace
					paramName = "*/" + pr.Name
				}
			} else if pr.Selector != nil {
				paramName = pr.Selector.String()
			}
		}
		return []interface{}{obj.Name, obj.Spec.PolicyName, paramName, translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}
