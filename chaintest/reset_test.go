package chaintest_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/chaintest"
)

var (
	widgets = schema.GroupVersionResource{Group: "example.apichain.io", Version: "v1", Resource: "widgets"}
	gadgets = schema.GroupVersionResource{Group: "gadgets.apichain.io", Version: "v1", Resource: "gadgets"}
)

// TestResetRemovesEverythingCreatedSince creates objects of every scope (namespaced in a new
// and in a system namespace, cluster-scoped, custom resources of the options' CRD and of a CRD
// made by the test, objects with finalizers and owners), resets, and holds what every resource
// lists, through the API, against what it listed right after Start: the same. With and
// without controllers: without, nothing but Reset finalizes a namespace.
func TestResetRemovesEverythingCreatedSince(t *testing.T) {
	for name, controllers := range map[string][]string{"default": nil, "no-controllers": {}} {
		t.Run(name, func(t *testing.T) {
			env := &chaintest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}, Controllers: controllers,
				WebhookInstallOptions: chaintest.WebhookInstallOptions{ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{idleWebhook()}}}
			cfg := start(t, env)
			ctx := context.Background()
			before := listEverything(t, cfg)

			deleted := watchDeletions(t, cfg)
			created := createOfEveryScope(t, cfg, "1")
			if err := env.Reset(); err != nil {
				t.Fatal(err)
			}
			after := listEverything(t, cfg)
			for _, k := range slices.Sorted(maps.Keys(after)) {
				if !before[k] {
					t.Errorf("still there after Reset: %s", k)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(before)) {
				if !after[k] {
					t.Errorf("there after Start, gone after Reset: %s", k)
				}
			}
			// The informers, started before, saw each deletion.
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				return deleted.hasAll(created), nil
			}); err != nil {
				t.Errorf("informers saw the deletion of %v, not of all of %v", deleted.list(), created)
			}

			// Clients keep working and the same names can be created again; the test's CRD,
			// made again, has no custom resource left from before.
			createOfEveryScope(t, cfg, "2")
			list, err := dynamic.NewForConfigOrDie(cfg).Resource(gadgets).Namespace("reset-test").List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "gadget-2" {
				t.Errorf("gadgets after Reset and again: %v, %v", err, list)
			}
			if err := env.Reset(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// idleWebhook is a webhook configuration for the options that matches nothing the test sends.
func idleWebhook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "idle"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "idle.example.apichain.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "idle", Namespace: "default", Path: ptr.To("/validate")}},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"nothing.example.io"}, APIVersions: []string{"v1"}, Resources: []string{"things"}}}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		}},
	}
}

// createOfEveryScope creates, with names ending in suffix, objects of each kind Reset must
// handle, and returns the "resource namespace/name" of those the informers of watchDeletions
// watch.
func createOfEveryScope(t *testing.T, cfg *rest.Config, suffix string) []string {
	t.Helper()
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "reset-test"}}, metav1.CreateOptions{}))
	owner, err := cs.CoreV1().ConfigMaps("reset-test").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner-" + suffix}}, metav1.CreateOptions{})
	must(owner, err)
	must(cs.CoreV1().ConfigMaps("reset-test").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent-" + suffix,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}, metav1.CreateOptions{}))
	must(cs.CoreV1().Secrets("reset-test").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "secret-" + suffix}}, metav1.CreateOptions{}))
	must(cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held-" + suffix,
		Finalizers: []string{"example.apichain.io/held"}}}, metav1.CreateOptions{}))
	must(cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc-" + suffix},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}))
	must(cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "reset-test-" + suffix}}, metav1.CreateOptions{}))
	must(cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "reset-test-" + suffix}, Value: 10}, metav1.CreateOptions{}))
	must(dyn.Resource(widgets).Namespace("default").Create(ctx, customResource("Widget", "widget-"+suffix, "example.apichain.io/held"), metav1.CreateOptions{}))
	must(dyn.Resource(widgets).Namespace("reset-test").Create(ctx, customResource("Widget", "widget-"+suffix), metav1.CreateOptions{}))

	// A CRD of the test's own, with a custom resource (with a finalizer) in the new namespace.
	ext := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	must(ext.Create(ctx, gadgetCRD(), metav1.CreateOptions{}))
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(gadgets).Namespace("reset-test").Create(ctx, customResource("Gadget", "gadget-"+suffix, "example.apichain.io/held"), metav1.CreateOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the test's CRD is not served: %v", err)
	}
	return []string{"namespaces /reset-test", "configmaps reset-test/owner-" + suffix, "configmaps reset-test/dependent-" + suffix,
		"configmaps default/held-" + suffix, "widgets default/widget-" + suffix, "widgets reset-test/widget-" + suffix}
}

func customResource(kind, name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"message": "hello"}}}
	u.SetAPIVersion(widgets.Group + "/v1")
	if kind == "Gadget" {
		u.SetAPIVersion(gadgets.Group + "/v1")
	}
	u.SetKind(kind)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	return u
}

func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets." + gadgets.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gadgets.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}

// listEverything lists, through the API, every object of every resource that can be listed,
// as "group/resource namespace/name". Events are left out: the chain's controllers record
// some of their own on the system's objects at any time.
func listEverything(t *testing.T, cfg *rest.Config) map[string]bool {
	t.Helper()
	lists, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	meta := metadata.NewForConfigOrDie(cfg)
	all := map[string]bool{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || r.Name == "events" {
				continue
			}
			gvr := gv.WithResource(r.Name)
			items, err := meta.Resource(gvr).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("listing %s: %v", gvr, err)
			}
			for _, item := range items.Items {
				all[fmt.Sprintf("%s %s/%s", gvr.GroupResource(), item.Namespace, item.Name)] = true
			}
		}
	}
	return all
}

// deletions records what informers saw deleted, as "resource namespace/name".
type deletions struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (d *deletions) hasAll(keys []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, k := range keys {
		if !d.seen[k] {
			return false
		}
	}
	return true
}

func (d *deletions) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.seen))
}

// watchDeletions starts informers on namespaces, ConfigMaps and Widgets, as a test's
// controller would have, and records the deletions they see.
func watchDeletions(t *testing.T, cfg *rest.Config) *deletions {
	d := &deletions{seen: map[string]bool{}}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	record := func(resource string) cache.ResourceEventHandler {
		return cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			m, err := metaOf(obj)
			if err != nil {
				t.Error(err)
				return
			}
			d.mu.Lock()
			d.seen[resource+" "+m.GetNamespace()+"/"+m.GetName()] = true
			d.mu.Unlock()
		}}
	}
	typed := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(cfg), 0)
	typed.Core().V1().Namespaces().Informer().AddEventHandler(record("namespaces"))
	typed.Core().V1().ConfigMaps().Informer().AddEventHandler(record("configmaps"))
	dyn := dynamicinformer.NewDynamicSharedInformerFactory(dynamic.NewForConfigOrDie(cfg), 0)
	dyn.ForResource(widgets).Informer().AddEventHandler(record("widgets"))
	typed.Start(stop)
	dyn.Start(stop)
	for _, synced := range []map[schema.GroupVersionResource]bool{dyn.WaitForCacheSync(stop)} {
		for gvr, ok := range synced {
			if !ok {
				t.Fatalf("informer for %s did not sync", gvr)
			}
		}
	}
	for typ, ok := range typed.WaitForCacheSync(stop) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
	return d
}

func metaOf(obj any) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("informer delivered %T", obj)
	}
	return m, nil
}

// BenchmarkEnvironmentReset is Reset on one Environment shared by every iteration, as a suite
// shares it: "nothing" with nothing created since the last Reset; "objects" after a test
// made a namespace with a few objects, objects in a system namespace, cluster-scoped ones and
// custom resources (of the options' CRD; one with a finalizer). Only Reset is timed.
func BenchmarkEnvironmentReset(b *testing.B) {
	env := &chaintest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}}
	cfg, err := env.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer env.Stop()
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	b.Run("nothing", func(b *testing.B) {
		for b.Loop() {
			if err := env.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("objects", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			for _, err := range []error{
				create(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{})),
				create(cs.CoreV1().ConfigMaps("bench").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})),
				create(cs.CoreV1().Secrets("bench").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})),
				create(cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})),
				create(cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{})),
				create(dyn.Resource(widgets).Namespace("bench").Create(ctx, customResource("Widget", "w"), metav1.CreateOptions{})),
				create(dyn.Resource(widgets).Namespace("default").Create(ctx, customResource("Widget", "held", "example.apichain.io/held"), metav1.CreateOptions{})),
			} {
				if err != nil && !apierrors.IsAlreadyExists(err) {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			if err := env.Reset(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func create(_ any, err error) error { return err }
