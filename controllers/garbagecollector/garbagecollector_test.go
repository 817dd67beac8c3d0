package garbagecollector_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestGarbageCollector runs the ownerReference scenarios of kube's garbage collector against one
// chain that runs only the garbage-collector-controller.
func TestGarbageCollector(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = []string{controllers.GarbageCollector} })
	cs, dyn := testchain.Clients(t, c)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps("gc")

	// Background (the default): the owner goes at once, its dependents after it.
	t.Run("Background", func(t *testing.T) {
		owner := createConfigMap(t, cs, "bg-owner")
		for i := range 3 {
			createConfigMap(t, cs, fmt.Sprintf("bg-dependent-%d", i), ownerRef(owner, i == 0))
		}
		if err := cms.Delete(ctx, "bg-owner", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			waitGone(t, "a dependent", func(ctx context.Context) error {
				_, err := cms.Get(ctx, fmt.Sprintf("bg-dependent-%d", i), metav1.GetOptions{})
				return err
			})
		}
	})

	// Foreground: the owner stays, with the foregroundDeletion finalizer, until its blocking
	// dependents are gone; the garbage collector deletes them first.
	t.Run("Foreground", func(t *testing.T) {
		owner := createConfigMap(t, cs, "fg-owner")
		dep := createConfigMap(t, cs, "fg-dependent", ownerRef(owner, true))
		dep.Finalizers = []string{"example.com/hold"} // keeps the dependent until the test lets it go
		if _, err := cms.Update(ctx, dep, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "fg-owner", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
			t.Fatal(err)
		}
		poll(t, "the blocking dependent deleted by the garbage collector", func(ctx context.Context) (bool, error) {
			d, err := cms.Get(ctx, "fg-dependent", metav1.GetOptions{})
			return err == nil && d.DeletionTimestamp != nil, err
		})
		o, err := cms.Get(ctx, "fg-owner", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the owner went before its blocking dependent: %v", err)
		}
		if o.DeletionTimestamp == nil || !slices.Equal(o.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
			t.Fatalf("owner while its dependent stays: deletionTimestamp %v, finalizers %v", o.DeletionTimestamp, o.Finalizers)
		}
		// The dependent goes: so does the owner.
		if _, err := cms.Patch(ctx, "fg-dependent", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the owner", func(ctx context.Context) error { _, err := cms.Get(ctx, "fg-owner", metav1.GetOptions{}); return err })
		waitGone(t, "the dependent", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "fg-dependent", metav1.GetOptions{})
			return err
		})
	})

	// Foreground through generations: a blocking dependent that has dependents of its own is
	// itself deleted in the foreground, and the owner waits for the whole line.
	t.Run("ForegroundGenerations", func(t *testing.T) {
		owner := createConfigMap(t, cs, "gen-owner")
		child := createConfigMap(t, cs, "gen-child", ownerRef(owner, true))
		grandchild := createConfigMap(t, cs, "gen-grandchild", ownerRef(child, true))
		grandchild.Finalizers = []string{"example.com/hold"}
		if _, err := cms.Update(ctx, grandchild, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "gen-owner", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
			t.Fatal(err)
		}
		poll(t, "the grandchild deleted", func(ctx context.Context) (bool, error) {
			d, err := cms.Get(ctx, "gen-grandchild", metav1.GetOptions{})
			return err == nil && d.DeletionTimestamp != nil, err
		})
		for _, name := range []string{"gen-owner", "gen-child"} {
			o, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil || o.DeletionTimestamp == nil || !slices.Equal(o.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
				t.Fatalf("%s while the grandchild stays: %v, deleting %v, finalizers %v", name, err, o.DeletionTimestamp, o.Finalizers)
			}
		}
		if _, err := cms.Patch(ctx, "gen-grandchild", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"gen-grandchild", "gen-child", "gen-owner"} {
			waitGone(t, name, func(ctx context.Context) error { _, err := cms.Get(ctx, name, metav1.GetOptions{}); return err })
		}
	})

	// Orphan: the dependents stay, without their reference to the owner.
	t.Run("Orphan", func(t *testing.T) {
		owner := createConfigMap(t, cs, "orphan-owner")
		other := createConfigMap(t, cs, "orphan-other-owner")
		createConfigMap(t, cs, "orphan-dependent", ownerRef(owner, true), ownerRef(other, false))
		createConfigMap(t, cs, "orphan-only-child", ownerRef(owner, false))
		if err := cms.Delete(ctx, "orphan-owner", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationOrphan)}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the owner", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "orphan-owner", metav1.GetOptions{})
			return err
		})
		d, err := cms.Get(ctx, "orphan-dependent", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the orphaned dependent: %v", err)
		}
		if len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != other.UID {
			t.Errorf("orphaned dependent's ownerReferences: %+v, want only the other owner", d.OwnerReferences)
		}
		if d, err := cms.Get(ctx, "orphan-only-child", metav1.GetOptions{}); err != nil || len(d.OwnerReferences) != 0 {
			t.Errorf("the orphan without other owners: %v, ownerReferences %+v", err, d.OwnerReferences)
		}
	})

	// A dependent whose owner never existed is collected, and so is one whose owner's name
	// now belongs to another object (another UID).
	t.Run("DanglingOwner", func(t *testing.T) {
		ghost := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ghost", Namespace: "gc", UID: "00000000-0000-0000-0000-000000000001"}}
		createConfigMap(t, cs, "haunted", ownerRef(ghost, false))
		impostor := createConfigMap(t, cs, "impostor")
		impostor.UID = "00000000-0000-0000-0000-000000000002"
		createConfigMap(t, cs, "misled", ownerRef(impostor, false))
		for _, name := range []string{"haunted", "misled"} {
			waitGone(t, name, func(ctx context.Context) error { _, err := cms.Get(ctx, name, metav1.GetOptions{}); return err })
		}
		if _, err := cms.Get(ctx, "impostor", metav1.GetOptions{}); err != nil {
			t.Errorf("the object under the owner's name: %v", err)
		}
	})

	// A reference added to an existing object, naming an owner already gone, has it collected
	// as one it was created with would: the StatefulSet controller hands a scaled-away pod's
	// claims to the pod this way, and the pod may be gone by the time the reference lands. The same for an owner deleting in the foreground: the new dependent
	// goes first. Only the update's event can tell the collector: its periodic pass rereads
	// discovery and looks at every object again only when a resource appears.
	t.Run("ReferenceAddedLater", func(t *testing.T) {
		gone := createConfigMap(t, cs, "later-gone")
		if err := cms.Delete(ctx, gone.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the owner", func(ctx context.Context) error { _, err := cms.Get(ctx, gone.Name, metav1.GetOptions{}); return err })
		createConfigMap(t, cs, "later-dependent")
		addOwner(t, cms, "later-dependent", ownerRef(gone, false))
		waitGone(t, "the dependent given an owner already deleted", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "later-dependent", metav1.GetOptions{})
			return err
		})

		// An owner held deleting in the foreground by a blocking dependent with a finalizer.
		deleting := createConfigMap(t, cs, "later-deleting")
		held := createConfigMap(t, cs, "later-held", ownerRef(deleting, true))
		held.Finalizers = []string{"example.com/hold"}
		if _, err := cms.Update(ctx, held, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, deleting.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
			t.Fatal(err)
		}
		poll(t, "the held dependent deleting", func(ctx context.Context) (bool, error) {
			d, err := cms.Get(ctx, held.Name, metav1.GetOptions{})
			return err == nil && d.DeletionTimestamp != nil, err
		})
		createConfigMap(t, cs, "later-newcomer")
		addOwner(t, cms, "later-newcomer", ownerRef(deleting, false))
		waitGone(t, "the newcomer to an owner deleting in the foreground", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "later-newcomer", metav1.GetOptions{})
			return err
		})
		if _, err := cms.Patch(ctx, held.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the owner deleting in the foreground", func(ctx context.Context) error {
			_, err := cms.Get(ctx, deleting.Name, metav1.GetOptions{})
			return err
		})
	})

	// Owner references hold as kube resolves them: a namespaced owner is looked for in the
	// dependent's namespace only, a cluster-scoped owner anywhere, and a cluster-scoped
	// dependent cannot have a namespaced owner.
	t.Run("Scopes", func(t *testing.T) {
		owner := createConfigMap(t, cs, "scopes-owner")
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gc-elsewhere"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		elsewhere := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cross-namespace", OwnerReferences: []metav1.OwnerReference{ownerRef(owner, false)}}}
		if _, err := cs.CoreV1().ConfigMaps("gc-elsewhere").Create(ctx, elsewhere, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		clusterDependent, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gc-owned-by-a-configmap",
			OwnerReferences: []metav1.OwnerReference{ownerRef(owner, false)}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the dependent in another namespace than its owner", func(ctx context.Context) error {
			_, err := cs.CoreV1().ConfigMaps("gc-elsewhere").Get(ctx, "cross-namespace", metav1.GetOptions{})
			return err
		})
		waitGone(t, "the cluster-scoped dependent of a namespaced owner", func(ctx context.Context) error {
			_, err := cs.RbacV1().ClusterRoles().Get(ctx, clusterDependent.Name, metav1.GetOptions{})
			return err
		})

		// A cluster-scoped owner of a namespaced dependent holds it (the ghost's reference is
		// dropped, the ClusterRole's stays) until it is deleted.
		clusterOwner, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gc-owner"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ghost := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ghost", UID: "00000000-0000-0000-0000-000000000003"}}
		createConfigMap(t, cs, "owned-by-a-clusterrole", ownerRef(ghost, false),
			metav1.OwnerReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: clusterOwner.Name, UID: clusterOwner.UID})
		poll(t, "the ghost's reference dropped", func(ctx context.Context) (bool, error) {
			d, err := cms.Get(ctx, "owned-by-a-clusterrole", metav1.GetOptions{})
			return err == nil && len(d.OwnerReferences) == 1 && d.OwnerReferences[0].UID == clusterOwner.UID, err
		})
		if err := cs.RbacV1().ClusterRoles().Delete(ctx, clusterOwner.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the dependent of the deleted ClusterRole", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "owned-by-a-clusterrole", metav1.GetOptions{})
			return err
		})
	})

	// A dependent with one owner gone and one still there stays, without the dangling reference.
	t.Run("OneOwnerLeft", func(t *testing.T) {
		gone := createConfigMap(t, cs, "left-gone")
		kept := createConfigMap(t, cs, "left-kept")
		createConfigMap(t, cs, "left-dependent", ownerRef(gone, false), ownerRef(kept, false))
		if err := cms.Delete(ctx, "left-gone", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		poll(t, "the dangling reference removed", func(ctx context.Context) (bool, error) {
			d, err := cms.Get(ctx, "left-dependent", metav1.GetOptions{})
			return err == nil && len(d.OwnerReferences) == 1 && d.OwnerReferences[0].UID == kept.UID, err
		})
	})

	// Custom resources, as owners and as dependents, of a CRD created after the collector started:
	// its periodic discovery resync starts monitoring them.
	t.Run("CustomResources", func(t *testing.T) {
		widgets := createCRD(t, c.Admin, cs)
		owner := createWidget(t, dyn, widgets, "owner")
		createConfigMap(t, cs, "cm-of-widget", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "owner", UID: owner.GetUID()})
		cmOwner := createConfigMap(t, cs, "cm-owning-widgets")
		dep := createWidget(t, dyn, widgets, "dependent", ownerRef(cmOwner, false))
		createWidget(t, dyn, widgets, "grandchild", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "dependent", UID: dep.GetUID()})

		if err := dyn.Resource(widgets).Namespace("gc").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitGone(t, "the ConfigMap owned by a custom resource", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "cm-of-widget", metav1.GetOptions{})
			return err
		})
		if err := cms.Delete(ctx, "cm-owning-widgets", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"dependent", "grandchild"} {
			waitGone(t, "custom resource "+name, func(ctx context.Context) error {
				_, err := dyn.Resource(widgets).Namespace("gc").Get(ctx, name, metav1.GetOptions{})
				return err
			})
		}
		waitGone(t, "the foreground owner", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "cm-owning-widgets", metav1.GetOptions{})
			return err
		})
	})
}

func ownerRef(owner *corev1.ConfigMap, block bool) metav1.OwnerReference {
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
	if block {
		ref.BlockOwnerDeletion = ptr.To(true)
	}
	return ref
}

// addOwner gives the ConfigMap name one more owner reference, by an update (retried on conflict).
func addOwner(t *testing.T, cms typedcorev1.ConfigMapInterface, name string, ref metav1.OwnerReference) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.OwnerReferences = append(cm.OwnerReferences, ref)
		_, err = cms.Update(context.Background(), cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps("gc").Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func createWidget(t *testing.T, dyn dynamic.Interface, widgets schema.GroupVersionResource, name string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
	t.Helper()
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": name}}}
	w.SetOwnerReferences(owners)
	created, err := dyn.Resource(widgets).Namespace("gc").Create(context.Background(), w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func createCRD(t *testing.T, admin *rest.Config, cs kubernetes.Interface) schema.GroupVersionResource {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	ac := apiextensionsclient.NewForConfigOrDie(admin)
	if _, err := ac.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "widgets served", func(context.Context) (bool, error) {
		_, err := cs.Discovery().ServerResourcesForGroupVersion("example.com/v1")
		return err == nil, nil
	})
	return schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
}

func waitGone(t *testing.T, what string, get func(context.Context) error) {
	t.Helper()
	poll(t, what+" gone", func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

func poll(t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
