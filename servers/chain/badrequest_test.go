package chain_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestBadRequestsGetStatusErrors sends malformed requests to every server of the chain: each
// gets a 4xx Status saying what is wrong, never a 5xx.
func TestBadRequestsGetStatusErrors(t *testing.T) {
	ns := newNamespace(t)
	cm := "/api/v1/namespaces/" + ns + "/configmaps"
	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                metav1.StatusReason
		message                               string
	}{
		{"broken JSON", "POST", cm, "application/json", `{"apiVersion":"v1","kind":"ConfigMap",`, 400, metav1.StatusReasonBadRequest, "json parse error"},
		{"broken YAML", "POST", cm, "application/yaml", "apiVersion: v1\nkind: [ConfigMap", 400, metav1.StatusReasonBadRequest, ""},
		{"broken protobuf", "POST", cm, "application/vnd.kubernetes.protobuf", "k8s\x00garbage", 400, metav1.StatusReasonBadRequest, ""},
		{"wrong kind for the path", "POST", cm, "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`, 400, metav1.StatusReasonBadRequest, `Secret in version "v1" cannot be handled as a ConfigMap`},
		{"invalid name", "POST", cm, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`, 422, metav1.StatusReasonInvalid,
			`ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"pod without containers", "POST", "/api/v1/namespaces/" + ns + "/pods", "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]}}`, 422, metav1.StatusReasonInvalid, `Pod "p" is invalid: spec.containers: Required value`},
		{"bad label selector", "GET", cm + "?labelSelector=a%3D%3D%3Db", "", "", 400, metav1.StatusReasonBadRequest, ""},
		{"unknown field selector", "GET", "/api/v1/pods?fieldSelector=spec.nope%3Dx", "", "", 400, metav1.StatusReasonBadRequest, "field label not supported: spec.nope"},
		{"bad resourceVersion", "GET", cm + "?resourceVersion=notanumber&resourceVersionMatch=NotOlderThan", "", "", 400, metav1.StatusReasonBadRequest, ""},
		{"bad continue token", "GET", cm + "?limit=1&continue=garbage", "", "", 400, metav1.StatusReasonBadRequest, "continue key is not valid"},
		{"bad JSON patch", "PATCH", "/api/v1/namespaces/default/services/kubernetes", "application/json-patch+json", `[{"op":"frobnicate"}]`, 422, metav1.StatusReasonInvalid, ""},
		{"missing object", "GET", cm + "/nope", "", "", 404, metav1.StatusReasonNotFound, `configmaps "nope" not found`},
		{"unknown core resource", "GET", "/api/v1/frobs", "", "", 404, metav1.StatusReasonNotFound, ""},
		{"bad CRD", "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bad"}}`, 422, metav1.StatusReasonInvalid, ""},
		{"bad APIService", "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "application/json", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"bad"}}`, 422, metav1.StatusReasonInvalid, ""},
		{"broken JSON to the aggregator", "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "application/json", `{`, 400, metav1.StatusReasonBadRequest, ""},
		{"path traversal in a name", "GET", cm + "/..%2F..%2Fsecrets", "", "", 404, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, shared.Admin, tc.method, tc.path, []byte(tc.body), tc.contentType)
			if resp.StatusCode >= 500 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if resp.StatusCode != tc.code {
				t.Errorf("code %d, want %d: %s", resp.StatusCode, tc.code, body)
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				return // 404 for an unknown path is a Status too, checked elsewhere
			}
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
				t.Fatalf("not a Status: %v %s", err, body)
			}
			if tc.reason != "" && st.Reason != tc.reason {
				t.Errorf("reason %q, want %q: %s", st.Reason, tc.reason, st.Message)
			}
			if !strings.Contains(st.Message, tc.message) {
				t.Errorf("message %q does not contain %q", st.Message, tc.message)
			}
		})
	}
}
