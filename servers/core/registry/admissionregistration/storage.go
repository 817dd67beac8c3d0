// Package admissionregistration is the admissionregistration.k8s.io API group of the Core server,
// following kubernetes pkg/registry/admissionregistration: webhook configurations, validating and
// mutating admission policies and their bindings. The admission plugins that act on them are
// k8s.io/apiserver's, wired in servers/chain.
package admissionregistration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	admissionvalidation "github.com/apichain/apichain/servers/core/validation/admissionregistration"
)

// Generation of the webhook configurations counts changes of the webhooks
// (validatingwebhookconfiguration/strategy.go); that of the policies and bindings changes of
// the spec. Both are what Definition.Generation counts.

var validatingWebhookConfigurations = &resource.Definition{
	Resource: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration",
	New:            func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
	NewList:        func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfigurationList{} },
	Categories:     []string{"api-extensions"},
	Table:          printers.ValidatingWebhookConfiguration,
	Generation:     true,
	Validate:       resource.Check(admissionvalidation.ValidateValidatingWebhookConfiguration),
	ValidateUpdate: resource.CheckUpdate(admissionvalidation.ValidateValidatingWebhookConfigurationUpdate),
}

var mutatingWebhookConfigurations = &resource.Definition{
	Resource: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration",
	New:            func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} },
	NewList:        func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfigurationList{} },
	Categories:     []string{"api-extensions"},
	Table:          printers.MutatingWebhookConfiguration,
	Generation:     true,
	Validate:       resource.Check(admissionvalidation.ValidateMutatingWebhookConfiguration),
	ValidateUpdate: resource.CheckUpdate(admissionvalidation.ValidateMutatingWebhookConfigurationUpdate),
}

// validatingAdmissionPolicies have a /status written by the type-checking controller of
// kube-controller-manager (not part of the chain).
var validatingAdmissionPolicies = &resource.Definition{
	Resource: "validatingadmissionpolicies", Singular: "validatingadmissionpolicy",
	New:                  func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} },
	NewList:              func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyList{} },
	Categories:           []string{"api-extensions"},
	Table:                printers.ValidatingAdmissionPolicy,
	Status:               true,
	Generation:           true,
	Validate:             resource.Check(admissionvalidation.ValidateValidatingAdmissionPolicy),
	ValidateUpdate:       resource.CheckUpdate(admissionvalidation.ValidateValidatingAdmissionPolicyUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(admissionvalidation.ValidateValidatingAdmissionPolicyStatusUpdate),
}

var validatingAdmissionPolicyBindings = &resource.Definition{
	Resource: "validatingadmissionpolicybindings", Singular: "validatingadmissionpolicybinding",
	New:            func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} },
	NewList:        func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{} },
	Categories:     []string{"api-extensions"},
	Table:          printers.ValidatingAdmissionPolicyBinding,
	Generation:     true,
	Validate:       resource.Check(admissionvalidation.ValidateValidatingAdmissionPolicyBinding),
	ValidateUpdate: resource.CheckUpdate(admissionvalidation.ValidateValidatingAdmissionPolicyBindingUpdate),
}

var mutatingAdmissionPolicies = &resource.Definition{
	Resource: "mutatingadmissionpolicies", Singular: "mutatingadmissionpolicy",
	New:            func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicy{} },
	NewList:        func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyList{} },
	Categories:     []string{"api-extensions"},
	Table:          printers.MutatingAdmissionPolicy,
	Generation:     true,
	Validate:       resource.Check(admissionvalidation.ValidateMutatingAdmissionPolicy),
	ValidateUpdate: resource.CheckUpdate(admissionvalidation.ValidateMutatingAdmissionPolicyUpdate),
}

var mutatingAdmissionPolicyBindings = &resource.Definition{
	Resource: "mutatingadmissionpolicybindings", Singular: "mutatingadmissionpolicybinding",
	New:            func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBinding{} },
	NewList:        func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBindingList{} },
	Categories:     []string{"api-extensions"},
	Table:          printers.MutatingAdmissionPolicyBinding,
	Generation:     true,
	Validate:       resource.Check(admissionvalidation.ValidateMutatingAdmissionPolicyBinding),
	ValidateUpdate: resource.CheckUpdate(admissionvalidation.ValidateMutatingAdmissionPolicyBindingUpdate),
}

// definitions are the group's resources, each declared once, in kube-apiserver's order.
var definitions = []*resource.Definition{
	validatingWebhookConfigurations, mutatingWebhookConfigurations,
	validatingAdmissionPolicies, validatingAdmissionPolicyBindings,
	mutatingAdmissionPolicies, mutatingAdmissionPolicyBindings,
}

// Provider is the admissionregistration.k8s.io group. With an authorizer (WithAuthorizer), the
// policies and bindings check that their author may read the parameters they name, as
// kube-apiserver's strategies do (authz.go of each).
type Provider struct {
	registry.Group
	authorizer authorizer.Authorizer
	loopback   *rest.Config
}

var _ registry.StorageProvider = Provider{}

// Group returns the admissionregistration.k8s.io storage provider.
func Group() Provider {
	return Provider{Group: registry.Group{GroupVersion: admissionregistrationv1.SchemeGroupVersion, AddTypes: admissionregistrationv1.AddToScheme, Definitions: definitions}}
}

// WithAuthorizer makes the policies and bindings authorize their paramKind and paramRef with a,
// resolving kinds to resources through discovery on loopback.
func (p Provider) WithAuthorizer(a authorizer.Authorizer, loopback *rest.Config) Provider {
	p.authorizer, p.loopback = a, loopback
	return p
}

// NewRESTStorage implements registry.StorageProvider.
func (p Provider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, built, err := registry.NewGroup(p.GroupVersion, scheme, codecs, optsGetter, p.Definitions...)
	if err != nil || p.authorizer == nil {
		return info, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(p.loopback)
	if err != nil {
		return info, err
	}
	a := &paramAuthorizer{authorizer: p.authorizer, discovery: dc}
	getPolicy := func(store *genericregistry.Store) func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error) {
		return func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error) {
			obj, err := store.Get(ctx, name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			switch policy := obj.(type) {
			case *admissionregistrationv1.ValidatingAdmissionPolicy:
				return policy.Spec.ParamKind, nil
			case *admissionregistrationv1.MutatingAdmissionPolicy:
				return policy.Spec.ParamKind, nil
			}
			return nil, nil
		}
	}
	a.wrap(built[validatingAdmissionPolicies].Store, policyParamKind(func(obj runtime.Object) *admissionregistrationv1.ParamKind {
		return obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.ParamKind
	}))
	a.wrap(built[mutatingAdmissionPolicies].Store, policyParamKind(func(obj runtime.Object) *admissionregistrationv1.ParamKind {
		return obj.(*admissionregistrationv1.MutatingAdmissionPolicy).Spec.ParamKind
	}))
	a.wrap(built[validatingAdmissionPolicyBindings].Store, bindingParamRef(getPolicy(built[validatingAdmissionPolicies].Store),
		func(obj runtime.Object) (string, *admissionregistrationv1.ParamRef) {
			b := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
			return b.Spec.PolicyName, b.Spec.ParamRef
		}, false))
	a.wrap(built[mutatingAdmissionPolicyBindings].Store, bindingParamRef(getPolicy(built[mutatingAdmissionPolicies].Store),
		func(obj runtime.Object) (string, *admissionregistrationv1.ParamRef) {
			b := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
			return b.Spec.PolicyName, b.Spec.ParamRef
		}, true))
	return info, nil
}
