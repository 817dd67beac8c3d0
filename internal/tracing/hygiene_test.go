package tracing

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// TestCleanURL: credentials in a query or in user info are redacted; everything else stays.
func TestCleanURL(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/pods?watch=true&resourceVersion=5":          "/api/v1/pods?watch=true&resourceVersion=5",
		"/api/v1/pods?access_token=abc&watch=1":              "/api/v1/pods?access_token=REDACTED&watch=1",
		"https://h:1/validate?Token=abc":                     "https://h:1/validate?Token=REDACTED",
		"https://user:pw@h:1/x":                              "https://REDACTED@h:1/x",
		"X-Amz-Signature=s&a=b":                              "X-Amz-Signature=REDACTED&a=b",
		"/api/v1/namespaces/default/secrets/token":           "/api/v1/namespaces/default/secrets/token",
		"/apis/authentication.k8s.io/v1/tokenreviews?pretty": "/apis/authentication.k8s.io/v1/tokenreviews?pretty",
	} {
		if got := cleanURL(in); got != want {
			t.Errorf("cleanURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCleanAttrs: an attribute named after a credential goes; the chain's own stay.
func TestCleanAttrs(t *testing.T) {
	attrs := []attribute.KeyValue{
		attribute.String("http.request.header.authorization", "Bearer abc"),
		attribute.String("url.full", "https://h/x?password=p"),
		attribute.String("apichain.authenticator", "token"),
		attribute.String("http.request.method", "GET"),
	}
	m := attributeMap(attrs)
	if _, ok := m["http.request.header.authorization"]; ok || m["url.full"] != "https://h/x?password=REDACTED" ||
		m["apichain.authenticator"] != "token" || m["http.request.method"] != "GET" {
		t.Errorf("cleaned: %v", m)
	}
}
