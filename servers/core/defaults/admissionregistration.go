package defaults

// Defaults for admissionregistration.k8s.io/v1, ported from kubernetes v1.37.2
// pkg/apis/admissionregistration/v1/defaults.go and zz_generated.defaults.go.
// RegisterAdmissionregistrationDefaults is called by the group's AddToScheme
// (servers/core/registry/admissionregistration), next to its types.

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterAdmissionregistrationDefaults adds the defaulting funcs of admissionregistration/v1.
func RegisterAdmissionregistrationDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingAdmissionPolicy{}, func(obj interface{}) {
		SetObjectDefaults_MutatingAdmissionPolicy(obj.(*admissionregistrationv1.MutatingAdmissionPolicy))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingAdmissionPolicyList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.MutatingAdmissionPolicyList).Items {
			SetObjectDefaults_MutatingAdmissionPolicy(&obj.(*admissionregistrationv1.MutatingAdmissionPolicyList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingAdmissionPolicyBinding{}, func(obj interface{}) {
		SetObjectDefaults_MutatingAdmissionPolicyBinding(obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingAdmissionPolicyBindingList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.MutatingAdmissionPolicyBindingList).Items {
			SetObjectDefaults_MutatingAdmissionPolicyBinding(&obj.(*admissionregistrationv1.MutatingAdmissionPolicyBindingList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingWebhookConfiguration{}, func(obj interface{}) {
		SetObjectDefaults_MutatingWebhookConfiguration(obj.(*admissionregistrationv1.MutatingWebhookConfiguration))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.MutatingWebhookConfigurationList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.MutatingWebhookConfigurationList).Items {
			SetObjectDefaults_MutatingWebhookConfiguration(&obj.(*admissionregistrationv1.MutatingWebhookConfigurationList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingAdmissionPolicy{}, func(obj interface{}) {
		SetObjectDefaults_ValidatingAdmissionPolicy(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingAdmissionPolicyList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.ValidatingAdmissionPolicyList).Items {
			SetObjectDefaults_ValidatingAdmissionPolicy(&obj.(*admissionregistrationv1.ValidatingAdmissionPolicyList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, func(obj interface{}) {
		SetObjectDefaults_ValidatingAdmissionPolicyBinding(obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingAdmissionPolicyBindingList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBindingList).Items {
			SetObjectDefaults_ValidatingAdmissionPolicyBinding(&obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBindingList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingWebhookConfiguration{}, func(obj interface{}) {
		SetObjectDefaults_ValidatingWebhookConfiguration(obj.(*admissionregistrationv1.ValidatingWebhookConfiguration))
	})
	scheme.AddTypeDefaultingFunc(&admissionregistrationv1.ValidatingWebhookConfigurationList{}, func(obj interface{}) {
		for i := range obj.(*admissionregistrationv1.ValidatingWebhookConfigurationList).Items {
			SetObjectDefaults_ValidatingWebhookConfiguration(&obj.(*admissionregistrationv1.ValidatingWebhookConfigurationList).Items[i])
		}
	})
	return nil
}

// SetDefaults_ValidatingWebhook sets defaults for a validating webhook.
func SetDefaults_ValidatingWebhook(obj *admissionregistrationv1.ValidatingWebhook) {
	if obj.FailurePolicy == nil {
		obj.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	if obj.MatchPolicy == nil {
		obj.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if obj.NamespaceSelector == nil {
		obj.NamespaceSelector = &metav1.LabelSelector{}
	}
	if obj.ObjectSelector == nil {
		obj.ObjectSelector = &metav1.LabelSelector{}
	}
	if obj.TimeoutSeconds == nil {
		obj.TimeoutSeconds = ptr.To[int32](10)
	}
}

// SetDefaults_MutatingWebhook sets defaults for a mutating webhook.
func SetDefaults_MutatingWebhook(obj *admissionregistrationv1.MutatingWebhook) {
	if obj.FailurePolicy == nil {
		obj.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	if obj.MatchPolicy == nil {
		obj.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if obj.NamespaceSelector == nil {
		obj.NamespaceSelector = &metav1.LabelSelector{}
	}
	if obj.ObjectSelector == nil {
		obj.ObjectSelector = &metav1.LabelSelector{}
	}
	if obj.TimeoutSeconds == nil {
		obj.TimeoutSeconds = ptr.To[int32](10)
	}
	if obj.ReinvocationPolicy == nil {
		obj.ReinvocationPolicy = ptr.To(admissionregistrationv1.NeverReinvocationPolicy)
	}
}

// SetDefaults_Rule sets the scope of a webhook or policy rule.
func SetDefaults_Rule(obj *admissionregistrationv1.Rule) {
	if obj.Scope == nil {
		obj.Scope = ptr.To(admissionregistrationv1.AllScopes)
	}
}

// SetDefaults_ServiceReference sets the port of a webhook's service.
func SetDefaults_ServiceReference(obj *admissionregistrationv1.ServiceReference) {
	if obj.Port == nil {
		obj.Port = ptr.To[int32](443)
	}
}

// SetDefaults_MatchResources sets defaults for a policy's or binding's MatchResources.
func SetDefaults_MatchResources(obj *admissionregistrationv1.MatchResources) {
	if obj.MatchPolicy == nil {
		obj.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if obj.NamespaceSelector == nil {
		obj.NamespaceSelector = &metav1.LabelSelector{}
	}
	if obj.ObjectSelector == nil {
		obj.ObjectSelector = &metav1.LabelSelector{}
	}
}

func setMatchResourcesDefaults(mr *admissionregistrationv1.MatchResources) {
	if mr == nil {
		return
	}
	SetDefaults_MatchResources(mr)
	for i := range mr.ResourceRules {
		SetDefaults_Rule(&mr.ResourceRules[i].Rule)
	}
	for i := range mr.ExcludeResourceRules {
		SetDefaults_Rule(&mr.ExcludeResourceRules[i].Rule)
	}
}

// SetObjectDefaults_MutatingAdmissionPolicy defaults a MutatingAdmissionPolicy.
func SetObjectDefaults_MutatingAdmissionPolicy(in *admissionregistrationv1.MutatingAdmissionPolicy) {
	if in.Spec.FailurePolicy == nil {
		in.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	setMatchResourcesDefaults(in.Spec.MatchConstraints)
}

// SetObjectDefaults_MutatingAdmissionPolicyBinding defaults a MutatingAdmissionPolicyBinding.
func SetObjectDefaults_MutatingAdmissionPolicyBinding(in *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	setMatchResourcesDefaults(in.Spec.MatchResources)
}

// SetObjectDefaults_ValidatingAdmissionPolicy defaults a ValidatingAdmissionPolicy.
func SetObjectDefaults_ValidatingAdmissionPolicy(in *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if in.Spec.FailurePolicy == nil {
		in.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	setMatchResourcesDefaults(in.Spec.MatchConstraints)
}

// SetObjectDefaults_ValidatingAdmissionPolicyBinding defaults a ValidatingAdmissionPolicyBinding.
func SetObjectDefaults_ValidatingAdmissionPolicyBinding(in *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	setMatchResourcesDefaults(in.Spec.MatchResources)
}

// SetObjectDefaults_MutatingWebhookConfiguration defaults a MutatingWebhookConfiguration.
func SetObjectDefaults_MutatingWebhookConfiguration(in *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range in.Webhooks {
		a := &in.Webhooks[i]
		SetDefaults_MutatingWebhook(a)
		if a.ClientConfig.Service != nil {
			SetDefaults_ServiceReference(a.ClientConfig.Service)
		}
		for j := range a.Rules {
			SetDefaults_Rule(&a.Rules[j].Rule)
		}
	}
}

// SetObjectDefaults_ValidatingWebhookConfiguration defaults a ValidatingWebhookConfiguration.
func SetObjectDefaults_ValidatingWebhookConfiguration(in *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range in.Webhooks {
		a := &in.Webhooks[i]
		SetDefaults_ValidatingWebhook(a)
		if a.ClientConfig.Service != nil {
			SetDefaults_ServiceReference(a.ClientConfig.Service)
		}
		for j := range a.Rules {
			SetDefaults_Rule(&a.Rules[j].Rule)
		}
	}
}
