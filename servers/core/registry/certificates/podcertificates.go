package certificates

// PodCertificateRequests (pkg/registry/certificates/podcertificaterequest): a kubelet asks for a
// pod's certificate; the request never changes but for its status, which the signer writes once
// through /status, and only a writer allowed to "sign" for the request's signer may.

import (
	"context"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	csrvalidation "github.com/apichain/apichain/servers/core/validation/certificates"
)

type podCertificate = certificatesv1.PodCertificateRequest

// podCertificateRequests: a status only the signer writes (podCertificateAnswer, below), field
// selectors for the signer, pod and node, and updates that name the resourceVersion they replace.
var podCertificateRequests = &resource.Definition{
	Resource: "podcertificaterequests", Singular: "podcertificaterequest", Namespaced: true,
	New:                    func() runtime.Object { return &podCertificate{} },
	NewList:                func() runtime.Object { return &certificatesv1.PodCertificateRequestList{} },
	Table:                  printers.PodCertificateRequest,
	Status:                 true,
	ConditionalUpdatesOnly: true,
	FieldSelectors:         []string{"spec.signerName", "spec.podName", "spec.nodeName"},
	Fields: resource.FieldsOf(func(r *podCertificate) fields.Set {
		return fields.Set{"spec.signerName": r.Spec.SignerName, "spec.podName": r.Spec.PodName, "spec.nodeName": string(r.Spec.NodeName)}
	}),
	Validate:       resource.Check(csrvalidation.ValidatePodCertificateRequest),
	ValidateUpdate: resource.CheckUpdate(csrvalidation.ValidatePodCertificateRequestUpdate),
}

// podCertificateAnswer is the strategy of podcertificaterequests/status: only the status
// changes, and a change is the signer's to make.
type podCertificateAnswer struct {
	mainStrategy
	ignoring
	authorizer authorizer.Authorizer
}

func (s *podCertificateAnswer) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	r, was := obj.(*podCertificate), old.(*podCertificate)
	r.Spec = was.Spec
	metav1.ResetObjectMetaForStatus(&r.ObjectMeta, &was.ObjectMeta)
}

func (s *podCertificateAnswer) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	r, was := obj.(*podCertificate), old.(*podCertificate)
	if errs := csrvalidation.ValidatePodCertificateRequestStatusUpdate(r, was); len(errs) > 0 || equality.Semantic.DeepEqual(r.Status, was.Status) {
		return errs
	}
	signer := field.NewPath("spec", "signerName")
	u, ok := request.UserFrom(ctx)
	if !ok {
		return field.ErrorList{field.InternalError(signer, fmt.Errorf(`cannot determine calling user to perform "sign" check`))}
	}
	if !mayFor(ctx, s.authorizer, u, "sign", was.Spec.SignerName) {
		return field.ErrorList{field.Forbidden(signer, fmt.Sprintf("User %q is not permitted to \"sign\" for signer %q", u.GetName(), was.Spec.SignerName))}
	}
	return nil
}

func (s *podCertificateAnswer) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// mayFor: whether u may do verb on the synthetic resource signers, for the signer or for every
// signer of its domain ("example.com/*"), as kubernetes pkg/certauthorization decides.
func mayFor(ctx context.Context, a authorizer.Authorizer, u user.Info, verb, signer string) bool {
	domain, _, _ := strings.Cut(signer, "/")
	for _, name := range []string{signer, domain + "/*"} {
		decision, _, err := a.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: verb, Name: name,
			APIGroup: certificatesv1.GroupName, APIVersion: "*", Resource: "signers", ResourceRequest: true})
		if err == nil && decision == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}
