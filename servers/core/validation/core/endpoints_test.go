package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestEndpoints(t *testing.T) {
	ep := func(subsets string) *corev1.Endpoints {
		e := &corev1.Endpoints{}
		validationtest.Decode(t, e, `{metadata: {name: svc, namespace: ns, resourceVersion: "1"}, subsets: `+subsets+`}`)
		return e
	}
	for _, tc := range []struct {
		name, subsets string
		want          []string
	}{
		{"valid", `[{addresses: [{ip: 10.1.2.3, hostname: h, nodeName: n1}], ports: [{name: a, port: 80}, {name: b, port: 81}]}]`, nil},
		{"no addresses", `[{ports: [{port: 80}]}]`, []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{"bad addresses", `[{addresses: [{ip: 1.2.3, hostname: A}], notReadyAddresses: [{ip: 127.0.0.1, nodeName: "No"}]}]`, []string{
			`subsets[0].addresses[0].ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`subsets[0].addresses[0].hostname: Invalid value: "A": a lowercase RFC 1123 label`,
			`subsets[0].addresses[0].ip: Invalid value: "1.2.3": must be a valid IP address`,
			`subsets[0].notReadyAddresses[0].nodeName: Invalid value: "No": a lowercase RFC 1123 subdomain`,
			`subsets[0].notReadyAddresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		}},
		{"ports", `[{addresses: [{ip: 10.1.2.3}], ports: [{port: 80}, {name: b, port: 0, protocol: HTTP}]}]`, []string{
			"subsets[0].ports[0].name: Required value",
			"subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
			`subsets[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateEndpoints(ep(tc.subsets)), tc.want...)
	}
	stale := ep(`[{ports: [{port: 80}]}]`)
	validationtest.Expect(t, "unchanged subsets are not checked again", ValidateEndpointsUpdate(stale.DeepCopy(), stale))
	validationtest.Expect(t, "changed ones are", ValidateEndpointsUpdate(ep(`[{ports: [{port: 81}]}]`), stale),
		"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`")
}
