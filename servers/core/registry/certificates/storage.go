// Package certificates is the certificates.k8s.io API group of the Core server, following kubernetes
// pkg/registry/certificates: CertificateSigningRequests with their /status and /approval
// subresources (pkg/registry/certificates/certificates), ClusterTrustBundles, and
// PodCertificateRequests with their /status (podcertificates.go). No signer runs in the chain: a
// request is approved or denied through /approval, and a certificate is set through /status by
// whoever signs it.
package certificates

import (
	"context"
	"errors"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
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

// clusterTrustBundles follow pkg/registry/certificates/clustertrustbundle: no status; an update
// names the resourceVersion it replaces. Who may publish a bundle for a signer is admission's
// (ClusterTrustBundleAttest).
var clusterTrustBundles = &resource.Definition{
	Resource: "clustertrustbundles", Singular: "clustertrustbundle",
	New:                    func() runtime.Object { return &certificatesv1.ClusterTrustBundle{} },
	NewList:                func() runtime.Object { return &certificatesv1.ClusterTrustBundleList{} },
	Table:                  printers.ClusterTrustBundle,
	ConditionalUpdatesOnly: true,
	FieldSelectors:         []string{"spec.signerName"},
	Fields: resource.FieldsOf(func(b *certificatesv1.ClusterTrustBundle) fields.Set {
		return fields.Set{"spec.signerName": b.Spec.SignerName}
	}),
	Validate:       resource.Check(csrvalidation.ValidateClusterTrustBundle),
	ValidateUpdate: resource.CheckUpdate(csrvalidation.ValidateClusterTrustBundleUpdate),
}

// Provider is the certificates.k8s.io group: the plain Definitions plus the subresources with
// their own strategies, one of which (a pod certificate's /status) asks the authorizer.
type Provider struct {
	registry.Group
	authorizer authorizer.Authorizer
}

var _ registry.StorageProvider = Provider{}

// Group returns the certificates.k8s.io storage provider.
func Group() Provider {
	return Provider{Group: registry.Group{GroupVersion: certificatesv1.SchemeGroupVersion, AddTypes: certificatesv1.AddToScheme,
		Definitions: []*resource.Definition{csrs, clusterTrustBundles, podCertificateRequests}}}
}

// WithAuthorizer checks with a that whoever answers a PodCertificateRequest may sign for its
// signer.
func (p Provider) WithAuthorizer(a authorizer.Authorizer) Provider {
	p.authorizer = a
	return p
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

	if p.authorizer == nil {
		return info, errors.New("certificates.k8s.io: pod certificate requests need an authorizer (WithAuthorizer)")
	}
	requests := built[podCertificateRequests].Store
	m["podcertificaterequests/status"] = resource.UpdateOnly(requests, &podCertificateAnswer{
		mainStrategy: requests.UpdateStrategy.(mainStrategy),
		ignoring:     resetFields(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec")),
		authorizer:   p.authorizer,
	})
	return info, nil
}
