package validation

// Table tests for NetworkPolicy, Ingress and IngressClass validation; cases follow kubernetes
// v1.37.2 pkg/apis/networking/validation/validation_test.go (TestValidateNetworkPolicy,
// TestValidateIngressCreate, TestValidateIngressClass, ...) with its messages.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults"
)

func networkPolicy(mutate func(*networkingv1.NetworkPolicy)) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "default", ResourceVersion: "1"}}
	mutate(np)
	defaults.SetObjectDefaults_NetworkPolicy(np)
	return np
}

func TestValidateNetworkPolicy(t *testing.T) {
	peer := func(p networkingv1.NetworkPolicyPeer) func(*networkingv1.NetworkPolicy) {
		return func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{p}}}
		}
	}
	port := func(p networkingv1.NetworkPolicyPort) func(*networkingv1.NetworkPolicy) {
		return func(np *networkingv1.NetworkPolicy) {
			np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{p}}}
		}
	}
	cases := []struct {
		name string
		np   *networkingv1.NetworkPolicy
		want []string
	}{
		{"valid deny all", networkPolicy(func(*networkingv1.NetworkPolicy) {}), nil},
		{"valid ipBlock", networkPolicy(peer(networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "192.168.0.0/16", Except: []string{"192.168.3.0/24"}}})), nil},
		{"valid port range", networkPolicy(port(networkingv1.NetworkPolicyPort{Port: ptr.To(intstr.FromInt32(30000)), EndPort: ptr.To[int32](32768)})), nil},
		{"no peer", networkPolicy(peer(networkingv1.NetworkPolicyPeer{})), []string{`spec.ingress[0].from[0]: Required value: must specify a peer`}},
		{"ipBlock and selector", networkPolicy(peer(networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}, IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}})),
			[]string{`spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer`}},
		// the declarative "required" replaces the handwritten one
		{"missing cidr", networkPolicy(peer(networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{}})),
			[]string{`spec.ingress[0].from[0].ipBlock.cidr: Required value`}},
		{"except outside cidr", networkPolicy(peer(networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "192.168.8.0/24", Except: []string{"192.168.9.0/24"}}})),
			[]string{`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.9.0/24": must be a strict subset of ` + "`cidr`"}},
		{"bad protocol", networkPolicy(port(networkingv1.NetworkPolicyPort{Protocol: ptr.To(v1.Protocol("HTTP"))})),
			[]string{`spec.egress[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"`}},
		{"endPort below port", networkPolicy(port(networkingv1.NetworkPolicyPort{Port: ptr.To(intstr.FromInt32(35000)), EndPort: ptr.To[int32](32000)})),
			[]string{"spec.egress[0].ports[0].endPort: Invalid value: 32000: must be greater than or equal to `port`"}},
		{"endPort with named port", networkPolicy(port(networkingv1.NetworkPolicyPort{Port: ptr.To(intstr.FromString("http")), EndPort: ptr.To[int32](32000)})),
			[]string{"spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is non-numeric"}},
		{"bad policy type", networkPolicy(func(np *networkingv1.NetworkPolicy) { np.Spec.PolicyTypes = []networkingv1.PolicyType{"Sideways"} }),
			[]string{`spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, withDeclarative(t, tc.np, nil, ValidateNetworkPolicy(tc.np)), tc.want)
	}

	// An invalid CIDR that the stored policy already has stays allowed.
	old := networkPolicy(peer(networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.1/8"}}))
	expectErrors(t, "stored invalid cidr", ValidateNetworkPolicyUpdate(old.DeepCopy(), old), nil)
	expectErrors(t, "new invalid cidr", ValidateNetworkPolicy(old), []string{`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`})
}

func ingress(mutate func(*networkingv1.Ingress)) *networkingv1.Ingress {
	pathType := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "ing", Namespace: "default", ResourceVersion: "1"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "a.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pathType,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}},
		}}}},
	}
	mutate(ing)
	return ing
}

func TestValidateIngress(t *testing.T) {
	path := func(ing *networkingv1.Ingress) *networkingv1.HTTPIngressPath { return &ing.Spec.Rules[0].HTTP.Paths[0] }
	cases := []struct {
		name string
		ing  *networkingv1.Ingress
		want []string
	}{
		{"valid", ingress(func(*networkingv1.Ingress) {}), nil},
		{"valid wildcard host and tls", ingress(func(ing *networkingv1.Ingress) {
			ing.Spec.Rules[0].Host = "*.example.com"
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"*.example.com"}, SecretName: "tls"}}
		}), nil},
		{"valid relaxed service name", ingress(func(ing *networkingv1.Ingress) { path(ing).Backend.Service.Name = "1-svc" }), nil},
		{"no rules nor default backend", ingress(func(ing *networkingv1.Ingress) { ing.Spec.Rules = nil }),
			[]string{"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{"ip host", ingress(func(ing *networkingv1.Ingress) { ing.Spec.Rules[0].Host = "1.2.3.4" }),
			[]string{`spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`}},
		{"missing path type", ingress(func(ing *networkingv1.Ingress) { path(ing).PathType = nil }),
			[]string{`spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified`}},
		{"relative path", ingress(func(ing *networkingv1.Ingress) { path(ing).Path = "foo" }),
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`}},
		{"bad path sequence", ingress(func(ing *networkingv1.Ingress) { path(ing).Path = "/foo//bar" }),
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "/foo//bar": must not contain '//'`}},
		{"no port", ingress(func(ing *networkingv1.Ingress) { path(ing).Backend.Service.Port = networkingv1.ServiceBackendPort{} }),
			[]string{`spec.rules[0].http.paths[0].backend: Required value: port name or number is required`}},
		{"both backends", ingress(func(ing *networkingv1.Ingress) {
			path(ing).Backend.Resource = &v1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}
		}), []string{`spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends`}},
		{"class annotation mismatch", ingress(func(ing *networkingv1.Ingress) {
			ing.Annotations = map[string]string{"kubernetes.io/ingress.class": "a"}
			ing.Spec.IngressClassName = ptr.To("b")
		}), []string{"annotations.kubernetes.io/ingress.class: Invalid value: \"a\": must match `ingressClassName` when both are specified"}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateIngressCreate(tc.ing), tc.want)
	}
	old := ingress(func(*networkingv1.Ingress) {})
	status := old.DeepCopy()
	status.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "10.0.0.1"}}
	expectErrors(t, "status hostname is an ip", ValidateIngressStatusUpdate(status, old),
		[]string{`status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`})
}

func TestValidateIngressClass(t *testing.T) {
	class := func(mutate func(*networkingv1.IngressClass)) *networkingv1.IngressClass {
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "ic", ResourceVersion: "1"}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/controller"}}
		mutate(ic)
		defaults.SetObjectDefaults_IngressClass(ic)
		return ic
	}
	cases := []struct {
		name string
		ic   *networkingv1.IngressClass
		want []string
	}{
		{"valid", class(func(*networkingv1.IngressClass) {}), nil},
		{"valid parameters", class(func(ic *networkingv1.IngressClass) {
			ic.Spec.Parameters = &networkingv1.IngressClassParametersReference{APIGroup: ptr.To("example.com"), Kind: "Config", Name: "c"}
		}), nil},
		{"controller not domain prefixed", class(func(ic *networkingv1.IngressClass) { ic.Spec.Controller = "controller" }),
			[]string{`spec.controller: Invalid value: "controller": must be a domain-prefixed path (such as "acme.io/foo")`}},
		// the declarative "required" errors replace the handwritten ones and come last
		{"parameters without kind and name", class(func(ic *networkingv1.IngressClass) {
			ic.Spec.Parameters = &networkingv1.IngressClassParametersReference{Scope: ptr.To("Namespace")}
		}), []string{"spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'", `spec.parameters.kind: Required value`, `spec.parameters.name: Required value`}},
		{"cluster scope with namespace", class(func(ic *networkingv1.IngressClass) {
			ic.Spec.Parameters = &networkingv1.IngressClassParametersReference{Kind: "Config", Name: "c", Namespace: ptr.To("foo")}
		}), []string{"spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, withDeclarative(t, tc.ic, nil, ValidateIngressClass(tc.ic)), tc.want)
	}
	old := class(func(*networkingv1.IngressClass) {})
	changed := old.DeepCopy()
	changed.Spec.Controller = "example.com/other"
	expectErrors(t, "controller is immutable", ValidateIngressClassUpdate(changed, old),
		[]string{`spec.controller: Invalid value: "example.com/other": field is immutable`})
}
