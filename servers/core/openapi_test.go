package core

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/kube-openapi/pkg/common"

	coreopenapi "github.com/apichain/apichain/servers/core/openapi"
)

// configMapRoutes is a go-restful container with one route, a GET of a ConfigMap, as Core's
// installer would register it: enough for kube-openapi to build a document from.
func configMapRoutes() *restful.Container {
	ws := new(restful.WebService).Path("/api/v1").Produces(restful.MIME_JSON)
	ws.Route(ws.GET("/namespaces/{namespace}/configmaps/{name}").
		To(func(*restful.Request, *restful.Response) {}).
		Operation("readCoreV1NamespacedConfigMap").
		Param(ws.PathParameter("namespace", "the namespace")).
		Param(ws.PathParameter("name", "the name")).
		Returns(http.StatusOK, "OK", corev1.ConfigMap{}).
		Writes(corev1.ConfigMap{}))
	c := restful.NewContainer()
	c.Add(ws)
	return c
}

// openAPIV2Config is Core's v2 config over defs, counting how often a build asks for the
// definitions (once per build).
func openAPIV2Config(t *testing.T, defs common.GetOpenAPIDefinitions, builds *atomic.Int32) *common.Config {
	t.Helper()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	counted := func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		builds.Add(1)
		return defs(ref)
	}
	return genericapiserver.DefaultOpenAPIConfig(counted, openapinamer.NewDefinitionNamer(scheme))
}

func get(h http.Handler, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
	req.Header = header
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestOpenAPIV2IsBuiltOnFirstRequest: nothing is built until /openapi/v2 is asked for; the
// requests that arrive together share one build; the document is byte for byte what
// k8s.io/apiserver's PrepareRun would serve (routes.OpenAPI.InstallV2), and kube-openapi's
// handler serves it (ETag, 304).
func TestOpenAPIV2IsBuiltOnFirstRequest(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	container := configMapRoutes()
	var builds atomic.Int32
	lazy := newLazyOpenAPIV2(container, openAPIV2Config(t, coreopenapi.GetOpenAPIDefinitions, &builds), serializer.NewCodecFactory(scheme))
	if n := builds.Load(); n != 0 {
		t.Fatalf("%d builds before any request, want 0", n)
	}

	asJSON := http.Header{"Accept": {"application/json"}}
	bodies := make([][]byte, 4)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			w := get(lazy, asJSON)
			if w.Code != http.StatusOK {
				t.Errorf("GET /openapi/v2: %d %s", w.Code, w.Body)
			}
			bodies[i] = w.Body.Bytes()
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds for %d requests at once, want 1", n, len(bodies))
	}
	for i, b := range bodies[1:] {
		if !bytes.Equal(b, bodies[0]) {
			t.Errorf("response %d differs from the first", i+1)
		}
	}
	for _, want := range []string{`"io.k8s.api.core.v1.ConfigMap"`, `"/api/v1/namespaces/{namespace}/configmaps/{name}"`, `"x-kubernetes-group-version-kind"`} {
		if !strings.Contains(string(bodies[0]), want) {
			t.Errorf("/openapi/v2 lacks %s", want)
		}
	}

	var eager atomic.Int32
	upstream := mux.NewPathRecorderMux("upstream")
	routes.OpenAPI{Config: openAPIV2Config(t, coreopenapi.GetOpenAPIDefinitions, &eager)}.InstallV2(container, upstream)
	want := get(upstream, asJSON)
	if !bytes.Equal(bodies[0], want.Body.Bytes()) {
		t.Errorf("the lazily built document (%d bytes) differs from PrepareRun's (%d bytes)", len(bodies[0]), want.Body.Len())
	}

	w := get(lazy, http.Header{"Accept": {"application/json"}, "If-None-Match": {want.Header().Get("Etag")}})
	if w.Code != http.StatusNotModified {
		t.Errorf("GET with PrepareRun's ETag %s: %d, want 304", want.Header().Get("Etag"), w.Code)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds after a later request, want still 1", n)
	}
}

// TestOpenAPIV2BuildFailureIsAStatus: a route whose type has no definition cannot be built;
// the request gets a 503 Status saying why (PrepareRun would have ended the process), and so
// does the next one, without another build.
func TestOpenAPIV2BuildFailureIsAStatus(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	noConfigMap := func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := coreopenapi.GetOpenAPIDefinitions(ref)
		delete(defs, corev1.ConfigMap{}.OpenAPIModelName())
		return defs
	}
	var builds atomic.Int32
	lazy := newLazyOpenAPIV2(configMapRoutes(), openAPIV2Config(t, noConfigMap, &builds), serializer.NewCodecFactory(scheme))
	for i := range 2 {
		w := get(lazy, http.Header{"Accept": {"application/json"}})
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("request %d: %d, want 503", i, w.Code)
		}
		var status metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil {
			t.Fatalf("request %d: body is no Status: %v\n%s", i, err, w.Body)
		}
		if status.Kind != "Status" || status.Code != http.StatusServiceUnavailable || status.Reason != metav1.StatusReasonServiceUnavailable ||
			!strings.Contains(status.Message, corev1.ConfigMap{}.OpenAPIModelName()) {
			t.Errorf("request %d: %+v, want a 503 ServiceUnavailable Status naming the type without a definition", i, status)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds for two requests, want 1", n)
	}
}

// v3Config is Core's v3 config as the chain makes it: a fresh one each call, over the same
// definitions.
func v3Config(t *testing.T) *common.OpenAPIV3Config {
	t.Helper()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return genericapiserver.DefaultOpenAPIV3Config(coreopenapi.GetOpenAPIDefinitions, openapinamer.NewDefinitionNamer(scheme))
}

func getV3(h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

// TestOpenAPIV3SharedBetweenIdenticalCores: Cores with the same routes and configuration, asking
// at once or one after another, get one v3 service; its documents are byte for byte what
// k8s.io/apiserver's PrepareRun would serve. A Core with other routes gets its own.
func TestOpenAPIV3SharedBetweenIdenticalCores(t *testing.T) {
	services := make([]any, 4)
	var wg sync.WaitGroup
	for i := range services {
		container, config := configMapRoutes(), v3Config(t)
		wg.Go(func() { services[i] = openAPIV3Service(container, config) })
	}
	wg.Wait()
	later := openAPIV3Service(configMapRoutes(), v3Config(t))
	for i, s := range append(services, later) {
		if s != services[0] {
			t.Errorf("Core %d has a v3 service of its own, want the one shared by identical Cores", i)
		}
	}

	shared := mux.NewPathRecorderMux("shared")
	_ = later.RegisterOpenAPIV3VersionedService("/openapi/v3", shared)
	upstream := mux.NewPathRecorderMux("upstream")
	routes.OpenAPI{V3Config: v3Config(t)}.InstallV3(configMapRoutes(), upstream)
	for _, path := range []string{"/openapi/v3", "/openapi/v3/api/v1"} {
		got, want := getV3(shared, path), getV3(upstream, path)
		if got.Code != http.StatusOK || want.Code != http.StatusOK {
			t.Fatalf("GET %s: shared %d, PrepareRun's %d", path, got.Code, want.Code)
		}
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("GET %s: the shared document (%d bytes) differs from PrepareRun's (%d bytes)", path, got.Body.Len(), want.Body.Len())
		}
	}

	other := configMapRoutes()
	ws := new(restful.WebService).Path("/apis/example.com/v1").Produces(restful.MIME_JSON)
	ws.Route(ws.GET("/namespaces/{namespace}/configmaps").To(func(*restful.Request, *restful.Response) {}).
		Operation("listExampleV1NamespacedConfigMap").Returns(http.StatusOK, "OK", corev1.ConfigMapList{}).Writes(corev1.ConfigMapList{}))
	other.Add(ws)
	if s := openAPIV3Service(other, v3Config(t)); s == later {
		t.Error("a Core with another route shares the v3 service of one without it")
	}
}
