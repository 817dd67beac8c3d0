package apiservice

import (
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestEndpointOfURL: what the EndpointSlice holds for each kind of host. Loopback becomes a
// name under .localhost, since an EndpointSlice may not hold a loopback address.
func TestEndpointOfURL(t *testing.T) {
	for _, tc := range []struct {
		url     string
		typ     discoveryv1.AddressType
		address string
		port    int32
	}{
		{"https://127.0.0.1:8443", discoveryv1.AddressTypeFQDN, "v1-things-example-com.localhost", 8443},
		{"https://localhost:9443/", discoveryv1.AddressTypeFQDN, "v1-things-example-com.localhost", 9443},
		{"https://[::1]:8443", discoveryv1.AddressTypeFQDN, "v1-things-example-com.localhost", 8443},
		{"https://10.1.2.3:8443", discoveryv1.AddressTypeIPv4, "10.1.2.3", 8443},
		{"https://[fd00::1]:8443", discoveryv1.AddressTypeIPv6, "fd00::1", 8443},
		{"https://things.example.net", discoveryv1.AddressTypeFQDN, "things.example.net", 443},
	} {
		s := Spec{Name: "v1.things.example.com", GroupVersion: schema.GroupVersion{Group: "things.example.com", Version: "v1"}, URL: tc.url, InsecureSkipTLSVerify: true}
		typ, address, port, err := s.endpoint()
		if err != nil || typ != tc.typ || address != tc.address || port != tc.port {
			t.Errorf("%s: %s %s %d %v, want %s %s %d", tc.url, typ, address, port, err, tc.typ, tc.address, tc.port)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.url, err)
		}
	}
}

// TestValidateSaysWhatIsWrong: every mistake is named, all of them at once.
func TestValidateSaysWhatIsWrong(t *testing.T) {
	s := Spec{Name: "things", GroupVersion: schema.GroupVersion{Group: "Things", Version: "1"}, URL: "https://0.0.0.0:8443", CABundle: []byte("x"), InsecureSkipTLSVerify: true}
	err := s.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`group "Things"`, `version "1"`, "named VERSION.GROUP", "0.0.0.0 is not an address", "not both"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if _, err := ParseGroupVersion("v1"); err == nil {
		t.Error("ParseGroupVersion(v1): no error; the legacy core group is not for aggregated servers")
	}
}

// TestServiceNameFitsAService: dots become dashes, cut to 63 characters without a trailing dash.
func TestServiceNameFitsAService(t *testing.T) {
	if got := ServiceName("v1alpha1.wardle.example.com"); got != "v1alpha1-wardle-example-com" {
		t.Errorf("ServiceName: %q", got)
	}
	long := ServiceName("v1." + strings.Repeat("a", 59) + ".x") // the 63rd character is a dash
	if len(long) > 63 || strings.HasSuffix(long, "-") {
		t.Errorf("ServiceName of a long name: %q (%d)", long, len(long))
	}
}
