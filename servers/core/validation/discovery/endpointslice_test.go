package discovery

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// slice is a valid, defaulted EndpointSlice with one endpoint and one port, changed by edit.
func newSlice(t *testing.T, edit func(*discoveryv1.EndpointSlice)) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{}
	validationtest.Decode(t, es, `
metadata: {name: es, namespace: ns, resourceVersion: "1"}
addressType: IPv4
endpoints: [{addresses: [10.1.2.3], nodeName: n1, hostname: h}]
ports: [{name: http, port: 80}]`)
	if edit != nil {
		edit(es)
		validationtest.Scheme.Default(es)
	}
	return es
}

func TestEndpointSlice(t *testing.T) {
	many := strings.Split(strings.Repeat("10.0.0.1 ", 101), " ")[:101]
	for _, tc := range []struct {
		name string
		edit func(*discoveryv1.EndpointSlice)
		want []string
	}{
		{"valid", nil, nil},
		{"fqdn", func(es *discoveryv1.EndpointSlice) {
			es.AddressType = discoveryv1.AddressTypeFQDN
			es.Endpoints[0].Addresses = []string{"example.com"}
		}, nil},
		{"no address type: the generated error", func(es *discoveryv1.EndpointSlice) { es.AddressType = "" },
			[]string{"addressType: Required value"}},
		{"unknown address type", func(es *discoveryv1.EndpointSlice) { es.AddressType = "IP" },
			[]string{`addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`}},
		{"no addresses: the generated error comes last", func(es *discoveryv1.EndpointSlice) {
			es.Endpoints[0].Addresses = nil
			es.Ports[0].Name = ptr.To("Bad_Name")
		}, []string{
			`ports[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`,
			"endpoints[0].addresses: Required value",
		}},
		{"too many addresses", func(es *discoveryv1.EndpointSlice) { es.Endpoints[0].Addresses = many },
			[]string{"endpoints[0].addresses: Too many: 101: must have at most 100 items"}},
		{"addresses of the slice's type", func(es *discoveryv1.EndpointSlice) {
			es.Endpoints[0].Addresses = []string{"fd00::1", "not-an-ip", "127.0.0.1"}
		}, []string{
			`endpoints[0].addresses: Invalid value: "fd00::1": must be an IPv4 address`,
			`endpoints[0].addresses[1]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`endpoints[0].addresses[2]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		}},
		{"canonical IPv6", func(es *discoveryv1.EndpointSlice) {
			es.AddressType = discoveryv1.AddressTypeIPv6
			es.Endpoints[0].Addresses = []string{"FD00::1"}
		}, []string{`endpoints[0].addresses[0]: Invalid value: "FD00::1": must be in canonical form ("fd00::1")`}},
		{"ports", func(es *discoveryv1.EndpointSlice) {
			es.Ports = []discoveryv1.EndpointPort{{Name: ptr.To("a")}, {Name: ptr.To("a"), Protocol: ptr.To(corev1.Protocol("HTTP")), AppProtocol: ptr.To("bad proto")}}
		}, []string{
			`ports[1].name: Duplicate value: "a"`,
			`ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			`ports[1].appProtocol: Invalid value: "bad proto": name part must consist of alphanumeric characters`,
		}},
		{"node, hostname, topology", func(es *discoveryv1.EndpointSlice) {
			es.Endpoints[0].NodeName = ptr.To("Node_1")
			es.Endpoints[0].Hostname = ptr.To("a.b")
			es.Endpoints[0].DeprecatedTopology = map[string]string{"bad key": "v"}
		}, []string{
			`endpoints[0].nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain`,
			`endpoints[0].deprecatedTopology: Invalid value: "bad key": name part must consist of alphanumeric characters`,
			`endpoints[0].hostname: Invalid value: "a.b": must not contain dots`,
		}},
		{"hints", func(es *discoveryv1.EndpointSlice) {
			es.Endpoints[0].Hints = &discoveryv1.EndpointHints{
				ForZones: []discoveryv1.ForZone{{Name: "a"}, {Name: "a"}},
				ForNodes: []discoveryv1.ForNode{{Name: "n1"}, {Name: "N2"}},
			}
		}, []string{
			`endpoints[0].hints.forZones[1].name: Duplicate value: "a"`,
			`endpoints[0].hints.forNodes[1].name: Invalid value: "N2": a lowercase RFC 1123 subdomain`,
		}},
	} {
		es := newSlice(t, tc.edit)
		validationtest.Expect(t, tc.name, validationtest.Merged(t, es, nil, ValidateEndpointSlice(es)), tc.want...)
	}

	old := newSlice(t, nil)
	changed := newSlice(t, func(es *discoveryv1.EndpointSlice) {
		es.AddressType = discoveryv1.AddressTypeIPv6
		es.Endpoints[0].Addresses = []string{"fd00::1"}
	})
	validationtest.Expect(t, "the address type stays: the generated error",
		validationtest.Merged(t, changed, old, ValidateEndpointSliceUpdate(changed, old)), "addressType: Invalid value: null: field is immutable")
	stale := newSlice(t, func(es *discoveryv1.EndpointSlice) { es.Endpoints[0].Addresses = []string{"127.0.0.1"} })
	validationtest.Expect(t, "unchanged endpoints are not checked again",
		ValidateEndpointSliceUpdate(stale.DeepCopy(), stale))
}

func TestCorpus(t *testing.T) {
	kinds := map[string]validationtest.Kind{"EndpointSlice": validationtest.Of(ValidateEndpointSlice, ValidateEndpointSliceUpdate)}
	validationtest.Corpus(t, kinds, 7, nil)
	es := &discoveryv1.EndpointSlice{}
	if err := json.Unmarshal(validationtest.ReadReference(t, "defaulted/endpointslice.json"), es); err != nil {
		t.Fatal(err)
	}
	validationtest.Expect(t, "accepted by kube-apiserver", ValidateEndpointSlice(es))
	es.ResourceVersion = "1"
	validationtest.Expect(t, "accepted by kube-apiserver, updated", ValidateEndpointSliceUpdate(es.DeepCopy(), es))
}
