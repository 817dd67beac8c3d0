package api

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
)

// FuzzFieldSelectorFilter parses any field selector, as the API does for ?fieldSelector=, and
// filters two pods and two nodes with it. Property: podsMatching and nodesMatching keep, in
// order, exactly the objects that a direct reading of each requirement keeps (metadata.name
// and, for pods only, metadata.namespace; any other field reads as "").
func FuzzFieldSelectorFilter(f *testing.F) {
	f.Add("metadata.name=a", "ns1", "a", "ns2", "b")
	f.Add("metadata.namespace=ns1,metadata.name!=a", "ns1", "a", "ns1", "b")
	f.Add("metadata.name==b", "", "a", "", "b")
	f.Add("spec.nodeName=", "x", "a", "y", "b")
	f.Add("metadata.namespace!=", "", "a", "ns", "b")
	f.Add(`metadata.name=a\,b`, "ns", `a,b`, "ns", "a")
	f.Add("metadata.name", "ns", "a", "ns", "a")
	f.Fuzz(func(t *testing.T, selector, ns1, name1, ns2, name2 string) {
		sel, err := fields.ParseSelector(selector)
		if err != nil {
			return
		}
		type ref struct{ ns, name string }
		refs := []ref{{ns1, name1}, {ns2, name2}}
		keeps := func(r ref, namespaced bool) bool {
			for _, req := range sel.Requirements() {
				var v string
				switch {
				case req.Field == "metadata.name":
					v = r.name
				case req.Field == "metadata.namespace" && namespaced:
					v = r.ns
				}
				switch req.Operator {
				case selection.Equals, selection.DoubleEquals:
					if v != req.Value {
						return false
					}
				case selection.NotEquals:
					if v == req.Value {
						return false
					}
				default:
					t.Fatalf("operator %q in a parsed field selector", req.Operator)
				}
			}
			return true
		}

		var objs []runtime.Object
		var nodes []*corev1.Node
		for _, r := range refs {
			objs = append(objs, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: r.name}})
			nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: r.name}})
		}
		objs = append(objs, &corev1.Pod{}) // not PartialObjectMetadata: never kept

		var wantPods, wantNodes []string
		for _, r := range refs {
			if keeps(r, true) {
				wantPods = append(wantPods, r.ns+"/"+r.name)
			}
			if keeps(r, false) {
				wantNodes = append(wantNodes, r.name)
			}
		}
		var gotPods, gotNodes []string
		for _, m := range podsMatching(objs, sel) {
			gotPods = append(gotPods, m.Namespace+"/"+m.Name)
		}
		for _, n := range nodesMatching(nodes, sel) {
			gotNodes = append(gotNodes, n.Name)
		}
		if !slices.Equal(gotPods, wantPods) || !slices.Equal(gotNodes, wantNodes) {
			t.Errorf("selector %q: pods %q nodes %q, want pods %q nodes %q", selector, gotPods, gotNodes, wantPods, wantNodes)
		}
	})
}
