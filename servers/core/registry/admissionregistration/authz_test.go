package admissionregistration

// Ported from kubernetes v1.37.2 pkg/registry/admissionregistration/
// {validatingadmissionpolicy,validatingadmissionpolicybinding}/authz_test.go: what a policy's
// paramKind and a binding's paramRef require of their author.

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

// attributesAuthorizer allows what allow says.
type attributesAuthorizer func(a authorizer.Attributes) bool

func (f attributesAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if f(a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionDeny, "", nil
}

func newParamAuthorizer(allow func(authorizer.Attributes) bool) *paramAuthorizer {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	d.Resources = []*metav1.APIResourceList{{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "configs", Kind: "Config"}}}}
	return &paramAuthorizer{authorizer: attributesAuthorizer(allow), discovery: d}
}

func TestPolicyParamKindAuthorization(t *testing.T) {
	kind := func(obj runtime.Object) *admissionregistrationv1.ParamKind {
		return obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.ParamKind
	}
	policy := func(pk *admissionregistrationv1.ParamKind) *admissionregistrationv1.ValidatingAdmissionPolicy {
		return &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{ParamKind: pk}}
	}
	config := &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Config"}
	bob := &user.DefaultInfo{Name: "bob"}
	getConfigs := func(a authorizer.Attributes) bool {
		return a.GetVerb() == "get" && a.GetResource() == "configs" && a.GetAPIGroup() == "example.com" && a.GetName() == "*" && a.GetNamespace() == "*"
	}
	cases := []struct {
		name    string
		user    user.Info
		allow   func(authorizer.Attributes) bool
		obj     runtime.Object
		old     runtime.Object
		wantErr string
	}{
		{"no paramKind", bob, func(authorizer.Attributes) bool { return false }, policy(nil), nil, ""},
		{"allowed", bob, getConfigs, policy(config), nil, ""},
		{"denied", bob, func(authorizer.Attributes) bool { return false }, policy(config), nil,
			`user &{bob  [] map[]} must have "get" permission on all objects of the referenced paramKind (kind=Config, apiVersion=example.com/v1)`},
		{"system:masters is not checked", &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}, func(authorizer.Attributes) bool { return false }, policy(config), nil, ""},
		{"unchanged paramKind on update", bob, func(authorizer.Attributes) bool { return false }, policy(config), policy(config), ""},
	}
	for _, tc := range cases {
		ctx := genericapirequest.WithUser(context.Background(), tc.user)
		_, err := policyParamKind(kind)(ctx, newParamAuthorizer(tc.allow), tc.obj, tc.old)
		if got := errString(err); got != tc.wantErr {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.wantErr)
		}
	}
}

func TestBindingParamRefAuthorization(t *testing.T) {
	ref := func(obj runtime.Object) (string, *admissionregistrationv1.ParamRef) {
		b := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
		return b.Spec.PolicyName, b.Spec.ParamRef
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "p", ParamRef: &admissionregistrationv1.ParamRef{Name: "c1", Namespace: "ns"}}}
	selecting := binding.DeepCopy()
	selecting.Spec.ParamRef = &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, Namespace: "ns"}
	policyKind := func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error) {
		return &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Config"}, nil
	}
	bob := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "bob"})
	cases := []struct {
		name     string
		mutating bool
		allow    func(authorizer.Attributes) bool
		obj      runtime.Object
		wantErr  string
	}{
		{"get allowed", false, func(a authorizer.Attributes) bool {
			return a.GetVerb() == "get" && a.GetResource() == "configs" && a.GetName() == "c1" && a.GetNamespace() == "ns"
		}, binding, ""},
		{"list for a selector", false, func(a authorizer.Attributes) bool { return a.GetVerb() == "list" && a.GetResource() == "configs" }, selecting, ""},
		{"denied", false, func(authorizer.Attributes) bool { return false }, binding, `user &{bob  [] map[]} does not have "get" permission on the object referenced by paramRef`},
		{"denied, mutating binding's message", true, func(authorizer.Attributes) bool { return false }, binding, `user get does not have "&{bob  [] map[]}" permission on the object referenced by paramRef`},
	}
	for _, tc := range cases {
		_, err := bindingParamRef(policyKind, ref, tc.mutating)(bob, newParamAuthorizer(tc.allow), tc.obj, nil)
		if got := errString(err); got != tc.wantErr {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.wantErr)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
