package admission

import (
	"io"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	mutatingadmissionpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingadmissionpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	webhookinit "k8s.io/apiserver/pkg/admission/plugin/webhook/initializer"
	mutatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	validatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	storagev1listers "k8s.io/client-go/listers/storage/v1"
)

// OrderedPlugins is kube-apiserver's plugin order (kubernetes
// pkg/kubeapiserver/options/plugins.go AllOrderedPlugins) restricted to the plugins the chain
// has, all of them on as in kube-apiserver by default. Not among them: LimitRanger,
// ResourceQuota, ServiceAccount, PodSecurity, RuntimeClass and the other defaults whose
// resources or controllers the chain does not have. First, before kube's: the chain's own
// NumericResourceVersion, a deliberate departure that turns a 500 into a 422 (resourceversion.go).
var OrderedPlugins = []string{
	NumericResourceVersionPluginName,        // the chain's own, not kube-apiserver's
	lifecycle.PluginName,                    // NamespaceLifecycle
	TaintNodesByConditionPluginName,         // TaintNodesByCondition
	PriorityPluginName,                      // Priority
	DefaultTolerationSecondsPluginName,      // DefaultTolerationSeconds
	DefaultStorageClassPluginName,           // DefaultStorageClass
	StorageObjectInUseProtectionPluginName,  // StorageObjectInUseProtection
	PersistentVolumeClaimResizePluginName,   // PersistentVolumeClaimResize
	CertificateApprovalPluginName,           // CertificateApproval
	CertificateSigningPluginName,            // CertificateSigning
	ClusterTrustBundleAttestPluginName,      // ClusterTrustBundleAttest
	CertificateSubjectRestrictionPluginName, // CertificateSubjectRestriction
	DefaultIngressClassPluginName,           // DefaultIngressClass

	// webhook and policy plugins go at the end
	mutatingadmissionpolicy.PluginName,   // MutatingAdmissionPolicy
	mutatingwebhook.PluginName,           // MutatingAdmissionWebhook
	validatingadmissionpolicy.PluginName, // ValidatingAdmissionPolicy
	validatingwebhook.PluginName,         // ValidatingAdmissionWebhook
}

// Register registers the chain's plugins (k8s.io/apiserver's own, NamespaceLifecycle, the
// policies and the webhooks, come with genericoptions.NewAdmissionOptions). Those that read
// the cluster read it from informers of factory, which they ask for when they are built.
func Register(plugins *admission.Plugins, factory informers.SharedInformerFactory) {
	storageClasses := func() storagev1listers.StorageClassLister { return factory.Storage().V1().StorageClasses().Lister() }
	for name, plugin := range map[string]func() admission.Interface{
		NumericResourceVersionPluginName:        func() admission.Interface { return NewNumericResourceVersion() },
		TaintNodesByConditionPluginName:         func() admission.Interface { return NewTaintNodesByCondition() },
		PriorityPluginName:                      func() admission.Interface { return NewPriority(factory.Scheduling().V1().PriorityClasses().Lister()) },
		DefaultTolerationSecondsPluginName:      func() admission.Interface { return NewDefaultTolerationSeconds() },
		DefaultStorageClassPluginName:           func() admission.Interface { return NewDefaultStorageClass(storageClasses()) },
		StorageObjectInUseProtectionPluginName:  func() admission.Interface { return NewStorageObjectInUseProtection() },
		PersistentVolumeClaimResizePluginName:   func() admission.Interface { return NewPersistentVolumeClaimResize(storageClasses()) },
		CertificateApprovalPluginName:           func() admission.Interface { return NewCertificateApproval() },
		CertificateSigningPluginName:            func() admission.Interface { return NewCertificateSigning() },
		ClusterTrustBundleAttestPluginName:      func() admission.Interface { return NewClusterTrustBundleAttest() },
		CertificateSubjectRestrictionPluginName: func() admission.Interface { return NewCertificateSubjectRestriction() },
		DefaultIngressClassPluginName: func() admission.Interface {
			return NewDefaultIngressClass(factory.Networking().V1().IngressClasses().Lister())
		},
	} {
		plugins.Register(name, func(io.Reader) (admission.Interface, error) { return plugin(), nil })
	}
}

// isResource: the request is about resource itself, not one of its subresources.
func isResource(a admission.Attributes, resource schema.GroupResource) bool {
	return a.GetResource().GroupResource() == resource && a.GetSubresource() == ""
}

// Initializers are what kube-apiserver adds to the generic plugin initializer
// (kubernetes pkg/controlplane/apiserver/admission/config.go): the webhook initializer, whose
// calls to a Service go to the address serviceResolver finds, dialed with proxyTransport's
// dialer, and the list of resources webhooks and policies never see. Webhooks served by the
// apiserver itself (kubernetes.default.svc) are called with c's loopback client configuration.
func Initializers(c *genericapiserver.Config, serviceResolver webhook.ServiceResolver, proxyTransport *http.Transport) []admission.PluginInitializer {
	authResolverWrapper := webhook.NewDefaultAuthenticationInfoResolverWrapper(proxyTransport, c.EgressSelector, c.LoopbackClientConfig, c.TracerProvider)
	return []admission.PluginInitializer{
		webhookinit.NewPluginInitializer(authResolverWrapper, serviceResolver),
		excludedResources(Excluded()),
	}
}

// excludedResources initializes the plugins that skip some resources (the webhooks and the
// policies), as kubernetes pkg/controlplane/apiserver/admission/initializer.go does.
type excludedResources []schema.GroupResource

func (e excludedResources) Initialize(plugin admission.Interface) {
	if wants, ok := plugin.(initializer.WantsExcludedAdmissionResources); ok {
		wants.SetExcludedAdmissionResources(e)
	}
}

// Excluded are the resources that webhooks and policies never see: the reviews, which are
// not stored and which webhooks could otherwise break the cluster with (kubernetes
// pkg/kubeapiserver/admission/exclusion/resources.go).
func Excluded() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
	}
}
