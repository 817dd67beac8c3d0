package namespace_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

var (
	gadgets      = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	noFinalizers = []byte(`{"metadata":{"finalizers":null}}`)
)

// TestDeletedNamespaceIsEmptiedAndGone: a deleted namespace holding pods, ConfigMaps and a custom
// resource is emptied, pods first; while finalizers hold content back, its conditions say what
// is left and which finalizers; once they let go, the namespace is gone.
func TestDeletedNamespaceIsEmptiedAndGone(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.Namespace} })
	ctx := context.Background()
	cs, dyn := testchain.Clients(t, c)
	createGadgetsCRD(t, c, cs)

	const ns, hold = "doomed", "example.com/hold"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{hold}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "free"}},
	} {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx"}}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "finalizers": []any{hold}}}}
	if _, err := dyn.Resource(gadgets).Namespace(ns).Create(ctx, g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A pod is held: nothing else is deleted while it stays.
	waitConditions(t, cs, ns, map[corev1.NamespaceConditionType]string{
		corev1.NamespaceContentRemaining:    "True SomeResourcesRemain Some resources are remaining: pods. has 1 resource instances",
		corev1.NamespaceFinalizersRemaining: "True SomeFinalizersRemain Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	})
	if l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 3 {
		t.Errorf("ConfigMaps while a pod stays: %v, %d of 3", err, len(l.Items))
	}
	if got, err := dyn.Resource(gadgets).Namespace(ns).Get(ctx, "g", metav1.GetOptions{}); err != nil || got.GetDeletionTimestamp() != nil {
		t.Errorf("gadget while a pod stays: %v, deleting %v", err, got.GetDeletionTimestamp())
	}
	if _, err := cs.CoreV1().Pods(ns).Get(ctx, "free", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the pod without a finalizer: %v, want it gone", err)
	}

	// The pod goes: the rest is deleted, and only the held gadget is left.
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "held", types.MergePatchType, noFinalizers, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConditions(t, cs, ns, map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "False ResourcesDiscovered All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "False ParsedGroupVersions All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "False ContentDeleted All content successfully deleted, may be waiting on finalization",
		corev1.NamespaceContentRemaining:         "True SomeResourcesRemain Some resources are remaining: gadgets.example.com has 1 resource instances",
		corev1.NamespaceFinalizersRemaining:      "True SomeFinalizersRemain Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	})
	if l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("ConfigMaps left: %v %d", err, len(l.Items))
	}
	if got, err := dyn.Resource(gadgets).Namespace(ns).Get(ctx, "g", metav1.GetOptions{}); err != nil || got.GetDeletionTimestamp() == nil {
		t.Fatalf("held gadget: %v, deleting %v", err, got.GetDeletionTimestamp())
	}

	// The gadget goes: so does the namespace.
	if _, err := dyn.Resource(gadgets).Namespace(ns).Patch(ctx, "g", types.MergePatchType, noFinalizers, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the namespace gone", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if l, err := dyn.Resource(gadgets).Namespace(ns).List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("gadgets left: %v %v", err, l)
	}
}

// waitConditions waits until the namespace's conditions of the given types read "status
// reason message".
func waitConditions(t *testing.T, cs kubernetes.Interface, ns string, want map[corev1.NamespaceConditionType]string) {
	t.Helper()
	got := map[corev1.NamespaceConditionType]string{}
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range n.Status.Conditions {
			got[c.Type] = fmt.Sprintf("%s %s %s", c.Status, c.Reason, c.Message)
		}
		for typ, w := range want {
			if got[typ] != w {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("namespace %s conditions: got %v, want %v", ns, got, want)
	}
}

func createGadgetsCRD(t *testing.T, c *chain.Chain, cs kubernetes.Interface) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	ac := apiextensionsclient.NewForConfigOrDie(c.Admin)
	if _, err := ac.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "gadgets served", func(context.Context) (bool, error) {
		_, err := cs.Discovery().ServerResourcesForGroupVersion("example.com/v1")
		return err == nil, nil
	})
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
