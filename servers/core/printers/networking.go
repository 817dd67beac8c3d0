// Follows kubernetes pkg/printers/internalversion/printers.go (printIngress,
// printIngressClass, printNetworkPolicy, formatHosts, formatPorts,
// ingressLoadBalancerStatusStringer and their column definitions) as of
// kube-apiserver v1.37, on the networking/v1 types, with HasDefaultAnnotation
// of pkg/apis/networking/util.

package printers

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Ingress prints networking/v1 Ingresses.
var Ingress = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
		{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
		{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
		{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *networkingv1.Ingress) ([]interface{}, error) {
		// kube-apiserver generates Tables with Wide: true.
		const wide = true
		className := "<none>"
		if obj.Spec.IngressClassName != nil {
			className = *obj.Spec.IngressClassName
		}
		hosts := formatHosts(obj.Spec.Rules)
		address := ingressLoadBalancerStatusStringer(obj.Status.LoadBalancer, wide)
		ports := formatPorts(obj.Spec.TLS)
		createTime := translateTimestampSince(obj.CreationTimestamp)
		return []interface{}{obj.Name, className, hosts, address, ports, createTime}, nil
	}),
}

// IngressClass prints networking/v1 IngressClasses.
var IngressClass = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
		{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *networkingv1.IngressClass) ([]interface{}, error) {
		name := obj.Name
		if obj.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			name += " (default)"
		}
		parameters := "<none>"
		if obj.Spec.Parameters != nil {
			parameters = obj.Spec.Parameters.Kind
			if obj.Spec.Parameters.APIGroup != nil {
				parameters = parameters + "." + *obj.Spec.Parameters.APIGroup
			}
			parameters = parameters + "/" + obj.Spec.Parameters.Name
		}
		createTime := translateTimestampSince(obj.CreationTimestamp)
		return []interface{}{name, obj.Spec.Controller, parameters, createTime}, nil
	}),
}

// NetworkPolicy prints networking/v1 NetworkPolicies.
var NetworkPolicy = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Pod-Selector", Type: "string", Description: networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *networkingv1.NetworkPolicy) ([]interface{}, error) {
		return []interface{}{obj.Name, metav1.FormatLabelSelector(&obj.Spec.PodSelector), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

func formatHosts(rules []networkingv1.IngressRule) string {
	list := []string{}
	max := 3
	more := false
	for _, rule := range rules {
		if len(list) == max {
			more = true
		}
		if !more && len(rule.Host) != 0 {
			list = append(list, rule.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, len(rules)-max)
	}
	return ret
}

func formatPorts(tls []networkingv1.IngressTLS) string {
	if len(tls) != 0 {
		return "80, 443"
	}
	return "80"
}

// ingressLoadBalancerStatusStringer behaves mostly like a string interface and converts the given status to a string.
// `wide` indicates whether the returned value is meant for --o=wide output. If not, it's clipped to 16 bytes.
func ingressLoadBalancerStatusStringer(s networkingv1.IngressLoadBalancerStatus, wide bool) string {
	ingress := s.Ingress
	result := sets.New[string]()
	for i := range ingress {
		if ingress[i].IP != "" {
			result.Insert(ingress[i].IP)
		} else if ingress[i].Hostname != "" {
			result.Insert(ingress[i].Hostname)
		}
	}

	r := strings.Join(sets.List(result), ",")
	if !wide && len(r) > loadBalancerWidth {
		r = r[0:(loadBalancerWidth-3)] + "..."
	}
	return r
}
