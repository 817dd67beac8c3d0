package resource

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apichain/apichain/servers/core/registry"
	coreresource "github.com/apichain/apichain/servers/core/resource"
	rules "github.com/apichain/apichain/servers/core/validation"
	validation "github.com/apichain/apichain/servers/core/validation/resource"
)

// Provider is the resource.k8s.io group: the Definitions, and the checks of claims and
// templates that need the cluster (access.go), given by WithCluster.
type Provider struct {
	registry.Group
	namespaces NamespaceGetter
	authorizer authorizer.Authorizer
}

var _ registry.StorageProvider = Provider{}

// Group returns the resource.k8s.io storage provider.
func Group() Provider {
	return Provider{Group: registry.Group{GroupVersion: resourcev1.SchemeGroupVersion, AddTypes: resourcev1.AddToScheme, Definitions: definitions}}
}

// WithCluster reads namespaces through loopback (for admin access) and authorizes changes of a
// claim's status with a.
func (p Provider) WithCluster(a authorizer.Authorizer, loopback *restclient.Config) (Provider, error) {
	client, err := kubernetes.NewForConfig(loopback)
	if err != nil {
		return p, err
	}
	p.authorizer = a
	p.namespaces = func(ctx context.Context, name string) (*corev1.Namespace, error) {
		return client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	}
	return p, nil
}

// NewRESTStorage implements registry.StorageProvider.
func (p Provider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, built, err := registry.NewGroup(p.GroupVersion, scheme, codecs, optsGetter, p.Definitions...)
	if err != nil {
		return info, err
	}
	if p.namespaces == nil || p.authorizer == nil {
		return info, errors.New("resource.k8s.io: claims need the cluster's namespaces and authorizer (WithCluster)")
	}
	claims, templates := built[resourceClaims].Store, built[resourceClaimTemplates].Store
	claims.CreateStrategy = &adminCreate{CreateRules: claims.CreateStrategy.(coreresource.CreateRules), namespaces: p.namespaces,
		spec: func(obj runtime.Object) *resourcev1.ResourceClaimSpec { return &obj.(*resourcev1.ResourceClaim).Spec }}
	templates.CreateStrategy = &adminCreate{CreateRules: templates.CreateStrategy.(coreresource.CreateRules), namespaces: p.namespaces,
		spec: func(obj runtime.Object) *resourcev1.ResourceClaimSpec {
			return &obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec
		}}

	apiVersion := fieldpath.APIVersion(p.GroupVersion.String())
	info.VersionedResourcesStorageMap[p.GroupVersion.Version]["resourceclaims/status"] = coreresource.UpdateOnly(claims, &claimStatus{
		UpdateRules: claims.UpdateStrategy.(coreresource.UpdateRules),
		namespaces:  p.namespaces,
		access:      statusAccess{authorizer: p.authorizer},
		resetFields: map[fieldpath.APIVersion]*fieldpath.Set{apiVersion: fieldpath.NewSet(
			fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))},
	})
	return info, nil
}

// adminCreate checks, before the Definition's rules, that a new claim or template asks for
// admin access only in a namespace that allows it. (Its spec cannot change afterwards.)
type adminCreate struct {
	coreresource.CreateRules
	namespaces NamespaceGetter
	spec       func(runtime.Object) *resourcev1.ResourceClaimSpec
}

func (s *adminCreate) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	namespace := obj.(metav1.Object).GetNamespace()
	errs := s.namespaces.adminAccess(ctx, namespace, adminRequest(s.spec(obj)))
	return append(errs, s.CreateRules.Validate(ctx, obj)...)
}

// claimStatus is the strategy of resourceclaims/status (pkg/registry/resource/resourceclaim
// strategy.go's status strategy): only the status changes; the status of devices no longer
// allocated goes; who may write what is checked (access.go).
type claimStatus struct {
	coreresource.UpdateRules
	namespaces  NamespaceGetter
	access      statusAccess
	resetFields map[fieldpath.APIVersion]*fieldpath.Set
}

func (s *claimStatus) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	claim, was := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	claim.Spec = was.Spec
	metav1.ResetObjectMetaForStatus(&claim.ObjectMeta, &was.ObjectMeta)
	dropClaimStatusFields(&claim.Status, &was.Status)
	dropDeallocatedDevices(&claim.Status, &was.Status)
}

func (s *claimStatus) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	claim, was := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	var errs field.ErrorList
	// An allocation that granted admin access was checked when it was made.
	if adminResult(was.Status.Allocation) == nil {
		errs = s.namespaces.adminAccess(ctx, claim.Namespace, adminResult(claim.Status.Allocation))
	}
	return rules.Join(errs,
		s.access.binding(ctx, &claim.Status, &was.Status),
		s.access.devices(ctx, &claim.Status, &was.Status),
		validation.ValidateResourceClaimStatusUpdate(claim, was),
	)
}

func (s *claimStatus) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

func (s *claimStatus) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return s.resetFields }

// dropDeallocatedDevices removes the status of devices that the stored allocation had and the
// new one does not: a driver's report does not outlive the allocation it is about.
func dropDeallocatedDevices(status, old *resourcev1.ResourceClaimStatus) {
	if old.Allocation == nil {
		return
	}
	key := func(driver, pool, device, share string) string {
		return driver + "/" + pool + "/" + device + "/" + share
	}
	gone := map[string]bool{}
	for _, r := range old.Allocation.Devices.Results {
		gone[key(r.Driver, r.Pool, r.Device, shareOf(r.ShareID))] = true
	}
	if status.Allocation != nil {
		for _, r := range status.Allocation.Devices.Results {
			delete(gone, key(r.Driver, r.Pool, r.Device, shareOf(r.ShareID)))
		}
	}
	kept := status.Devices[:0]
	for _, d := range status.Devices {
		share := ""
		if d.ShareID != nil {
			share = *d.ShareID
		}
		if !gone[key(d.Driver, d.Pool, d.Device, share)] {
			kept = append(kept, d)
		}
	}
	status.Devices = kept
	if len(status.Devices) == 0 {
		status.Devices = nil
	}
}

func shareOf[T ~string](id *T) string {
	if id == nil {
		return ""
	}
	return string(*id)
}
