// Package certificates is the certificates.k8s.io API group of the Core server, following kubernetes
// pkg/registry/certificates: CertificateSigningRequests with their /status and /approval
// subresources (pkg/registry/certificates/certificates). No signer runs in the chain: a request
// is approved or denied through /approval, and a certificate is set through /status by
// whoever signs it.
package certificates

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	csrvalidation "github.com/apichain/apichain/servers/core/validation/certificates"
)

// csrs follows pkg/registry/certificates/certificates/strategy.go: the requester's identity
// comes from the request, never from the object; spec and status do not change through the
// main resource.
var csrs = &resource.Definition{
	Resource: "certificatesigningrequests", Singular: "certificatesigningrequest",
	New:            func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
	NewList:        func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
	ShortNames:     []string{"csr"},
	Table:          printers.CertificateSigningRequest,
	FieldSelectors: []string{"spec.signerName"},
	Fields: resource.FieldsOf(func(csr *certificatesv1.CertificateSigningRequest) fields.Set {
		return fields.Set{"spec.signerName": csr.Spec.SignerName}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		csr := obj.(*certificatesv1.CertificateSigningRequest)
		csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
		if user, ok := request.UserFrom(ctx); ok {
			csr.Spec.Username = user.GetName()
			csr.Spec.UID = user.GetUID()
			csr.Spec.Groups = user.GetGroups()
			if extra := user.GetExtra(); len(extra) > 0 {
				csr.Spec.Extra = map[string]certificatesv1.ExtraValue{}
				for k, v := range extra {
					csr.Spec.Extra[k] = v
				}
			}
		}
		csr.Status = certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{}}
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
		csr.Spec = oldCSR.Spec
		csr.Status = oldCSR.Status
	},
	Validate:       resource.Check(csrvalidation.ValidateCertificateSigningRequest),
	ValidateUpdate: resource.CheckUpdate(csrvalidation.ValidateCertificateSigningRequestUpdate),
}

// Provider is the certificates.k8s.io group: the plain Definition plus the two subresources
// with their own strategies.
type Provider struct{ registry.Group }

var _ registry.StorageProvider = Provider{}

// Group returns the certificates.k8s.io storage provider.
func Group() Provider {
	return Provider{registry.Group{GroupVersion: certificatesv1.SchemeGroupVersion, AddTypes: certificatesv1.AddToScheme,
		Definitions: []*resource.Definition{csrs}}}
}

// NewRESTStorage implements registry.StorageProvider.
func (p Provider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, built, err := registry.NewGroup(p.GroupVersion, scheme, codecs, optsGetter, p.Definitions...)
	if err != nil {
		return info, err
	}
	store := built[csrs].Store
	apiVersion := fieldpath.APIVersion(p.GroupVersion.String())
	resetFields := func(paths ...fieldpath.Path) map[fieldpath.APIVersion]*fieldpath.Set {
		return map[fieldpath.APIVersion]*fieldpath.Set{apiVersion: fieldpath.NewSet(paths...)}
	}
	store.ResetFieldsStrategy = ignoring(resetFields(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status")))

	m := info.VersionedResourcesStorageMap[p.GroupVersion.Version]
	m["certificatesigningrequests/status"] = resource.UpdateOnly(store, &csrUpdates{
		mainStrategy: store.UpdateStrategy.(mainStrategy),
		keep:         keepForStatus,
		validate:     csrvalidation.ValidateCertificateSigningRequestStatusUpdate,
		ignoring:     resetFields(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status", "conditions")),
	})
	m["certificatesigningrequests/approval"] = resource.UpdateOnly(store, &csrUpdates{
		mainStrategy: store.UpdateStrategy.(mainStrategy),
		keep:         keepForApproval,
		validate:     csrvalidation.ValidateCertificateSigningRequestApprovalUpdate,
		ignoring:     resetFields(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("status", "certificate")),
	})
	return info, nil
}
