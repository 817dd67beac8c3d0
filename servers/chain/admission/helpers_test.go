package admission

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/tools/cache"
)

// attrs builds the admission attributes of a request on resource in group, as the apiserver
// hands them to the plugins.
func attrs(obj, old runtime.Object, gr schema.GroupResource, kind, namespace, name, subresource string, op admission.Operation, u user.Info) admission.Attributes {
	gvr := gr.WithVersion("v1")
	return admission.NewAttributesRecord(obj, old, schema.GroupVersionKind{Group: gr.Group, Version: "v1", Kind: kind},
		namespace, name, gvr, subresource, op, nil, false, u)
}

// indexer holds objs, for the listers the plugins read.
func indexer[T runtime.Object](objs ...T) cache.Indexer {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objs {
		_ = idx.Add(o)
	}
	return idx
}

func admit(t *testing.T, p admission.MutationInterface, a admission.Attributes) error {
	t.Helper()
	return p.Admit(context.Background(), a, nil)
}

func validate(t *testing.T, p admission.ValidationInterface, a admission.Attributes) error {
	t.Helper()
	return p.Validate(context.Background(), a, nil)
}

// errString is "" for no error.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
