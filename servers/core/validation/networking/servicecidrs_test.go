package networking

import (
	"testing"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

const serviceCIDR = `{metadata: {name: extra, resourceVersion: "1"}, spec: {cidrs: [10.96.0.0/24]}}`

func TestServiceCIDR(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"dual-stack", `{spec: {cidrs: [10.96.0.0/24, "fd00::/108"]}}`, nil},
		{"none", `{spec: {cidrs: []}}`, []string{"spec.cidrs: Required value: at least one CIDR required"}},
		{"three", `{spec: {cidrs: [10.96.0.0/24, "fd00::/108", 10.97.0.0/24]}}`,
			[]string{`spec.cidrs: Invalid value: {"CIDRs":["10.96.0.0/24","fd00::/108","10.97.0.0/24"]}: may only hold up to 2 values`}},
		{"one family twice", `{spec: {cidrs: [10.96.0.0/24, 10.97.0.0/24]}}`,
			[]string{`spec.cidrs: Invalid value: ["10.96.0.0/24","10.97.0.0/24"]: may specify no more than one IP for each IP family`}},
		{"not a CIDR", `{spec: {cidrs: [10.96.0.1]}}`, []string{`spec.cidrs[0]: Invalid value: "10.96.0.1": must be a valid CIDR value`}},
		{"host bits", `{spec: {cidrs: [10.96.0.1/24]}}`, []string{`spec.cidrs[0]: Invalid value: "10.96.0.1/24": must not have bits set beyond the prefix length`}},
		{"canonical IPv6", `{spec: {cidrs: ["fd00:0::/108"]}}`, []string{`spec.cidrs[0]: Invalid value: "fd00:0::/108": must be in canonical form ("fd00::/108")`}},
	}.Run(t, kinds["ServiceCIDR"], serviceCIDR, nil)
}

func TestServiceCIDRUpdate(t *testing.T) {
	old := kinds["ServiceCIDR"].New()
	vt.Decode(t, old, serviceCIDR)
	vt.Cases{
		{"unchanged", `{}`, nil},
		{"going dual-stack", `{spec: {cidrs: [10.96.0.0/24, "fd00::/108"]}}`, nil},
		{"changed", `{spec: {cidrs: [10.98.0.0/24]}}`, []string{`spec.cidrs[0]: Invalid value: "10.98.0.0/24": field is immutable`}},
		{"changed while going dual-stack", `{spec: {cidrs: [10.98.0.0/24, 10.99.0.0/24]}}`, []string{
			`spec.cidrs[0]: Invalid value: "10.98.0.0/24": field is immutable`,
			`spec.cidrs: Invalid value: ["10.98.0.0/24","10.99.0.0/24"]: may specify no more than one IP for each IP family`}},
		{"emptied", `{spec: {cidrs: []}}`, []string{"spec.cidrs: Invalid value: []: field is immutable"}},
	}.Run(t, kinds["ServiceCIDR"], serviceCIDR, old)
}

const ipAddress = `{metadata: {name: 10.96.0.10, resourceVersion: "1"}, spec: {parentRef: {group: "", resource: services, namespace: default, name: web}}}`

func TestIPAddress(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"IPv6", `{metadata: {name: "fd00::a"}}`, nil},
		{"not an address", `{metadata: {name: web}}`, []string{`metadata.name: Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"not canonical", `{metadata: {name: "fd00:0::a"}}`, []string{`metadata.name: Invalid value: "fd00:0::a": must be in canonical form ("fd00::a")`}},
		// The generated rules report what is missing.
		{"no parent", `{spec: {parentRef: null}}`, []string{"spec.parentRef: Required value"}},
		{"parent without resource and name", `{spec: {parentRef: {resource: "", name: ""}}}`,
			[]string{"spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"}},
		{"parent", `{spec: {parentRef: {group: "Bad_Group", resource: "a/b", name: "..", namespace: "%"}}}`, []string{
			`spec.parentRef.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain`,
			`spec.parentRef.resource: Invalid value: "a/b": may not contain '/'`,
			`spec.parentRef.name: Invalid value: "..": may not be '..'`,
			`spec.parentRef.namespace: Invalid value: "%": may not contain '%'`}},
	}.Run(t, kinds["IPAddress"], ipAddress, nil)
}

func TestIPAddressUpdate(t *testing.T) {
	old := kinds["IPAddress"].New()
	vt.Decode(t, old, ipAddress)
	vt.Cases{
		{"labels may change", `{metadata: {labels: {a: b}}}`, nil},
		{"the parent stays", `{spec: {parentRef: {name: other}}}`, []string{"spec.parentRef: Invalid value: null: field is immutable"}},
	}.Run(t, kinds["IPAddress"], ipAddress, old)
}
