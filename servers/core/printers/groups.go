package printers

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/ptr"
)

// The other groups: networking, node, discovery, coordination, scheduling, rbac,
// admissionregistration, certificates.

var Ingress = define("ingresses.networking.k8s.io", func(ing *networkingv1.Ingress) []any {
	addresses := sortedAddresses(ing.Status.LoadBalancer.Ingress, func(i networkingv1.IngressLoadBalancerIngress) string { return cmp.Or(i.IP, i.Hostname) })
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{ing.Name, ptr.Deref(ing.Spec.IngressClassName, "<none>"), ingressHosts(ing.Spec.Rules), strings.Join(addresses, ","), ports, age(ing.CreationTimestamp)}
})

// ingressHosts shows up to three hosts, "*" for none; once three are shown,
// every further rule counts as one more.
func ingressHosts(rules []networkingv1.IngressRule) string {
	var hosts []string
	for _, r := range rules {
		if len(hosts) == 3 {
			return fmt.Sprintf("%s + %d more...", strings.Join(hosts, ","), len(rules)-3)
		}
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	return cmp.Or(strings.Join(hosts, ","), "*")
}

// IngressClass marks the cluster's default class with " (default)".
var IngressClass = define("ingressclasses.networking.k8s.io", func(ic *networkingv1.IngressClass) []any {
	name := ic.Name
	if ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
		name += " (default)"
	}
	parameters := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		parameters = p.Kind
		if p.APIGroup != nil {
			parameters += "." + *p.APIGroup
		}
		parameters += "/" + p.Name
	}
	return []any{name, ic.Spec.Controller, parameters, age(ic.CreationTimestamp)}
})

var NetworkPolicy = define("networkpolicies.networking.k8s.io", func(np *networkingv1.NetworkPolicy) []any {
	return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp)}
})

// EndpointSlice shows up to three ports (number, else name, else "*") and
// three addresses.
var EndpointSlice = define("endpointslices.discovery.k8s.io", func(s *discoveryv1.EndpointSlice) []any {
	var ports, addresses []string
	for _, p := range s.Ports {
		switch {
		case p.Port != nil:
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports = append(ports, *p.Name)
		default:
			ports = append(ports, "*")
		}
	}
	for _, e := range s.Endpoints {
		addresses = append(addresses, e.Addresses...)
	}
	return []any{s.Name, s.AddressType, cmp.Or(firstOf(ports, 3, ","), "<unset>"), cmp.Or(firstOf(addresses, 3, ","), "<unset>"), age(s.CreationTimestamp)}
})

var Lease = define("leases.coordination.k8s.io", func(l *coordinationv1.Lease) []any {
	return []any{l.Name, ptr.Deref(l.Spec.HolderIdentity, ""), age(l.CreationTimestamp)}
})

var PriorityClass = define("priorityclasses.scheduling.k8s.io", func(pc *schedulingv1.PriorityClass) []any {
	return []any{pc.Name, pc.Value, pc.GlobalDefault, age(pc.CreationTimestamp), ptr.Deref(pc.PreemptionPolicy, "")}
})

// Role and ClusterRole have kube-apiserver's default table: Name, Created At.
var (
	Role        = define("roles.rbac.authorization.k8s.io", createdAt[*rbacv1.Role])
	ClusterRole = define("clusterroles.rbac.authorization.k8s.io", createdAt[*rbacv1.ClusterRole])
)

var (
	RoleBinding = define("rolebindings.rbac.authorization.k8s.io", func(b *rbacv1.RoleBinding) []any {
		return bindingCells(b.ObjectMeta, b.RoleRef, b.Subjects)
	})
	ClusterRoleBinding = define("clusterrolebindings.rbac.authorization.k8s.io", func(b *rbacv1.ClusterRoleBinding) []any {
		return bindingCells(b.ObjectMeta, b.RoleRef, b.Subjects)
	})
)

// bindingCells: Name, Role, Age, and the subjects by kind (-o wide).
func bindingCells(m metav1.ObjectMeta, role rbacv1.RoleRef, subjects []rbacv1.Subject) []any {
	byKind := map[string][]string{}
	for _, s := range subjects {
		name := s.Name
		if s.Kind == rbacv1.ServiceAccountKind {
			name = s.Namespace + "/" + s.Name
		}
		byKind[s.Kind] = append(byKind[s.Kind], name)
	}
	return []any{m.Name, role.Kind + "/" + role.Name, age(m.CreationTimestamp),
		strings.Join(byKind[rbacv1.UserKind], ", "), strings.Join(byKind[rbacv1.GroupKind], ", "), strings.Join(byKind[rbacv1.ServiceAccountKind], ", ")}
}

var (
	ValidatingWebhookConfiguration = define("validatingwebhookconfigurations.admissionregistration.k8s.io", func(c *admissionregistrationv1.ValidatingWebhookConfiguration) []any {
		return []any{c.Name, len(c.Webhooks), age(c.CreationTimestamp)}
	})
	MutatingWebhookConfiguration = define("mutatingwebhookconfigurations.admissionregistration.k8s.io", func(c *admissionregistrationv1.MutatingWebhookConfiguration) []any {
		return []any{c.Name, len(c.Webhooks), age(c.CreationTimestamp)}
	})
	ValidatingAdmissionPolicy = define("validatingadmissionpolicies.admissionregistration.k8s.io", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) []any {
		return []any{p.Name, len(p.Spec.Validations), paramKind(p.Spec.ParamKind), age(p.CreationTimestamp)}
	})
	MutatingAdmissionPolicy = define("mutatingadmissionpolicies.admissionregistration.k8s.io", func(p *admissionregistrationv1.MutatingAdmissionPolicy) []any {
		return []any{p.Name, len(p.Spec.Mutations), paramKind(p.Spec.ParamKind), age(p.CreationTimestamp)}
	})
	ValidatingAdmissionPolicyBinding = define("validatingadmissionpolicybindings.admissionregistration.k8s.io", func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) []any {
		return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), age(b.CreationTimestamp)}
	})
	MutatingAdmissionPolicyBinding = define("mutatingadmissionpolicybindings.admissionregistration.k8s.io", func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) []any {
		return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), age(b.CreationTimestamp)}
	})
)

func paramKind(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return "<unset>"
	}
	return k.APIVersion + "/" + k.Kind
}

// paramRef names a binding's parameter object: namespace/name, with "*" for
// the namespace when the binding does not say (the param may be
// cluster-scoped), or its label selector.
func paramRef(r *admissionregistrationv1.ParamRef) string {
	switch {
	case r == nil:
		return "<unset>"
	case r.Name != "":
		return cmp.Or(r.Namespace, "*") + "/" + r.Name
	case r.Selector != nil:
		return r.Selector.String()
	}
	return "<unset>"
}

var CertificateSigningRequest = define("certificatesigningrequests.certificates.k8s.io", func(csr *certificatesv1.CertificateSigningRequest) []any {
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return []any{csr.Name, age(csr.CreationTimestamp), cmp.Or(csr.Spec.SignerName, "<none>"), csr.Spec.Username, requested, csrCondition(csr)}
})

// csrCondition is Denied, Approved or Pending, then Failed and Issued when
// they apply: "Approved,Issued".
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	has := func(t certificatesv1.RequestConditionType) bool {
		return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool { return c.Type == t })
	}
	condition := "Pending"
	if has(certificatesv1.CertificateDenied) {
		condition = "Denied"
	} else if has(certificatesv1.CertificateApproved) {
		condition = "Approved"
	}
	if has(certificatesv1.CertificateFailed) {
		condition += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		condition += ",Issued"
	}
	return condition
}

var ClusterTrustBundle = define("clustertrustbundles.certificates.k8s.io", func(b *certificatesv1.ClusterTrustBundle) []any {
	return []any{b.Name, cmp.Or(b.Spec.SignerName, "<none>")}
})

// PodCertificateRequest's State is Pending until its signer sets the Issued,
// Denied or Failed condition (at most one of them is there, and true).
var PodCertificateRequest = define("podcertificaterequests.certificates.k8s.io", func(r *certificatesv1.PodCertificateRequest) []any {
	state := "Pending"
	for _, c := range r.Status.Conditions {
		switch c.Type {
		case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed:
			state = c.Type
		}
	}
	return []any{r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, r.Spec.NodeName, r.Spec.SignerName, state,
		labels.FormatLabels(r.Spec.UnverifiedUserAnnotations)}
})

// ServiceCIDR shows its ranges.
var ServiceCIDR = define("servicecidrs.networking.k8s.io", func(c *networkingv1.ServiceCIDR) []any {
	return []any{c.Name, strings.Join(c.Spec.CIDRs, ","), age(c.CreationTimestamp)}
})

// IPAddress shows its parent as resource.group/namespace/name. kube-apiserver's printer
// declares two columns and sends a third cell, the age, which kubectl does not show; so does
// the chain.
var IPAddress = Printer{
	Columns: columnsByResource["ipaddresses.networking.k8s.io"],
	Row: func(obj runtime.Object) ([]any, error) {
		a, ok := obj.(*networkingv1.IPAddress)
		if !ok {
			return nil, fmt.Errorf("printing ipaddresses: cannot print a %T", obj)
		}
		parent := "<none>"
		if ref := a.Spec.ParentRef; ref != nil {
			parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
			if ref.Namespace != "" {
				parent += "/" + ref.Namespace
			}
			parent += "/" + ref.Name
		}
		return []any{a.Name, parent, age(a.CreationTimestamp)}, nil
	},
}

var RuntimeClass = define("runtimeclasses.node.k8s.io", func(rc *nodev1.RuntimeClass) []any {
	return []any{rc.Name, rc.Handler, age(rc.CreationTimestamp)}
})
