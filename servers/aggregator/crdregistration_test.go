package aggregator

import (
	"fmt"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// recorder is the autoregister side: the calls it got, in order.
type recorder struct{ calls []string }

func (r *recorder) AddAPIServiceToSync(in *apiregistrationv1.APIService) {
	r.calls = append(r.calls, fmt.Sprintf("add %s (%s/%s %d %d)", in.Name, in.Spec.Group, in.Spec.Version, in.Spec.GroupPriorityMinimum, in.Spec.VersionPriority))
}
func (r *recorder) RemoveAPIServiceToSync(name string) { r.calls = append(r.calls, "remove "+name) }

func crd(name, group string, versions map[string]bool) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group}}
	for v, served := range versions {
		c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: served})
	}
	return c
}

// TestCRDRegistration: one APIService per served group version, however many CRDs serve it;
// removed when none does any more.
func TestCRDRegistration(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	rec := &recorder{}
	c := &crdRegistration{crds: crdlisters.NewCustomResourceDefinitionLister(store), register: rec}
	registered := map[string]bool{}
	step := func(what string, want ...string) {
		t.Helper()
		rec.calls = nil
		c.sync(registered)
		slices.Sort(rec.calls)
		if fmt.Sprint(rec.calls) != fmt.Sprint(want) {
			t.Errorf("%s: calls %q, want %q", what, rec.calls, want)
		}
	}

	_ = store.Add(crd("widgets.shop.example", "shop.example", map[string]bool{"v1": true, "v2alpha1": false}))
	step("a CRD", "add v1.shop.example (shop.example/v1 1000 100)")
	_ = store.Add(crd("gadgets.shop.example", "shop.example", map[string]bool{"v1": true, "v2alpha1": true}))
	step("a second CRD of the group", "add v2alpha1.shop.example (shop.example/v2alpha1 1000 100)")
	_ = store.Delete(crd("widgets.shop.example", "", nil))
	step("the first CRD deleted: its version is still served")
	_ = store.Update(crd("gadgets.shop.example", "shop.example", map[string]bool{"v1": true, "v2alpha1": false}))
	step("a version no longer served", "remove v2alpha1.shop.example")
	_ = store.Delete(crd("gadgets.shop.example", "", nil))
	step("the last CRD deleted", "remove v1.shop.example")
}
