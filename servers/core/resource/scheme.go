package resource

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// AddToScheme registers the k8s.io/api types of gv (through that package's own AddToScheme),
// registers the same Go types again as gv's internal version, and registers the field selectors
// of defs.
//
// kube-apiserver keeps objects in memory as separate internal types (k8s.io/kubernetes/pkg/apis)
// and converts at the edges. The chain keeps the versioned k8s.io/api types in memory instead:
// with the same Go type registered for both versions, the apiserver's "conversion" between them
// is a copy, and storage, defaulting, validation and printing all work on the one type.
func AddToScheme(scheme *runtime.Scheme, gv schema.GroupVersion, addToScheme func(*runtime.Scheme) error, defs ...*Definition) error {
	if err := addToScheme(scheme); err != nil {
		return err
	}
	internal := schema.GroupVersion{Group: gv.Group, Version: runtime.APIVersionInternal}
	for kind, t := range scheme.KnownTypes(gv) {
		// The meta types (ListOptions, WatchEvent...) that AddToGroupVersion registered have
		// their own internal forms already.
		if strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") {
			continue
		}
		scheme.AddKnownTypeWithName(internal.WithKind(kind), reflectNew(t))
	}
	for _, def := range defs {
		if len(def.FieldSelectors) == 0 {
			continue // the scheme's default accepts metadata.name and metadata.namespace
		}
		gvks, _, err := scheme.ObjectKinds(def.New())
		if err != nil {
			return fmt.Errorf("%s: %w", def.Resource, err)
		}
		if err := addFieldLabelConversions(scheme, gv.WithKind(gvks[0].Kind), def); err != nil {
			return err
		}
	}
	return scheme.SetVersionPriority(gv)
}
