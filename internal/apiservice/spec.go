// Package apiservice registers an aggregated API server that runs on this machine with a
// running chain, as a cluster operator would by hand: a Service without a selector, its
// EndpointSlice and the APIService that names the Service, and, for the server's delegated
// authentication and authorization, a ServiceAccount bound to what such a server needs. It
// also takes all of that away again.
//
// Both `chain apiservice` (commands/) and chaintest's AggregatedAPIServer use it: one
// implementation of the registration. It reaches the chain only through client-go.
//
// Where it sits: outside the chain, a client of it. The Aggregator's remote-availability
// controller and proxy (kube-aggregator's, unchanged) do the rest: they resolve the Service
// through the EndpointSlice, check /apis/GROUP/VERSION and proxy requests there.
package apiservice

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
)

// Namespace holds the namespaced objects: the Service, its EndpointSlice, the ServiceAccount
// (where the metrics server's are, too).
const Namespace = metav1.NamespaceSystem

// servicePort is the Service's port, the one APIServices name by convention; the EndpointSlice
// maps it to the server's real port.
const servicePort = 443

// Spec is one aggregated API server to register: the APIService Name (VERSION.GROUP), the
// group version it serves, where it listens, and how the Aggregator verifies its certificate.
type Spec struct {
	Name         string
	GroupVersion schema.GroupVersion
	// URL is https://HOST:PORT. A loopback host (127.0.0.1, ::1, localhost) is registered as
	// the name <service>.localhost, which the chain's Aggregator dials on 127.0.0.1:
	// EndpointSlices may not hold loopback addresses.
	URL string
	// CABundle verifies the server's certificate, which must name <service>.kube-system.svc
	// (the name the Aggregator asks for); or InsecureSkipTLSVerify skips the verification.
	CABundle              []byte
	InsecureSkipTLSVerify bool
}

// ParseGroupVersion reads GROUP/VERSION. A group version without a group (v1) is the legacy
// core API, which no aggregated server may serve.
func ParseGroupVersion(s string) (schema.GroupVersion, error) {
	group, version, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(version, "/") {
		return schema.GroupVersion{}, fmt.Errorf("--group-version %q: want GROUP/VERSION, e.g. wardle.example.com/v1alpha1", s)
	}
	return schema.GroupVersion{Group: group, Version: version}, nil
}

// Validate checks everything it can before anything is written: the names kube-aggregator's
// validation would refuse, and the URL and CA bundle, which it cannot check.
func (s Spec) Validate() error {
	var errs []error
	gv := s.GroupVersion
	if gv.Group == "" {
		errs = append(errs, errors.New("the group may not be empty: an aggregated API server serves a group of its own (GROUP/VERSION)"))
	} else if msgs := utilvalidation.IsDNS1123Subdomain(gv.Group); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("group %q: %s", gv.Group, strings.Join(msgs, "; ")))
	}
	if msgs := utilvalidation.IsDNS1035Label(gv.Version); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("version %q: %s", gv.Version, strings.Join(msgs, "; ")))
	}
	if want := gv.Version + "." + gv.Group; s.Name != want {
		errs = append(errs, fmt.Errorf("name %q: an APIService is named VERSION.GROUP, here %q", s.Name, want))
	}
	if _, _, _, err := s.endpoint(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case s.InsecureSkipTLSVerify && len(s.CABundle) > 0:
		errs = append(errs, errors.New("give either a CA bundle (--ca-file) or --insecure-skip-tls-verify, not both"))
	case !s.InsecureSkipTLSVerify && len(s.CABundle) == 0:
		errs = append(errs, errors.New("the Aggregator must verify the server's certificate: give the CA that signed it (--ca-file), or --insecure-skip-tls-verify"))
	case len(s.CABundle) > 0:
		if err := checkCABundle(s.CABundle); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ServiceName is the Service, EndpointSlice and ServiceAccount name for an APIService: its name
// with dashes for dots (v1alpha1.wardle.example.com: v1alpha1-wardle-example-com), cut to the
// 63 characters a Service name may have.
func ServiceName(apiService string) string {
	s := strings.ReplaceAll(apiService, ".", "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimRight(s, "-")
}

// endpoint is what the EndpointSlice holds for the URL: the address type, the address, the port.
func (s Spec) endpoint() (discoveryv1.AddressType, string, int32, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return "", "", 0, fmt.Errorf("--url %q: %v", s.URL, err)
	}
	bad := func(why string) (discoveryv1.AddressType, string, int32, error) {
		return "", "", 0, fmt.Errorf("--url %q: %s; want https://HOST:PORT, e.g. https://127.0.0.1:8443", s.URL, why)
	}
	switch {
	case u.Scheme != "https":
		return bad("the Aggregator speaks only https to aggregated API servers")
	case u.Host == "":
		return bad("no host")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/"):
		return bad("an APIService names a host and port only, no path, query or user")
	}
	port := int64(servicePort)
	if p := u.Port(); p != "" {
		if port, err = strconv.ParseInt(p, 10, 32); err != nil || port < 1 || port > 65535 {
			return bad("the port must be a number from 1 to 65535")
		}
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || ip != nil && ip.IsLoopback():
		return discoveryv1.AddressTypeFQDN, ServiceName(s.Name) + ".localhost", int32(port), nil
	case ip != nil && ip.IsUnspecified():
		return bad(host + " is not an address the Aggregator can dial")
	case ip != nil && ip.To4() != nil:
		return discoveryv1.AddressTypeIPv4, ip.String(), int32(port), nil
	case ip != nil:
		return discoveryv1.AddressTypeIPv6, ip.String(), int32(port), nil
	}
	if msgs := utilvalidation.IsDNS1123Subdomain(host); len(msgs) > 0 {
		return bad(fmt.Sprintf("host %q: %s", host, strings.Join(msgs, "; ")))
	}
	return discoveryv1.AddressTypeFQDN, host, int32(port), nil
}

// checkCABundle: at least one PEM certificate, and no other PEM block (a key given by mistake).
func checkCABundle(b []byte) error {
	n := 0
	for block, rest := pem.Decode(b); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("the CA file holds a %s; want only CERTIFICATE blocks", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("the CA file's certificate %d: %v", n+1, err)
		}
		n++
	}
	if n == 0 {
		return errors.New("the CA file holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
	}
	return nil
}
