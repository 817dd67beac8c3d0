package admissionregistration

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// What a webhook or a policy leaves unset: it matches requests for a resource in any version
// it is served in (Equivalent), in every namespace and for every object (empty selectors); a
// failure to reach or evaluate it rejects the request (Fail).

// SetDefaults_ValidatingWebhook: also, the webhook gets ten seconds to answer.
func SetDefaults_ValidatingWebhook(w *admissionv1.ValidatingWebhook) {
	fill.Nil(&w.FailurePolicy, admissionv1.Fail)
	fill.Nil(&w.MatchPolicy, admissionv1.Equivalent)
	fill.Nil(&w.NamespaceSelector, metav1.LabelSelector{})
	fill.Nil(&w.ObjectSelector, metav1.LabelSelector{})
	fill.Nil(&w.TimeoutSeconds, 10)
}

// SetDefaults_MutatingWebhook: also, ten seconds to answer, and no second call when later
// mutations change the object.
func SetDefaults_MutatingWebhook(w *admissionv1.MutatingWebhook) {
	fill.Nil(&w.FailurePolicy, admissionv1.Fail)
	fill.Nil(&w.MatchPolicy, admissionv1.Equivalent)
	fill.Nil(&w.NamespaceSelector, metav1.LabelSelector{})
	fill.Nil(&w.ObjectSelector, metav1.LabelSelector{})
	fill.Nil(&w.TimeoutSeconds, 10)
	fill.Nil(&w.ReinvocationPolicy, admissionv1.NeverReinvocationPolicy)
}

func SetDefaults_ValidatingAdmissionPolicySpec(spec *admissionv1.ValidatingAdmissionPolicySpec) {
	fill.Nil(&spec.FailurePolicy, admissionv1.Fail)
}

func SetDefaults_MutatingAdmissionPolicySpec(spec *admissionv1.MutatingAdmissionPolicySpec) {
	fill.Nil(&spec.FailurePolicy, admissionv1.Fail)
}

func SetDefaults_MatchResources(m *admissionv1.MatchResources) {
	fill.Nil(&m.MatchPolicy, admissionv1.Equivalent)
	fill.Nil(&m.NamespaceSelector, metav1.LabelSelector{})
	fill.Nil(&m.ObjectSelector, metav1.LabelSelector{})
}

// SetDefaults_Rule: a rule covers cluster-scoped and namespaced resources alike.
func SetDefaults_Rule(r *admissionv1.Rule) {
	fill.Nil(&r.Scope, admissionv1.AllScopes)
}

// SetDefaults_ServiceReference: a webhook's service listens on 443.
func SetDefaults_ServiceReference(s *admissionv1.ServiceReference) {
	fill.Nil(&s.Port, 443)
}
