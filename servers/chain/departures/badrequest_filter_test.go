package departures

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/apichain/apichain/servers/core"
)

// TestBadInputAs4xx checks the head's filter on its own, with a stand-in for the servers that
// answers as k8s.io/apiserver's handlers do: a plain error becomes a 500 without a reason, a
// Status keeps its own. TestBadRequestsGetStatusErrors and FuzzWrites check it in the chain.
func TestBadInputAs4xx(t *testing.T) {
	scheme := runtime.NewScheme()
	core.AddMetaTypes(scheme) // the Status and discovery types, as the chain's shared serializer has them
	codecs := serializer.NewCodecFactory(scheme)
	directive := "unknown patch type: frobnicate in map: map[$patch:frobnicate]"
	// A directive whose message is over the 128 KiB above which the apiserver gzips a response.
	bigDirective := "unknown patch type: frobnicate in map: map[$patch:frobnicate x:" + strings.Repeat("x", 200*1024) + "]"
	typedPatch := "failed to create typed patch object (/cm; /v1, Kind=ConfigMap): .data: expected map, got &{[1 2]}"
	cases := []struct {
		name, method, path, contentType, accept string
		info                                    request.RequestInfo
		remote                                  bool
		// answer is the servers' error (nil: 200 OK); passed says whether they saw the request.
		answer   error
		passed   bool
		code     int
		message  string
		compress bool
	}{
		{name: "get at a resourceVersion that is not a number", method: "GET", path: "/api/v1/namespaces/ns/configmaps/cm?resourceVersion=abc",
			info: resource("get", ""), code: 400, message: `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{name: "watch from -1", method: "GET", path: "/api/v1/configmaps?watch=1&resourceVersion=-1",
			info: resource("watch", ""), code: 400, message: `Invalid value: "-1"`},
		{name: "list at resourceVersion 0", method: "GET", path: "/api/v1/configmaps?resourceVersion=0", info: resource("list", ""), passed: true, code: 200},
		{name: "list at an empty resourceVersion", method: "GET", path: "/api/v1/configmaps?resourceVersion=", info: resource("list", ""), passed: true, code: 200},
		{name: "get at a number", method: "GET", path: "/api/v1/namespaces/ns/configmaps/cm?resourceVersion=12", info: resource("get", ""), passed: true, code: 200},
		{name: "a subresource's own query", method: "GET", path: "/api/v1/namespaces/ns/pods/p/proxy/x?resourceVersion=abc", info: resource("get", "proxy"), passed: true, code: 200},
		{name: "a create ignores the parameter", method: "POST", path: "/api/v1/namespaces/ns/configmaps?resourceVersion=abc", info: resource("create", ""), passed: true, code: 200},
		{name: "not a resource", method: "GET", path: "/healthz?resourceVersion=abc", info: request.RequestInfo{Verb: "get", Path: "/healthz"}, passed: true, code: 200},
		{name: "a remote APIService's", method: "GET", path: "/apis/metrics.k8s.io/v1beta1/pods?resourceVersion=abc", info: resource("list", ""), remote: true, passed: true, code: 200},

		{name: "unknown directive", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), answer: errors.New(directive), passed: true, code: 400, message: directive},
		{name: "unknown directive, protobuf", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json", accept: "application/vnd.kubernetes.protobuf",
			info: resource("patch", ""), answer: errors.New(directive), passed: true, code: 400, message: directive},
		{name: "unknown directive, gzipped", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), answer: errors.New(bigDirective), passed: true, code: 400, message: bigDirective, compress: true},
		{name: "a top-level directive", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), answer: errors.New("unknown patch type: merge in map: map[$patch:merge]"), passed: true, code: 400, message: "unknown patch type: merge"},
		{name: "an apply patch of the wrong type", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm?fieldManager=x", contentType: "application/apply-patch+yaml",
			info: resource("patch", ""), answer: errors.New(typedPatch), passed: true, code: 400, message: typedPatch},
		{name: "a merge patch's plain error", method: "PATCH", path: "/api/v1/namespaces/ns/pods/p/status", contentType: "application/merge-patch+json",
			info: resource("patch", "status"), answer: errors.New("unrecognized type: string"), passed: true, code: 400, message: "unrecognized type: string"},
		{name: "the server's 500 stays", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), answer: apierrors.NewInternalError(errors.New("etcdserver: leader changed")), passed: true, code: 500, message: "etcdserver: leader changed"},
		{name: "a timeout stays", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/apply-patch+yaml",
			info: resource("patch", ""), answer: apierrors.NewTimeoutError("request did not complete within requested timeout", 0), passed: true, code: 504, message: "did not complete"},
		{name: "a 4xx passes", method: "PATCH", path: "/api/v1/namespaces/ns/configmaps/cm", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), answer: apierrors.NewBadRequest("invalid JSON document"), passed: true, code: 400, message: "invalid JSON document"},
		{name: "a create's plain error stays", method: "POST", path: "/api/v1/namespaces/ns/configmaps", contentType: "application/json",
			info: resource("create", ""), answer: errors.New("unknown patch type: x"), passed: true, code: 500, message: "unknown patch type: x"},
		{name: "a remote server's 500 stays", method: "PATCH", path: "/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods/p", contentType: "application/strategic-merge-patch+json",
			info: resource("patch", ""), remote: true, answer: errors.New(directive), passed: true, code: 500, message: directive},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			passed := false
			servers := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				passed = true
				if tc.answer != nil {
					responsewriters.ErrorNegotiated(tc.answer, codecs, schema.GroupVersion{Version: "v1"}, w, r)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			remote := func(*http.Request) string {
				if tc.remote {
					return "v1beta1.metrics.k8s.io"
				}
				return ""
			}
			r := httptest.NewRequest(tc.method, tc.path, strings.NewReader("{}"))
			r.Header.Set("Content-Type", tc.contentType)
			r.Header.Set("Accept-Encoding", "gzip")
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			info := tc.info
			r = r.WithContext(request.WithRequestInfo(r.Context(), &info))
			w := httptest.NewRecorder()
			withBadInputAs4xx(servers, codecs, remote).ServeHTTP(w, r)

			if passed != tc.passed {
				t.Errorf("the servers saw the request: %v, want %v", passed, tc.passed)
			}
			if w.Code != tc.code {
				t.Fatalf("code %d, want %d: %.300s", w.Code, tc.code, w.Body.String())
			}
			if tc.code == 200 {
				return
			}
			if got := w.Header().Get("Content-Encoding") == "gzip"; got != tc.compress {
				t.Errorf("gzip: %v, want %v", got, tc.compress)
			}
			status := decodeStatus(codecs, w.Header(), w.Body.Bytes())
			if status == nil {
				t.Fatalf("not a Status: %.300s", w.Body.String())
			}
			if status.Code != int32(tc.code) || !strings.Contains(status.Message, tc.message) {
				t.Errorf("Status %d %.300q, want %d %.300q", status.Code, status.Message, tc.code, tc.message)
			}
			if tc.code == 400 && status.Reason != metav1.StatusReasonBadRequest {
				t.Errorf("reason %q", status.Reason)
			}
		})
	}
}

func resource(verb, subresource string) request.RequestInfo {
	return request.RequestInfo{IsResourceRequest: true, Verb: verb, APIVersion: "v1", Subresource: subresource}
}
