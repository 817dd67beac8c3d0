package flowcontrol_test

import (
	"context"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apichain/apichain/test/reference"
	"github.com/apichain/apichain/test/testchain"
)

// TestBootstrapConfigurationIsKubeAPIServers: a fresh chain holds the FlowSchemas and
// PriorityLevelConfigurations kube-apiserver v1.37.2 creates on a fresh etcd, with the status
// its configuration controller writes (test/reference/bootstrap-flowcontrol.json), object for
// object: names, annotations, specs as stored (defaulted), and each FlowSchema's Dangling
// condition False, reason Found.
func TestBootstrapConfigurationIsKubeAPIServers(t *testing.T) {
	// Numbers as the API's (int64), not encoding/json's float64.
	var ref map[string]any
	if err := utiljson.Unmarshal(reference.Read(t, "bootstrap-flowcontrol.json"), &ref); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{}
	for _, o := range ref["items"].([]any) {
		u := unstructured.Unstructured{Object: o.(map[string]any)}
		want[u.GetKind()+"/"+u.GetName()] = u.Object
	}
	if len(want) != 19 {
		t.Fatalf("the reference holds %d objects, want 11 FlowSchemas and 8 PriorityLevelConfigurations", len(want))
	}

	waitDigested(t, shared)
	_, dyn := testchain.Clients(t, shared)
	got := map[string]map[string]any{}
	for _, resource := range []string{"flowschemas", "prioritylevelconfigurations"} {
		list, err := dyn.Resource(schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: resource}).
			List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range list.Items {
			got[u.GetKind()+"/"+u.GetName()] = asCaptured(u)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the chain's bootstrap configuration differs from kube-apiserver's (-kube-apiserver +chain):\n%s", diff)
	}
}

// asCaptured is a stored object as the reference was captured: the metadata the server sets
// (uid, resourceVersion, generation, creationTimestamp, managedFields) and the conditions'
// lastTransitionTime removed.
func asCaptured(u unstructured.Unstructured) map[string]any {
	u = *u.DeepCopy()
	meta := map[string]any{"name": u.GetName()}
	if a := u.GetAnnotations(); a != nil {
		meta["annotations"] = u.Object["metadata"].(map[string]any)["annotations"]
	}
	if l := u.GetLabels(); l != nil {
		meta["labels"] = u.Object["metadata"].(map[string]any)["labels"]
	}
	u.Object["metadata"] = meta
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		delete(c.(map[string]any), "lastTransitionTime")
	}
	if conditions != nil {
		_ = unstructured.SetNestedSlice(u.Object, conditions, "status", "conditions")
	}
	return u.Object
}
