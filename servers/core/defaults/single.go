package defaults

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/apichain/apichain/servers/core/defaults/admissionregistration"
	"github.com/apichain/apichain/servers/core/defaults/networking"
	"github.com/apichain/apichain/servers/core/defaults/scheduling"
	"github.com/apichain/apichain/servers/core/defaults/storage"
)

// Single objects defaulted without a scheme, for servers/core/validation's tests, which check
// objects as Core would after decoding them. Each calls its group's generated function.

func SetObjectDefaults_ValidatingWebhookConfiguration(c *admissionv1.ValidatingWebhookConfiguration) {
	admissionregistration.SetObjectDefaults_ValidatingWebhookConfiguration(c)
}

func SetObjectDefaults_MutatingWebhookConfiguration(c *admissionv1.MutatingWebhookConfiguration) {
	admissionregistration.SetObjectDefaults_MutatingWebhookConfiguration(c)
}

func SetObjectDefaults_ValidatingAdmissionPolicy(p *admissionv1.ValidatingAdmissionPolicy) {
	admissionregistration.SetObjectDefaults_ValidatingAdmissionPolicy(p)
}

func SetObjectDefaults_ValidatingAdmissionPolicyBinding(b *admissionv1.ValidatingAdmissionPolicyBinding) {
	admissionregistration.SetObjectDefaults_ValidatingAdmissionPolicyBinding(b)
}

func SetObjectDefaults_MutatingAdmissionPolicy(p *admissionv1.MutatingAdmissionPolicy) {
	admissionregistration.SetObjectDefaults_MutatingAdmissionPolicy(p)
}

func SetObjectDefaults_NetworkPolicy(np *networkingv1.NetworkPolicy) {
	networking.SetObjectDefaults_NetworkPolicy(np)
}

func SetObjectDefaults_IngressClass(ic *networkingv1.IngressClass) {
	networking.SetObjectDefaults_IngressClass(ic)
}

func SetObjectDefaults_StorageClass(sc *storagev1.StorageClass) {
	storage.SetObjectDefaults_StorageClass(sc)
}

func SetObjectDefaults_PriorityClass(pc *schedulingv1.PriorityClass) {
	scheduling.SetObjectDefaults_PriorityClass(pc)
}
