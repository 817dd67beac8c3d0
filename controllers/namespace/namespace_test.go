package namespace_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/internal/testchain"
	"github.com/apichain/apichain/servers/chain"
)

// TestDeletedNamespaceIsEmptiedAndGone: a namespace holding built-in objects and custom
// resources is gone within seconds of its deletion, its status conditions saying why on the way.
func TestDeletedNamespaceIsEmptiedAndGone(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.Namespace} })
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	dyn := dynamic.NewForConfigOrDie(c.Admin)

	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	ac := apiextensionsclient.NewForConfigOrDie(c.Admin)
	if _, err := ac.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gadgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	poll(t, func() bool {
		_, err := cs.Discovery().ServerResourcesForGroupVersion("example.com/v1")
		return err == nil
	})

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}, Data: map[string]string{"i": string(rune('0' + i))}}
		if _, err := cs.CoreV1().ConfigMaps("doomed").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.CoreV1().Pods("doomed").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	g := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]interface{}{"name": "g"}}}
	if _, err := dyn.Resource(gadgets).Namespace("doomed").Create(ctx, g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := cs.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		ns, _ := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		t.Fatalf("namespace not gone: %+v", ns.Status)
	}
	// Its content went with it.
	if l, err := dyn.Resource(gadgets).Namespace("doomed").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("custom resources left: %v %v", err, l)
	}
	if l, err := cs.CoreV1().ConfigMaps("doomed").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("configmaps left: %v %v", err, l)
	}
}

// TestNamespaceWithAFinalizerWaits: content held by a finalizer keeps the namespace, and the
// conditions say which finalizer; once it is removed, the namespace goes.
func TestNamespaceWithAFinalizerWaits(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.Namespace} })
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "held"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Finalizers: []string{"example.com/hold"}}}
	if _, err := cs.CoreV1().ConfigMaps("held").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, func() bool {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "held", metav1.GetOptions{})
		if err != nil {
			return false
		}
		t.Logf("%+v", ns.Status.Conditions)
		for _, cond := range ns.Status.Conditions {
			if cond.Type == corev1.NamespaceFinalizersRemaining && cond.Status == corev1.ConditionTrue &&
				cond.Message == "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances" {
				return true
			}
		}
		return false
	})
	got, err := cs.CoreV1().ConfigMaps("held").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Finalizers = nil
	if _, err := cs.CoreV1().ConfigMaps("held").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "held", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

func poll(t *testing.T, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatal("condition never held")
	}
}

func ptr[T any](v T) *T { return &v }
