package chaintest_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/apichain/apichain/chaintest"
)

var widgetGVK = schema.GroupVersionKind{Group: "example.apichain.io", Version: "v1", Kind: "Widget"}

// echoReconciler is the kind of controller the package is for: for each Widget it writes
// spec.message into status.echo and keeps a ConfigMap owned by the Widget.
type echoReconciler struct {
	client.Client
}

func (r *echoReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	msg, _, _ := unstructured.NestedString(w.Object, "spec", "message")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: req.Name + "-echo", Namespace: req.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"message": msg}
		return controllerutil.SetControllerReference(w, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if echo, _, _ := unstructured.NestedString(w.Object, "status", "echo"); echo != msg {
		_ = unstructured.SetNestedField(w.Object, msg, "status", "echo")
		if err := r.Status().Update(ctx, w); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// TestReconcilerAgainstChaintest is a controller-runtime suite as controller authors write it
// against envtest, with chaintest in envtest's place.
func TestReconcilerAgainstChaintest(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	env := &chaintest.Environment{Scheme: scheme, CRDDirectoryPaths: []string{"testdata/crds"}, ErrorIfCRDPathMissing: true}
	cfg := start(t, env)

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(widgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).For(widget).Owns(&corev1.ConfigMap{}).Complete(&echoReconciler{mgr.GetClient()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	w := &unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": "hello", "namespace": "default"},
		"spec":     map[string]interface{}{"message": "hi there"},
	}}
	w.SetGroupVersionKind(widgetGVK)
	if err := c.Create(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(widgetGVK)
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "hello"}, got); err != nil {
			return false
		}
		echo, _, _ := unstructured.NestedString(got.Object, "status", "echo")
		return echo == "hi there"
	})
	cm := &corev1.ConfigMap{}
	eventually(t, func() bool {
		return c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "hello-echo"}, cm) == nil
	})
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != "hello" || cm.Data["message"] != "hi there" {
		t.Errorf("owned ConfigMap: %+v", cm)
	}
	// The reconciler repairs what a user changes.
	cm.Data["message"] = "tampered"
	if err := c.Update(context.Background(), cm); err != nil && !apierrors.IsConflict(err) {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		got := &corev1.ConfigMap{}
		return c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "hello-echo"}, got) == nil && got.Data["message"] == "hi there"
	})
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatal("condition never held")
	}
}
