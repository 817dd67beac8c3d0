package discovery_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apichain/apichain/test/testchain"
)

func TestOpenAPIv2AndV3(t *testing.T) {
	resp, body := testchain.Get(t, shared, "/openapi/v2")
	if resp.StatusCode != 200 {
		t.Fatalf("/openapi/v2: %d", resp.StatusCode)
	}
	var v2 struct {
		Definitions map[string]struct {
			GVK []map[string]string `json:"x-kubernetes-group-version-kind"`
		} `json:"definitions"`
		Paths map[string]interface{} `json:"paths"`
	}
	if err := json.Unmarshal(body, &v2); err != nil {
		t.Fatal(err)
	}
	for name, gvk := range map[string]string{
		"io.k8s.api.core.v1.Pod":                "/v1/Pod",
		"io.k8s.api.coordination.v1.Lease":      "coordination.k8s.io/v1/Lease",
		"io.k8s.api.discovery.v1.EndpointSlice": "discovery.k8s.io/v1/EndpointSlice",
		"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition": "apiextensions.k8s.io/v1/CustomResourceDefinition",
		"io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService":                     "apiregistration.k8s.io/v1/APIService",
	} {
		d, ok := v2.Definitions[name]
		if !ok {
			t.Errorf("/openapi/v2 lacks %s", name)
			continue
		}
		var got []string
		for _, g := range d.GVK {
			got = append(got, g["group"]+"/"+g["version"]+"/"+g["kind"])
		}
		if strings.Join(got, ",") != gvk {
			t.Errorf("%s: x-kubernetes-group-version-kind %v, want [%s]", name, got, gvk)
		}
	}
	for _, p := range []string{"/api/v1/namespaces/{namespace}/pods", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "/apis/apiregistration.k8s.io/v1/apiservices"} {
		if _, ok := v2.Paths[p]; !ok {
			t.Errorf("/openapi/v2 lacks path %s", p)
		}
	}

	resp, body = testchain.Get(t, shared, "/openapi/v3")
	if resp.StatusCode != 200 {
		t.Fatalf("/openapi/v3: %d", resp.StatusCode)
	}
	var v3 struct {
		Paths map[string]interface{} `json:"paths"`
	}
	if err := json.Unmarshal(body, &v3); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"api/v1", "apis/coordination.k8s.io/v1", "apis/discovery.k8s.io/v1", "apis/apiextensions.k8s.io/v1", "apis/apiregistration.k8s.io/v1"} {
		if _, ok := v3.Paths[p]; !ok {
			t.Errorf("/openapi/v3 lacks %s (has %d paths)", p, len(v3.Paths))
		}
	}
	resp, body = testchain.Get(t, shared, "/openapi/v3/api/v1")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"io.k8s.api.core.v1.Pod"`) {
		t.Errorf("/openapi/v3/api/v1: %d", resp.StatusCode)
	}
}
