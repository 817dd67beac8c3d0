package networking

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"NetworkPolicy": vt.Of(ValidateNetworkPolicy, ValidateNetworkPolicyUpdate),
	"Ingress":       vt.Of(ValidateIngressCreate, ValidateIngressUpdate),
	"IngressClass":  vt.Of(ValidateIngressClass, ValidateIngressClassUpdate),
	"ServiceCIDR":   vt.Of(ValidateServiceCIDR, ValidateServiceCIDRUpdate),
	"IPAddress":     vt.Of(ValidateIPAddress, ValidateIPAddressUpdate),
}

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 31, nil) }

func TestAccepted(t *testing.T) {
	vt.Accepted(t, "networkpolicy.json", kinds["NetworkPolicy"])
	vt.Accepted(t, "ingress.json", kinds["Ingress"])
	vt.Accepted(t, "ingressclass.json", kinds["IngressClass"])
	vt.Accepted(t, "servicecidr.json", kinds["ServiceCIDR"])
	vt.Accepted(t, "ipaddress.json", kinds["IPAddress"])
}

// check decodes docs as kind, validates them as new (merged with the declarative rules) and
// compares.
func check(t *testing.T, kind string, docs []string, want ...string) {
	t.Helper()
	k := kinds[kind]
	obj := k.New()
	vt.Decode(t, obj, docs...)
	vt.Expect(t, kind+" "+docs[len(docs)-1], vt.Merged(t, obj, nil, k.Create(obj)), want...)
}

func TestNetworkPolicy(t *testing.T) {
	const np = `{metadata: {name: np, namespace: ns, resourceVersion: "1"}, spec: {podSelector: {}}}`
	peer := func(p string) []string { return []string{np, `{spec: {ingress: [{from: [` + p + `]}]}}`} }
	ports := func(p string) []string { return []string{np, `{spec: {egress: [{ports: [` + p + `]}]}}`} }
	check(t, "NetworkPolicy", []string{np})
	check(t, "NetworkPolicy", peer(`{ipBlock: {cidr: 192.168.0.0/16, except: [192.168.3.0/24]}}`))
	check(t, "NetworkPolicy", ports(`{port: 30000, endPort: 32768}`))
	check(t, "NetworkPolicy", peer(`{}`), "spec.ingress[0].from[0]: Required value: must specify a peer")
	check(t, "NetworkPolicy", peer(`{podSelector: {}, ipBlock: {cidr: 10.0.0.0/8}}`),
		"spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer")
	// The generated rule reports the missing cidr, after ours.
	check(t, "NetworkPolicy", peer(`{ipBlock: {cidr: ""}}, {}`),
		"spec.ingress[0].from[1]: Required value: must specify a peer", "spec.ingress[0].from[0].ipBlock.cidr: Required value")
	check(t, "NetworkPolicy", peer(`{ipBlock: {cidr: 10.0.0.0/33}}`),
		`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value`)
	check(t, "NetworkPolicy", peer(`{ipBlock: {cidr: 192.168.8.0/24, except: [192.168.9.0/24, 192.168.8.0/24]}}`),
		`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.9.0/24": must be a strict subset of `+"`cidr`",
		`spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: "192.168.8.0/24": must be a strict subset of `+"`cidr`")
	check(t, "NetworkPolicy", peer(`{namespaceSelector: {matchLabels: {a: -b-}}}`),
		`spec.ingress[0].from[0].namespaceSelector.matchLabels: Invalid value: "-b-"`)
	check(t, "NetworkPolicy", ports(`{protocol: HTTP}`),
		`spec.egress[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"`)
	check(t, "NetworkPolicy", ports(`{port: 35000, endPort: 32000}, {port: 80, endPort: 70000}`),
		"spec.egress[0].ports[0].endPort: Invalid value: 32000: must be greater than or equal to `port`",
		"spec.egress[0].ports[1].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive")
	check(t, "NetworkPolicy", ports(`{port: http, endPort: 32000}`),
		"spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is non-numeric")
	check(t, "NetworkPolicy", ports(`{endPort: 32000}`),
		"spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is not specified")
	check(t, "NetworkPolicy", ports(`{port: a-very-long-port-name}`),
		`spec.egress[0].ports[0].port: Invalid value: "a-very-long-port-name": must be no more than 15 characters`)
	check(t, "NetworkPolicy", []string{np, `{spec: {policyTypes: [Ingress, Sideways]}}`},
		`spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`)
	check(t, "NetworkPolicy", []string{np, `{spec: {policyTypes: [Ingress, Egress, Ingress]}}`},
		`spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes`)

	// What the stored policy already has stays allowed.
	old := &networkingv1.NetworkPolicy{}
	vt.Decode(t, old, peer(`{ipBlock: {cidr: 10.0.0.1/8}}`)...)
	vt.Expect(t, "stored cidr", ValidateNetworkPolicyUpdate(old.DeepCopy(), old))
	vt.Expect(t, "new cidr", ValidateNetworkPolicy(old),
		`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`)
	vt.Decode(t, old, `{spec: {podSelector: {matchExpressions: [{key: a, operator: In, values: [-b-]}]}}}`)
	vt.Expect(t, "stored label value", ValidateNetworkPolicyUpdate(old.DeepCopy(), old))
}

func TestIngress(t *testing.T) {
	const ing = `{metadata: {name: ing, namespace: ns, resourceVersion: "1"}, spec: {rules: [{host: a.example.com, http: {paths: [
		{path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}]}}]}}`
	path := func(p string) []string {
		return []string{ing, `{spec: {rules: [{host: a.example.com, http: {paths: [` + p + `]}}]}}`}
	}
	const svc = `backend: {service: {name: svc, port: {number: 80}}}`
	check(t, "Ingress", []string{ing})
	check(t, "Ingress", []string{ing, `{spec: {rules: [{host: "*.example.com"}], tls: [{hosts: ["*.example.com"], secretName: tls}]}}`})
	check(t, "Ingress", []string{ing, `{spec: {rules: null, defaultBackend: {resource: {apiGroup: example.com, kind: Bucket, name: b}}}}`})
	check(t, "Ingress", []string{ing, `{spec: {rules: null}}`}, "spec: Invalid value: null: either `defaultBackend` or `rules` must be specified")
	check(t, "Ingress", []string{ing, `{spec: {rules: [{host: 1.2.3.4}]}}`},
		`spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`)
	check(t, "Ingress", []string{ing, `{spec: {rules: [{host: "a.*.com", http: {paths: []}}]}}`},
		`spec.rules[0].host: Invalid value: "a.*.com": a wildcard DNS-1123 subdomain must start with '*.'`,
		"spec.rules[0].http.paths: Required value")
	check(t, "Ingress", path(`{path: /}`), "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified")
	check(t, "Ingress", path(`{path: foo, pathType: Exact, `+svc+`}`),
		`spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`)
	check(t, "Ingress", path(`{path: /a//b/., pathType: Prefix, `+svc+`}`),
		`spec.rules[0].http.paths[0].path: Invalid value: "/a//b/.": must not contain '//'`,
		`spec.rules[0].http.paths[0].path: Invalid value: "/a//b/.": cannot end with '/.'`)
	check(t, "Ingress", path(`{path: foo, pathType: ImplementationSpecific, `+svc+`}`),
		`spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`)
	check(t, "Ingress", path(`{path: /, pathType: Regex, `+svc+`}`),
		`spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`)
	check(t, "Ingress", path(`{path: /, pathType: Prefix, backend: {service: {name: Svc}}}`),
		`spec.rules[0].http.paths[0].backend.service.name: Invalid value: "Svc": a lowercase RFC 1123 label`,
		"spec.rules[0].http.paths[0].backend: Required value: port name or number is required")
	check(t, "Ingress", path(`{path: /, pathType: Prefix, backend: {service: {name: svc, port: {name: http, number: 80}}}}`),
		`spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number`)
	check(t, "Ingress", path(`{path: /, pathType: Prefix, backend: {resource: {kind: Bucket, name: b}, service: {name: svc}}}`),
		`spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends`)
	check(t, "Ingress", path(`{path: /, pathType: Prefix, backend: {resource: {name: a/b}}}`),
		"spec.rules[0].http.paths[0].backend.resource.kind: Required value",
		`spec.rules[0].http.paths[0].backend.resource.name: Invalid value: "a/b": may not contain '/'`)
	check(t, "Ingress", path(`{path: /, pathType: Prefix, backend: {}}`),
		`spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required`)
	check(t, "Ingress", []string{ing, `{spec: {tls: [{hosts: [A.com], secretName: Bad}], ingressClassName: Bad}}`},
		`spec.tls[0].hosts[0]: Invalid value: "A.com"`, `spec.tls[0].secretName: Invalid value: "Bad"`, `spec.ingressClassName: Invalid value: "Bad"`)
	check(t, "Ingress", []string{ing, `{metadata: {annotations: {kubernetes.io/ingress.class: a}}, spec: {ingressClassName: b}}`},
		"annotations.kubernetes.io/ingress.class: Invalid value: \"a\": must match `ingressClassName` when both are specified")

	// What the stored Ingress already has stays allowed.
	old := &networkingv1.Ingress{}
	vt.Decode(t, old, ing, `{spec: {tls: [{secretName: Bad}], rules: [{host: "*.example.com", http: {paths: []}}]}}`)
	vt.Expect(t, "stored secret name and wildcard rule", ValidateIngressUpdate(old.DeepCopy(), old))
	vt.Expect(t, "new secret name and wildcard rule", ValidateIngressCreate(old),
		"spec.rules[0].http.paths: Required value", `spec.tls[0].secretName: Invalid value: "Bad"`)

	status := old.DeepCopy()
	vt.Decode(t, status, `{status: {loadBalancer: {ingress: [{hostname: 10.0.0.1}, {ip: 10.0.0.300}]}}}`)
	vt.Expect(t, "status", ValidateIngressStatusUpdate(status, old),
		`status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`,
		`status.loadBalancer.ingress[1].ip: Invalid value: "10.0.0.300": must be a valid IP address`)
}

func TestIngressClass(t *testing.T) {
	const ic = `{metadata: {name: ic, resourceVersion: "1"}, spec: {controller: example.com/controller}}`
	params := func(p string) []string { return []string{ic, `{spec: {parameters: ` + p + `}}`} }
	check(t, "IngressClass", []string{ic})
	check(t, "IngressClass", params(`{apiGroup: example.com, kind: Config, name: c}`))
	check(t, "IngressClass", params(`{kind: Config, name: c, scope: Namespace, namespace: ns}`))
	check(t, "IngressClass", []string{ic, `{spec: {controller: nope}}`},
		`spec.controller: Invalid value: "nope": must be a domain-prefixed path (such as "acme.io/foo")`)
	// The generated rules report the missing kind and name, after ours.
	check(t, "IngressClass", params(`{scope: Namespace}`),
		"spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
		"spec.parameters.kind: Required value", "spec.parameters.name: Required value")
	check(t, "IngressClass", params(`{kind: Config, name: c, namespace: ns}`), "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'")
	check(t, "IngressClass", params(`{kind: Config, name: c, scope: Galaxy}`),
		`spec.parameters.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespace"`)
	check(t, "IngressClass", params(`{kind: Config, name: c, scope: Namespace, namespace: Bad}`),
		`spec.parameters.namespace: Invalid value: "Bad": a lowercase RFC 1123 label`)

	old := &networkingv1.IngressClass{}
	vt.Decode(t, old, ic)
	changed := old.DeepCopy()
	changed.Spec.Controller = "example.com/other"
	vt.Expect(t, "controller", ValidateIngressClassUpdate(changed, old), `spec.controller: Invalid value: "example.com/other": field is immutable`)
}
