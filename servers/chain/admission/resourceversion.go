package admission

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
)

// NumericResourceVersionPluginName names the chain's own plugin; kube-apiserver has no such plugin.
const NumericResourceVersionPluginName = "NumericResourceVersion"

// NumericResourceVersion rejects a write whose object carries a metadata.resourceVersion that
// is not a number, with 422 Invalid on metadata.resourceVersion.
//
// It is a deliberate departure from kube-apiserver, which answers such an update 500
// (kubernetes/kubernetes#68202): k8s.io/apiserver's registry Store.Update parses the new
// object's resourceVersion (Versioner().ObjectResourceVersion, a bare strconv.ParseUint) and
// returns the parse error as is, which the handler turns into an InternalError. Mutating
// admission runs inside Store.Update just before that parse (it is one of the update's
// rest.TransformFuncs, applied by objInfo.UpdatedObject), and it runs on every server of the
// chain, so this plugin, first in the order, catches it for built-ins, custom resources and
// APIServices alike, for updates and for patches.
//
// A create through POST is left alone: storage ignores a resourceVersion it cannot parse there
// and kube-apiserver creates the object. A create through an update or an apply (PUT or PATCH of
// an object that does not exist yet) is parsed by Store.Update first, so it is checked too.
type NumericResourceVersion struct {
	*admission.Handler
}

var _ admission.MutationInterface = &NumericResourceVersion{}

// NewNumericResourceVersion creates the plugin.
func NewNumericResourceVersion() *NumericResourceVersion {
	return &NumericResourceVersion{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// Admit rejects an object whose resourceVersion storage cannot parse. It mutates nothing; it is
// a mutating plugin because validating admission runs only after Store.Update's parse.
func (p *NumericResourceVersion) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetOperation() == admission.Create && !throughUpdate(ctx) {
		return nil
	}
	obj := a.GetObject()
	if obj == nil {
		return nil
	}
	// The very check Store.Update makes, so that exactly what it would fail on is rejected.
	if _, err := (storage.APIObjectVersioner{}).ObjectResourceVersion(obj); err != nil {
		accessor, accessorErr := meta.Accessor(obj)
		if accessorErr != nil {
			return nil // not an object with metadata: nothing storage could parse
		}
		return apierrors.NewInvalid(a.GetKind().GroupKind(), a.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), accessor.GetResourceVersion(), err.Error()),
		})
	}
	return nil
}

// throughUpdate tells whether the request is an update or a patch (so a Create is a create on
// update or an apply) rather than a POST.
func throughUpdate(ctx context.Context) bool {
	info, ok := request.RequestInfoFrom(ctx)
	return ok && (info.Verb == "update" || info.Verb == "patch")
}
