package extensions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

func TestCRDLifecycle(t *testing.T) {
	ctx := context.Background()
	group := "lifecycle.example.com"
	coretest.CreateEstablishedCRD(t, shared, coretest.WidgetCRD(group))
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	widgets := dyn.Resource(gvr).Namespace(ns)

	// A custom resource can be created as soon as the CRD is Established.
	w := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": group + "/v1", "kind": "Widget", "metadata": map[string]interface{}{"name": "w1"},
		"spec": map[string]interface{}{"size": int64(3), "replicas": int64(1)},
	}}
	got, err := widgets.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create CR right after Established: %v", err)
	}
	if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "blue" {
		t.Errorf("schema default not applied: color %q", color)
	}
	// Schema validation.
	bad := w.DeepCopy()
	bad.SetName("w2")
	_ = unstructured.SetNestedField(bad.Object, int64(99), "spec", "size")
	_, err = widgets.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size: Invalid value: 99: spec.size in body should be less than or equal to 10") {
		t.Errorf("invalid CR: %v", err)
	}
	// Status subresource: the main resource ignores status, /status sets it.
	_ = unstructured.SetNestedField(got.Object, true, "status", "ready")
	got, err = widgets.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedBool(got.Object, "status", "ready"); found {
		t.Errorf("main resource update set status")
	}
	_ = unstructured.SetNestedField(got.Object, true, "status", "ready")
	got, err = widgets.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if ready, _, _ := unstructured.NestedBool(got.Object, "status", "ready"); err != nil || !ready {
		t.Errorf("/status update: %v, ready %v", err, ready)
	}
	// Scale subresource.
	scale, err := widgets.Get(ctx, "w1", metav1.GetOptions{}, "scale")
	if err != nil || scale.GetKind() != "Scale" {
		t.Fatalf("get scale: %v", err)
	}
	_ = unstructured.SetNestedField(scale.Object, int64(4), "spec", "replicas")
	if _, err := widgets.Update(ctx, scale, metav1.UpdateOptions{}, "scale"); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	got, _ = widgets.Get(ctx, "w1", metav1.GetOptions{})
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 4 {
		t.Errorf("spec.replicas after scale = %d", r)
	}
	// Printer columns: exactly those declared (no Age unless declared, as in kube-apiserver).
	table := coretest.Table(t, shared, "/apis/"+group+"/v1/namespaces/"+ns+"/widgets")
	if names := coretest.ColumnNames(table); strings.Join(names, ",") != "Name,Size,Color" {
		t.Errorf("columns %v", names)
	}
	// The CRD's group gets a Local APIService.
	coretest.WaitAPIServiceAvailable(t, shared, "v1."+group)

	// Deleting the CRD deletes its custom resources and its API.
	ac := apiextensionsclient.NewForConfigOrDie(shared.Admin)
	if err := ac.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "widgets."+group, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := ac.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets."+group, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("CRD not gone: %v", err)
	}
	// The handler goes when the apiextensions server's CRD informer sees the deletion, a moment
	// after the CRD is gone from storage.
	code := 0
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, _ := testchain.Get(t, shared, "/apis/"+group+"/v1/namespaces/"+ns+"/widgets")
		code = resp.StatusCode
		return code == 404, nil
	})
	if err != nil {
		t.Errorf("custom resources after the CRD is gone: %d, want 404", code)
	}
}
