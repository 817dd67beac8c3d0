package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// coreResources are one minimal valid object per Core resource, as a user would write it.
var coreResources = []struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	manifest   string
}{
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false, `{apiVersion: v1, kind: Namespace, metadata: {name: NAME}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true, `{apiVersion: v1, kind: ConfigMap, metadata: {name: NAME}, data: {a: b}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true, `{apiVersion: v1, kind: Secret, metadata: {name: NAME}, stringData: {a: b}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true, `{apiVersion: v1, kind: ServiceAccount, metadata: {name: NAME}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "events"}, true, `{apiVersion: v1, kind: Event, metadata: {name: NAME}, involvedObject: {kind: Pod, name: p, namespace: NS}, reason: R, message: M}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, true, `{apiVersion: v1, kind: Service, metadata: {name: NAME}, spec: {selector: {app: a}, ports: [{port: 80}]}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}, true, `{apiVersion: v1, kind: Endpoints, metadata: {name: NAME}, subsets: [{addresses: [{ip: 10.1.2.3}], ports: [{port: 80}]}]}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false, `{apiVersion: v1, kind: Node, metadata: {name: NAME}}`},
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true, `{apiVersion: v1, kind: Pod, metadata: {name: NAME}, spec: {containers: [{name: c, image: nginx}]}}`},
	{schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, true, `{apiVersion: discovery.k8s.io/v1, kind: EndpointSlice, metadata: {name: NAME}, addressType: IPv4, endpoints: [{addresses: [10.0.0.9]}], ports: [{port: 80}]}`},
	{schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, true, `{apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: NAME}, spec: {holderIdentity: me}}`},
}

// TestCoreResourcesCRUDAndWatch creates, reads, lists, updates, patches, watches and deletes one
// object of every Core resource, as a client would.
func TestCoreResourcesCRUDAndWatch(t *testing.T) {
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for _, r := range coreResources {
		t.Run(r.gvr.Resource, func(t *testing.T) {
			name := "crud-" + r.gvr.Resource
			var ri dynamic.ResourceInterface = dyn.Resource(r.gvr)
			if r.namespaced {
				ri = dyn.Resource(r.gvr).Namespace(ns)
			}
			w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()

			created, err := ri.Create(ctx, coretest.Object(t, r.manifest, name, ns), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetCreationTimestamp().Time.IsZero() {
				t.Errorf("create did not fill system metadata: %v", created.Object["metadata"])
			}
			if _, err := ri.Create(ctx, coretest.Object(t, r.manifest, name, ns), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
				t.Errorf("second create: %v, want AlreadyExists", err)
			}
			got, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil || got.GetUID() != created.GetUID() {
				t.Fatalf("get: %v", err)
			}
			list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil || len(list.Items) != 1 {
				t.Fatalf("list by name: %v, %d items", err, len(list.Items))
			}
			got.SetLabels(map[string]string{"updated": "yes"})
			updated, err := ri.Update(ctx, got, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			// A stale resourceVersion is a conflict.
			if _, err := ri.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Errorf("update with stale resourceVersion: %v, want Conflict", err)
			}
			patched, err := ri.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"patched":"yes"}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Fatalf("patch: %v", err)
			}
			if patched.GetLabels()["updated"] != "yes" || patched.GetAnnotations()["patched"] != "yes" {
				t.Errorf("patch lost the update: %v", patched.Object["metadata"])
			}
			if patched.GetResourceVersion() == updated.GetResourceVersion() {
				t.Errorf("patch did not change resourceVersion")
			}
			labelled, err := ri.List(ctx, metav1.ListOptions{LabelSelector: "updated=yes"})
			if err != nil || len(labelled.Items) != 1 {
				t.Errorf("list by label: %v, %d items", err, len(labelled.Items))
			}

			if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			// Added, the update, the patch; then the delete: a namespace only turns Terminating (its
			// finalizer stays), a pod is first marked for deletion, everything else goes at once.
			next := func(i int) watch.Event {
				select {
				case ev := <-w.ResultChan():
					return ev
				case <-time.After(30 * time.Second):
					t.Fatalf("watch event %d never came", i)
				}
				return watch.Event{}
			}
			for i, typ := range []watch.EventType{watch.Added, watch.Modified, watch.Modified} {
				if ev := next(i); ev.Type != typ {
					t.Fatalf("watch event %d = %s, want %s", i, ev.Type, typ)
				}
			}
			last := watch.Deleted
			if r.gvr.Resource == "namespaces" {
				last = watch.Modified
			}
			ev := next(3)
			if r.gvr.Resource == "pods" && ev.Type == watch.Modified {
				ev = next(4)
			}
			if ev.Type != last {
				t.Fatalf("watch event after delete = %s, want %s", ev.Type, last)
			}
			if r.gvr.Resource == "namespaces" {
				got, err := ri.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if phase, _, _ := unstructured.NestedString(got.Object, "status", "phase"); phase != "Terminating" || got.GetDeletionTimestamp() == nil {
					t.Errorf("deleted namespace: phase %q, deletionTimestamp %v", phase, got.GetDeletionTimestamp())
				}
				return
			}
			if _, err := ri.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
		})
	}
}

func TestDeleteCollection(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i), Labels: map[string]string{"x": "y"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "x=y"}); err != nil {
		t.Fatal(err)
	}
	l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "x=y"})
	if err != nil || len(l.Items) != 0 {
		t.Errorf("after deletecollection: %v, %d left", err, len(l.Items))
	}
}
