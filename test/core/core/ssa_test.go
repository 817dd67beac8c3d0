package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

func TestServerSideApplyBuiltIn(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Apply(ctx, applycorev1.ConfigMap("cfg", ns).WithData(map[string]string{"a": "1"}), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "alice" || cm.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply ||
		!strings.Contains(string(cm.ManagedFields[0].FieldsV1.Raw), `"f:a"`) {
		t.Fatalf("managedFields: %+v", cm.ManagedFields)
	}
	// Another manager changing alice's field conflicts, unless it forces.
	_, err = cms.Apply(ctx, applycorev1.ConfigMap("cfg", ns).WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "alice"`) {
		t.Errorf("conflicting apply: %v", err)
	}
	cm, err = cms.Apply(ctx, applycorev1.ConfigMap("cfg", ns).WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil || cm.Data["a"] != "2" {
		t.Fatalf("forced apply: %v", err)
	}
	// A status field of a pod cannot be applied through the main resource (reset fields).
	pod, err := cs.CoreV1().Pods(ns).Apply(ctx, applycorev1.Pod("p", ns).WithSpec(applycorev1.PodSpec().WithContainers(
		applycorev1.Container().WithName("c").WithImage("nginx"))), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.Containers[0].ImagePullPolicy != "Always" {
		t.Errorf("apply did not default the pod: %+v", pod.Spec.Containers[0])
	}
}

func TestServerSideApplyCustomResource(t *testing.T) {
	group := "ssa.example.com"
	coretest.CreateEstablishedCRD(t, shared, coretest.WidgetCRD(group))
	_, dyn := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	w := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}).Namespace(ns)
	body, _ := json.Marshal(map[string]interface{}{"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w"}, "spec": map[string]interface{}{"size": 2}})
	got, err := w.Patch(context.Background(), "w", types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	mf := got.GetManagedFields()
	if len(mf) != 1 || mf[0].Manager != "alice" || !strings.Contains(string(mf[0].FieldsV1.Raw), `"f:size"`) {
		t.Errorf("managedFields: %+v", mf)
	}
}
