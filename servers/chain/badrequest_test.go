package chain_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// badCase is one malformed request and the 4xx Status it must get.
type badCase struct {
	name, method, path, contentType, body string
	code                                  int
	reason                                metav1.StatusReason
	// message must appear in the Status's message ("" for any non-empty message).
	message string
	// anyServer: the request may end at another server than the target's (a path that names
	// nothing may fall through to not-found).
	anyServer bool
	// head: the head's filter chain answers (servers/chain/badrequest.go) before any server sees
	// the request, so X-Chain-Server says aggregator whichever server the request was for.
	head bool
	// departs, if set, names where kube-apiserver v1.37.2 answers this request 500 (the
	// kubernetes issue, or the upstream code): the chain answers 4xx on purpose, a departure
	// that docs/reliability.md lists.
	departs string
}

// badTarget is a resource of one server of the chain, to send bad input to.
type badTarget struct {
	name string
	// server must answer (the X-Chain-Server header): the request reached the server it is for.
	server string
	// collection is the resource's list path; existing is an object in it, for updates and patches.
	collection, existing string
	apiVersion, kind     string
	// builtIn: Core's and the Aggregator's types speak protobuf and strategic merge patch;
	// custom resources answer both with 415 Unsupported Media Type, as kube-apiserver does.
	builtIn bool
	// fieldSelectorMessage is what an unknown field selector is told.
	fieldSelectorMessage string
}

// maxBody is kube-apiserver's limit on a request body (genericapiserver.Config.MaxRequestBodyBytes).
const maxBody = 3 * 1024 * 1024

// nested is a JSON value nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// corpus is the malformed requests every writable resource gets.
func (tg badTarget) corpus() []badCase {
	obj := func(name, extra string) string {
		return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q}%s}`, tg.apiVersion, tg.kind, name, extra)
	}
	one := tg.collection + "/" + tg.existing
	const json, yaml, pb = "application/json", "application/yaml", "application/vnd.kubernetes.protobuf"
	unsupported := func(code int) int {
		if tg.builtIn {
			return code
		}
		return http.StatusUnsupportedMediaType
	}
	pbReason, smpReason := metav1.StatusReasonBadRequest, metav1.StatusReasonBadRequest
	// A strategic merge patch that strategicpatch cannot apply (an unknown $patch directive:
	// ErrBadPatchType) fails with an error the patch handler's interpretStrategicMergePatchError
	// does not map to a 4xx; kube-apiserver answers 500. Custom resources take no strategic
	// merge patches at all: 415.
	smpDeparts := "k8s.io/apiserver handlers/patch.go interpretStrategicMergePatchError"
	smpMessage := func(m string) string { return m }
	if !tg.builtIn {
		pbReason, smpReason = metav1.StatusReasonUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType
		smpDeparts = ""
		smpMessage = func(string) string { return "" }
	}
	smpDirective := smpMessage("unknown patch type: frobnicate")
	// What kube-apiserver says of a resourceVersion it cannot parse on a list
	// (etcd3's validateMinimumResourceVersion), and the chain says on any get, list or watch.
	const invalidRV = `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
	// A continue token that names a key outside the resource: base64 of the JSON kube-apiserver
	// encodes, with a start key that climbs out of the prefix.
	escapingContinue := base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1,"start":"../../secrets/kube-system/x"}`))
	huge := obj("huge", `,"data":{"x":"`+strings.Repeat("x", maxBody)+`"}`)
	return []badCase{
		// Bodies that do not decode.
		{name: "broken JSON", method: "POST", path: tg.collection, contentType: json, body: obj("x", "")[:30], code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "broken YAML", method: "POST", path: tg.collection, contentType: yaml, body: "apiVersion: v1\nkind: [" + tg.kind, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "broken protobuf", method: "POST", path: tg.collection, contentType: pb, body: "k8s\x00\x0a\xff\xffgarbage", code: unsupported(400), reason: pbReason},
		{name: "unknown content type", method: "POST", path: tg.collection, contentType: "application/x-frob", body: obj("x", ""), code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "JSON nested 10001 levels", method: "POST", path: tg.collection, contentType: json, body: obj("deep", `,"x":`+nested(10001)), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "YAML nested 10001 levels", method: "POST", path: tg.collection, contentType: yaml, body: "apiVersion: " + tg.apiVersion + "\nkind: " + tg.kind + "\nmetadata: {name: deep}\nx: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001), code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "body over 3 MiB", method: "POST", path: tg.collection, contentType: json, body: huge, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "limit is 3145728"},
		// Bodies that decode to the wrong thing.
		{name: "wrong kind for the path", method: "POST", path: tg.collection, contentType: json, body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		// RBAC names are path segments only (kube-apiserver's ValidateRBACName): "Bad_Name" is a
		// valid Role name, "Bad%Name" is no valid name of any resource.
		{name: "invalid name", method: "POST", path: tg.collection, contentType: json, body: obj("Bad%Name", ""), code: 422, reason: metav1.StatusReasonInvalid, message: `metadata.name: Invalid value: "Bad%Name"`},
		{name: "path traversal in a created name", method: "POST", path: tg.collection, contentType: json, body: obj("../../secrets", ""), code: 422, reason: metav1.StatusReasonInvalid, message: `metadata.name: Invalid value: "../../secrets"`},
		{name: "name of the body differs from the URL", method: "PUT", path: one, contentType: json, body: obj("other", ""), code: 400, reason: metav1.StatusReasonBadRequest, message: "does not match the name on the URL"},
		// The admission plugin NumericResourceVersion (servers/chain/admission) answers these.
		{name: "update with a resourceVersion that is not a number", method: "PUT", path: one, contentType: json, body: fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"resourceVersion":"abc"}}`, tg.apiVersion, tg.kind, tg.existing), code: 422, reason: metav1.StatusReasonInvalid, message: `metadata.resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`, departs: "kubernetes/kubernetes#68202"},
		{name: "merge patch setting a resourceVersion that is not a number", method: "PATCH", path: one, contentType: "application/merge-patch+json", body: `{"metadata":{"resourceVersion":"abc"}}`, code: 422, reason: metav1.StatusReasonInvalid, message: `metadata.resourceVersion: Invalid value: "abc"`, departs: "kubernetes/kubernetes#68202"},
		// Bad query parameters.
		{name: "bad label selector", method: "GET", path: tg.collection + "?labelSelector=a%3D%3D%3Db", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unparsable label selector", method: "GET", path: tg.collection + "?labelSelector=a+in+(b", code: 400, reason: metav1.StatusReasonBadRequest, message: "unable to parse requirement"},
		{name: "unknown field selector", method: "GET", path: tg.collection + "?fieldSelector=spec.nope%3Dx", code: 400, reason: metav1.StatusReasonBadRequest, message: tg.fieldSelectorMessage},
		{name: "field selector without an operator", method: "GET", path: tg.collection + "?fieldSelector=metadata.name", code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid selector"},
		{name: "resourceVersion not a number", method: "GET", path: tg.collection + "?resourceVersion=abc&resourceVersionMatch=NotOlderThan", code: 400, reason: metav1.StatusReasonBadRequest, message: invalidRV, head: true},
		{name: "resourceVersionMatch without a resourceVersion", method: "GET", path: tg.collection + "?resourceVersionMatch=Exact", code: 422, reason: metav1.StatusReasonInvalid, message: "resourceVersionMatch"},
		{name: "list at a resourceVersion that is not a number", method: "GET", path: tg.collection + "?resourceVersion=abc", code: 400, reason: metav1.StatusReasonBadRequest, message: invalidRV, head: true},
		{name: "watch from a resourceVersion that is not a number", method: "GET", path: tg.collection + "?watch=1&resourceVersion=abc", code: 400, reason: metav1.StatusReasonBadRequest, message: invalidRV, head: true, departs: "kubernetes/kubernetes#139485"},
		{name: "get at a resourceVersion that is not a number", method: "GET", path: one + "?resourceVersion=abc", code: 400, reason: metav1.StatusReasonBadRequest, message: invalidRV, head: true, departs: "kubernetes/kubernetes#139485"},
		{name: "garbage continue token", method: "GET", path: tg.collection + "?limit=1&continue=garbage", code: 400, reason: metav1.StatusReasonBadRequest, message: "continue key is not valid"},
		{name: "continue token escaping the resource", method: "GET", path: tg.collection + "?limit=1&continue=" + escapingContinue, code: 400, reason: metav1.StatusReasonBadRequest, message: "continue key is not valid"},
		// Bad patches.
		{name: "JSON patch with an unknown op", method: "PATCH", path: one, contentType: "application/json-patch+json", body: `[{"op":"frobnicate","path":"/metadata/labels"}]`, code: 422, reason: metav1.StatusReasonInvalid},
		{name: "JSON patch that is not JSON", method: "PATCH", path: one, contentType: "application/json-patch+json", body: `[{"op":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "JSON patch removing a missing path", method: "PATCH", path: one, contentType: "application/json-patch+json", body: `[{"op":"remove","path":"/nope/deeper"}]`, code: 422, reason: metav1.StatusReasonInvalid},
		{name: "merge patch that is not JSON", method: "PATCH", path: one, contentType: "application/merge-patch+json", body: `{"metadata":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "merge patch nested 10001 levels", method: "PATCH", path: one, contentType: "application/merge-patch+json", body: `{"metadata":{"labels":` + nested(10001) + `}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "strategic merge patch that is not JSON", method: "PATCH", path: one, contentType: "application/strategic-merge-patch+json", body: `{"metadata":`, code: unsupported(400), reason: smpReason},
		{name: "strategic merge patch with a bad directive", method: "PATCH", path: one, contentType: "application/strategic-merge-patch+json", body: `{"metadata":{"$patch":"frobnicate"}}`, code: unsupported(400), reason: smpReason, message: smpDirective, departs: smpDeparts},
		// The issue-19 classes: patches the patch handler cannot apply, answered 500 by
		// kube-apiserver with "not an metav1.Status" in its log (badrequest.go servePatch).
		{name: "strategic merge patch with a top-level directive", method: "PATCH", path: one, contentType: "application/strategic-merge-patch+json", body: `{"$patch":"nope"}`, code: unsupported(400), reason: smpReason, message: smpMessage("unknown patch type: nope"), departs: smpDeparts},
		{name: "strategic merge patch merging the whole object", method: "PATCH", path: one, contentType: "application/strategic-merge-patch+json", body: `{"$patch":"merge"}`, code: unsupported(400), reason: smpReason, message: smpMessage("unknown patch type: merge"), departs: smpDeparts},
		{name: "strategic merge patch of a list with a map's order", method: "PATCH", path: one, contentType: "application/strategic-merge-patch+json", body: `{"metadata":{"$setElementOrder/finalizers":[{"a":1}],"finalizers":["x"]}}`, code: unsupported(400), reason: smpReason, departs: smpDeparts},
		{name: "apply patch with labels of the wrong type", method: "PATCH", path: one + "?fieldManager=bad", contentType: "application/apply-patch+yaml", body: fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"labels":[1,2]}}`, tg.apiVersion, tg.kind, tg.existing), code: 400, reason: metav1.StatusReasonBadRequest, message: "failed to create typed patch object", departs: "kubernetes/kubernetes#139253"},
		{name: "apply patch with labels of the wrong type, dry run", method: "PATCH", path: one + "?fieldManager=bad&dryRun=All", contentType: "application/apply-patch+yaml", body: fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  labels: [1, 2]\n", tg.apiVersion, tg.kind, tg.existing), code: 400, reason: metav1.StatusReasonBadRequest, message: ".metadata.labels: expected map", departs: "kubernetes/kubernetes#139253"},
		{name: "apply patch creating an object with labels of the wrong type", method: "PATCH", path: tg.collection + "/new-one?fieldManager=bad", contentType: "application/apply-patch+yaml", body: fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"new-one","labels":"x"}}`, tg.apiVersion, tg.kind), code: 400, reason: metav1.StatusReasonBadRequest, message: ".metadata.labels: expected map", departs: "kubernetes/kubernetes#139253"},
		{name: "apply patch with bad YAML", method: "PATCH", path: one + "?fieldManager=bad", contentType: "application/apply-patch+yaml", body: "apiVersion: " + tg.apiVersion + "\nkind: [", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "apply patch without a field manager", method: "PATCH", path: one, contentType: "application/apply-patch+yaml", body: obj(tg.existing, ""), code: 422, reason: metav1.StatusReasonInvalid, message: "fieldManager"},
		{name: "apply patch of another kind", method: "PATCH", path: one + "?fieldManager=bad", contentType: "application/apply-patch+yaml", body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"` + tg.existing + `"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "patch of an unknown patch type", method: "PATCH", path: one, contentType: "application/x-frob-patch", body: `{}`, code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "patch over 3 MiB", method: "PATCH", path: one, contentType: "application/merge-patch+json", body: huge, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "delete with broken options", method: "DELETE", path: one, contentType: json, body: `{"kind":"DeleteOptions",`, code: 400, reason: metav1.StatusReasonBadRequest},
		// Names that try to climb out of the resource: they name no object.
		{name: "path traversal in a name, escaped slashes", method: "GET", path: tg.collection + "/..%2F..%2Fsecrets", code: 404, anyServer: true},
		{name: "path traversal in a name, dot-dot", method: "GET", path: tg.collection + "/%2E%2E", code: 400, reason: metav1.StatusReasonBadRequest, message: `Name parameter invalid: "..": may not be '..'`},
		{name: "NUL in a name", method: "GET", path: tg.collection + "/a%00b", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "missing object", method: "GET", path: tg.collection + "/nope", code: 404, reason: metav1.StatusReasonNotFound, message: `"nope" not found`},
	}
}

// TestBadRequestsGetStatusErrors sends a corpus of malformed requests to resources of every
// server of the chain: Core's built-ins in three groups, a custom resource (ApiExtensions),
// CRDs and APIServices (the Aggregator). Each gets a 4xx Status saying what is wrong, from the
// server it was for, never a 5xx; the chain is ready afterwards.
func TestBadRequestsGetStatusErrors(t *testing.T) {
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	crd := badRequestsCRD(t)
	seed := func(path, body string) {
		t.Helper()
		if resp, b := testchain.Do(t, shared.Admin, "POST", path, []byte(body), "application/json"); resp.StatusCode != http.StatusCreated {
			t.Fatalf("creating %s: %d %s", path, resp.StatusCode, b)
		}
	}
	core := "/api/v1/namespaces/" + ns
	apps := "/apis/apps/v1/namespaces/" + ns
	seed(core+"/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)
	seed(core+"/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	seed(apps+"/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dep"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`)
	seed("/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/roles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"role"}}`)
	crs := "/apis/" + crd.Spec.Group + "/v1/namespaces/" + ns + "/widgets"
	seed(crs, `{"apiVersion":"`+crd.Spec.Group+`/v1","kind":"Widget","metadata":{"name":"w"}}`)

	// Core and the Aggregator say `"spec.nope" is not a known field selector`, ApiExtensions
	// `field label not supported: spec.nope`, as in kube-apiserver.
	const unknownField = "spec.nope"
	targets := []badTarget{
		{name: "core v1 configmaps", server: "core", collection: core + "/configmaps", existing: "cm", apiVersion: "v1", kind: "ConfigMap", builtIn: true, fieldSelectorMessage: unknownField},
		{name: "core v1 pods", server: "core", collection: core + "/pods", existing: "pod", apiVersion: "v1", kind: "Pod", builtIn: true, fieldSelectorMessage: unknownField},
		{name: "apps/v1 deployments", server: "core", collection: apps + "/deployments", existing: "dep", apiVersion: "apps/v1", kind: "Deployment", builtIn: true, fieldSelectorMessage: unknownField},
		{name: "rbac roles", server: "core", collection: "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", existing: "role", apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", builtIn: true, fieldSelectorMessage: unknownField},
		{name: "custom resources", server: "extensions", collection: crs, existing: "w", apiVersion: crd.Spec.Group + "/v1", kind: "Widget",
			fieldSelectorMessage: unknownField},
		{name: "CRDs", server: "extensions", collection: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", existing: crd.Name, apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", builtIn: true,
			fieldSelectorMessage: unknownField},
		{name: "APIServices", server: "aggregator", collection: "/apis/apiregistration.k8s.io/v1/apiservices", existing: "v1.apps", apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", builtIn: true,
			fieldSelectorMessage: unknownField},
	}
	cases, departs := 0, 0
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			for _, tc := range tg.corpus() {
				cases++
				if tc.departs != "" {
					departs++
				}
				t.Run(tc.name, func(t *testing.T) { checkBadRequest(t, shared.Admin, tg.server, tc) })
			}
		})
	}
	// Requests about no resource in particular.
	for _, tc := range []badCase{
		{name: "pod without containers", method: "POST", path: core + "/pods", contentType: "application/json", body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]}}`, code: 422, reason: metav1.StatusReasonInvalid, message: `Pod "p" is invalid: spec.containers: Required value`},
		{name: "unknown field selector for all pods", method: "GET", path: "/api/v1/pods?fieldSelector=spec.nope%3Dx", code: 400, reason: metav1.StatusReasonBadRequest, message: "field label not supported: spec.nope"},
		{name: "unknown core resource", method: "GET", path: "/api/v1/frobs", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "bad CRD", method: "POST", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", contentType: "application/json", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bad"}}`, code: 422, reason: metav1.StatusReasonInvalid},
		{name: "bad APIService", method: "POST", path: "/apis/apiregistration.k8s.io/v1/apiservices", contentType: "application/json", body: `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"bad"}}`, code: 422, reason: metav1.StatusReasonInvalid},
		{name: "deployment whose selector misses its template", method: "POST", path: apps + "/deployments", contentType: "application/json", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`, code: 422, reason: metav1.StatusReasonInvalid, message: "`selector` does not match template `labels`"},
		// Objects etcd refuses for their size, under the 3 MiB a body may have: over etcd's
		// --max-request-bytes (1.5 MiB), and over its client's 2 MiB limit on a message.
		// kube-apiserver answers these 500 ("etcdserver: request is too large",
		// kubernetes/kubernetes#112152); the chain's storage answers 413 (storageerrors.go).
		{name: "pod too large for etcd", method: "POST", path: core + "/pods", contentType: "application/json", body: podWithEnv("big", 1800), code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "the object is too large to store: etcdserver: request is too large", departs: "kubernetes/kubernetes#112152"},
		{name: "pod too large for etcd's client", method: "POST", path: core + "/pods", contentType: "application/json", body: podWithEnv("bigger", 2400), code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "the object is too large to store", departs: "kubernetes/kubernetes#112152"},
		{name: "patch making an object too large for etcd", method: "PATCH", path: crs + "/w", contentType: "application/merge-patch+json", body: `{"spec":{"blob":"` + strings.Repeat("x", 1700*1024) + `"}}`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge, message: "the object is too large to store", departs: "kubernetes/kubernetes#112152"},
		{name: "role with a rule without verbs", method: "POST", path: "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", contentType: "application/json", body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"]}]}`, code: 422, reason: metav1.StatusReasonInvalid, message: "rules[0].verbs: Required value"},
	} {
		cases++
		if tc.departs != "" {
			departs++
		}
		t.Run(tc.name, func(t *testing.T) { checkBadRequest(t, shared.Admin, "", tc) })
	}
	t.Logf("%d malformed requests, %d of them answered 4xx where kube-apiserver answers 500", cases, departs)

	// Nothing broke: the chain is ready and still answers.
	if _, err := apiextensionsclient.NewForConfigOrDie(shared.Admin).ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("after the corpus: %v", err)
	}
	expectReady(t, shared)
}

// podWithEnv is a pod whose container has n environment variables of 1 kB each.
func podWithEnv(name string, n int) string {
	env := make([]string, n)
	for i := range env {
		env[i] = fmt.Sprintf(`{"name":"E%d","value":%q}`, i, strings.Repeat("v", 1000))
	}
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"x","env":[` + strings.Join(env, ",") + `]}]}}`
}

// checkBadRequest sends tc and checks that it gets a 4xx Status with the expected code,
// reason and message, from server (a prefix of the X-Chain-Server header) unless that is "" or
// the case allows any; from the head, the aggregator, if the head's filters answer it.
func checkBadRequest(t *testing.T, cfg *rest.Config, server string, tc badCase) {
	t.Helper()
	if tc.head && server != "" {
		server = "aggregator"
	}
	resp, body := testchain.Do(t, cfg, tc.method, tc.path, []byte(tc.body), tc.contentType)
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", tc.method, tc.path, resp.StatusCode, truncate(body))
	}
	if resp.StatusCode != tc.code {
		t.Errorf("code %d, want %d: %s", resp.StatusCode, tc.code, truncate(body))
	}
	// Through the Aggregator's proxy the header is "remote:<APIService>": server may be a prefix.
	if got := resp.Header.Get(chain.ChainServerHeader); server != "" && !tc.anyServer && !strings.HasPrefix(got, server) {
		t.Errorf("answered by %q, want %q", got, server)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("not a Status (%s): %v %s", resp.Header.Get("Content-Type"), err, truncate(body))
	}
	if st.Code != int32(resp.StatusCode) || st.Status != metav1.StatusFailure {
		t.Errorf("Status code %d, status %q; the response is %d", st.Code, st.Status, resp.StatusCode)
	}
	if tc.reason != "" && st.Reason != tc.reason {
		t.Errorf("reason %q, want %q: %s", st.Reason, tc.reason, st.Message)
	}
	if strings.TrimSpace(st.Message) == "" || !strings.Contains(st.Message, tc.message) {
		t.Errorf("message %q does not contain %q", st.Message, tc.message)
	}
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// expectReady checks that c is still up and ready.
func expectReady(t *testing.T, c *chain.Chain) {
	t.Helper()
	select {
	case <-c.Done():
		t.Fatalf("the chain stopped: %v", c.Err())
	default:
	}
	if resp, body := testchain.Get(t, c, "/readyz"); resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("/readyz: %d %s", resp.StatusCode, body)
	}
}

// badRequestsCRD creates a namespaced CRD of its own group (widgets) and waits until it is
// established.
func badRequestsCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	ctx := context.Background()
	client := apiextensionsclient.NewForConfigOrDie(shared.Admin).ApiextensionsV1().CustomResourceDefinitions()
	group := "badrequests.example.com"
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	created, err := client.Create(ctx, crd, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	testchain.WaitFor(t, func() bool {
		got, err := client.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	// Established, and served: discovery of the group can lag a moment behind the condition.
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Get(t, shared, "/apis/"+group+"/v1/widgets")
		return resp.StatusCode == 200
	})
	return created
}
