package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apichain/apichain/internal/tracing"
	"github.com/apichain/apichain/test/testchain"
)

// chainServers keeps the spans of the chain's servers.
func chainServers(n string) bool {
	return n == "aggregator" || n == "core" || n == "extensions" || n == "not-found"
}

// TestCustomResourceFallsThrough: a custom resource's request passes the Aggregator and Core,
// each saying why it handed it on, and ApiExtensions answers; its list is read from the watch
// cache.
func TestCustomResourceFallsThrough(t *testing.T) {
	c := shared
	ext, err := apiextensionsclient.NewForConfig(c.Admin)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "bars.tracing.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "tracing.example.com", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "bars", Singular: "bar", Kind: "Bar", ListKind: "BarList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, dyn := testchain.Clients(t, c)
	bars := dyn.Resource(schema.GroupVersionResource{Group: "tracing.example.com", Version: "v1", Resource: "bars"})
	testchain.WaitFor(t, func() bool {
		_, err := bars.List(context.Background(), metav1.ListOptions{})
		return err == nil
	})
	tr := waitForTrace(t, c, "the list of bars", func(tr *tracing.Trace) bool {
		return tr.Request.Path == "/apis/tracing.example.com/v1/bars" && tr.Request.Code == http.StatusOK
	})
	if got, want := names(tr, chainServers), []string{"aggregator", "core", "extensions"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("servers %v, want %v\n%s", got, want, tree(tr))
	}
	if tr.Request.Server != "extensions" || tr.Request.Verb != "list" {
		t.Errorf("request: %+v", tr.Request)
	}
	if why := mustFind(t, tr, "core").Attributes[tracing.AttrHandedOnBecause]; why != "no route in Core's mux for /apis/tracing.example.com/v1" {
		t.Errorf("core handed on because %q", why)
	}
	if a := mustFind(t, tr, "extensions").Attributes; a[tracing.AttrAnswered] != "true" || a[tracing.AttrHandedOnBecause] != "" {
		t.Errorf("extensions: %v", a)
	}
	list := mustFind(t, tr, tracing.StorageSpanName("list"))
	if a := list.Attributes; !strings.HasSuffix(a[tracing.AttrStorageKey], "/tracing.example.com/bars") || a[tracing.AttrStorageRevision] == "" || a[tracing.AttrWatchCache] == "" {
		t.Errorf("storage: %v", a)
	}
}

// TestNotFound: a group no server has passes every server of the chain to NotFound, which
// answers 404.
func TestNotFound(t *testing.T) {
	c := shared
	const path = "/apis/nothing.example.com/v1/things"
	if resp, body := testchain.Get(t, c, path); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	tr := waitForTrace(t, c, "the 404", requestTo("list", path))
	if got, want := names(tr, chainServers), []string{"aggregator", "core", "extensions", "not-found"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("servers %v, want %v\n%s", got, want, tree(tr))
	}
	if tr.Request.Code != http.StatusNotFound || tr.Request.Server != "not-found" {
		t.Errorf("request: %+v", tr.Request)
	}
	if why := mustFind(t, tr, "extensions").Attributes[tracing.AttrHandedOnBecause]; why != "no CustomResourceDefinition serves /apis/nothing.example.com/v1" {
		t.Errorf("extensions handed on because %q", why)
	}
	if mustFind(t, tr, "not-found").Attributes[tracing.AttrAnswered] != "true" {
		t.Errorf("not-found did not answer\n%s", tree(tr))
	}
}

// TestRBACReason: a request RBAC allows says which binding and role allowed it.
func TestRBACReason(t *testing.T) {
	c := shared
	cs, _ := testchain.Clients(t, c)
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "test-trace-configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-trace-viewer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "trace-viewer"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	viewer := testchain.UserConfig(t, c, "trace-viewer")
	const path = "/api/v1/namespaces/kube-system/configmaps/viewed"
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Do(t, viewer, http.MethodGet, path, nil, "")
		return resp.StatusCode == http.StatusNotFound // allowed; there is no such ConfigMap
	})
	tr := waitForTrace(t, c, "the viewer's GET", func(tr *tracing.Trace) bool {
		return tr.Request.Path == path && tr.Request.Code == http.StatusNotFound
	})
	a := mustFind(t, tr, tracing.SpanAuthorization).Attributes
	if a[tracing.AttrDecision] != "allow" || a[tracing.AttrAuthorizer] != "rbac" ||
		!strings.Contains(a[tracing.AttrReason], "test-trace-viewer") || !strings.Contains(a[tracing.AttrReason], role.Name) {
		t.Errorf("authorization: %v", a)
	}
	// The GET of a ConfigMap that is not there: etcd said so.
	get := mustFind(t, tr, tracing.StorageSpanName("get"))
	if get.Attributes[tracing.AttrStorageKey] != "/registry/configmaps/kube-system/viewed" || get.Status != "error" {
		t.Errorf("storage get: %v %s", get.Attributes, get.Status)
	}
}
