package core

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apichain/apichain/servers/core/defaults"
	"github.com/apichain/apichain/servers/core/registry/admissionregistration"
	"github.com/apichain/apichain/servers/core/registry/apps"
	"github.com/apichain/apichain/servers/core/registry/authentication"
	"github.com/apichain/apichain/servers/core/registry/authorization"
	"github.com/apichain/apichain/servers/core/registry/autoscaling"
	"github.com/apichain/apichain/servers/core/registry/batch"
	"github.com/apichain/apichain/servers/core/registry/certificates"
	"github.com/apichain/apichain/servers/core/registry/coordination"
	corereg "github.com/apichain/apichain/servers/core/registry/core"
	"github.com/apichain/apichain/servers/core/registry/discovery"
	"github.com/apichain/apichain/servers/core/registry/events"
	"github.com/apichain/apichain/servers/core/registry/flowcontrol"
	"github.com/apichain/apichain/servers/core/registry/networking"
	"github.com/apichain/apichain/servers/core/registry/node"
	"github.com/apichain/apichain/servers/core/registry/policy"
	"github.com/apichain/apichain/servers/core/registry/rbac"
	"github.com/apichain/apichain/servers/core/registry/resource"
	"github.com/apichain/apichain/servers/core/registry/scheduling"
	"github.com/apichain/apichain/servers/core/registry/storage"
	"github.com/apichain/apichain/servers/core/registry/storagemigration"
	"github.com/apichain/apichain/servers/core/validation/declarative"
)

// NewScheme returns the Core server's scheme: every group it serves, with kube-apiserver's
// defaulting, field selectors and generated declarative validation. Each call builds a new one;
// nothing is registered globally.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	AddMetaTypes(scheme)
	for _, add := range []func(*runtime.Scheme) error{
		corereg.AddToScheme,
		authentication.AddToScheme,
		authorization.AddToScheme,
		discovery.Group().AddToScheme,
		coordination.Group().AddToScheme,
		apps.Group().AddToScheme,
		batch.Group().AddToScheme,
		autoscaling.Group().AddToScheme,
		policy.Group().AddToScheme,
		rbac.Group().AddToScheme,
		admissionregistration.Group().AddToScheme,
		certificates.Group().AddToScheme,
		networking.Group().AddToScheme,
		storage.Group().AddToScheme,
		scheduling.Group().AddToScheme,
		events.Group().AddToScheme,
		resource.Group().AddToScheme,
		storagemigration.Group().AddToScheme,
		node.Group().AddToScheme,
		flowcontrol.Group().AddToScheme,
		defaults.RegisterDefaults,
		declarative.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// AddMetaTypes registers the unversioned meta types every apiserver speaks (Status,
// APIVersions, APIGroupList, ...), as kube-apiserver's legacyscheme does.
func AddMetaTypes(scheme *runtime.Scheme) {
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	scheme.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
}
