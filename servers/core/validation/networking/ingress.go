package networking

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/apichain/apichain/servers/core/validation"
)

// classAnnotation is the older way to pick an Ingress's class, before spec.ingressClassName.
const classAnnotation = "kubernetes.io/ingress.class"

// ingress is an Ingress spec under validation, with what an update lets it keep.
type ingress struct {
	keepSecretNames, keepWildcardRules bool
}

// ValidateIngressCreate is the rule list of a new Ingress.
func ValidateIngressCreate(ing *networkingv1.Ingress) field.ErrorList {
	class, annotated := ing.Annotations[classAnnotation]
	return validation.Join(
		ingress{}.validate(ing),
		validation.When(annotated && ing.Spec.IngressClassName != nil && class != *ing.Spec.IngressClassName,
			field.Invalid(field.NewPath("annotations").Child(classAnnotation), class, "must match `ingressClassName` when both are specified")),
	)
}

// ValidateIngressUpdate is the rule list of an update: the Ingress as if new, keeping the
// stored one's invalid secret names and its invalid rules under wildcard hosts.
func ValidateIngressUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	var keep ingress
	for _, tls := range old.Spec.TLS {
		keep.keepSecretNames = keep.keepSecretNames || len(secretName(nil, tls.SecretName)) > 0
	}
	for _, r := range old.Spec.Rules {
		keep.keepWildcardRules = keep.keepWildcardRules || strings.Contains(r.Host, "*") && len(ruleValue(nil, &r)) > 0
	}
	return validation.Join(
		validation.MetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, metadata),
		keep.validate(ing),
	)
}

func (k ingress) validate(ing *networkingv1.Ingress) field.ErrorList {
	path, s := field.NewPath("spec"), &ing.Spec
	return validation.Join(
		validation.Meta(&ing.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.When(len(s.Rules) == 0 && s.DefaultBackend == nil,
			field.Invalid(path, s.Rules, "either `defaultBackend` or `rules` must be specified")),
		validation.IfSet(path.Child("defaultBackend"), s.DefaultBackend, backend),
		validation.Each(path.Child("rules"), s.Rules, k.rule),
		validation.Each(path.Child("tls"), s.TLS, k.tls),
		validation.IfSet(path.Child("ingressClassName"), s.IngressClassName, validation.DNSSubdomain),
	)
}

// host: a DNS name, "*.example.com" at most as a wildcard.
func host(path *field.Path, h string) field.ErrorList {
	if strings.Contains(h, "*") {
		return invalid(path, h, utilvalidation.IsWildcardDNS1123Subdomain(h))
	}
	return invalid(path, h, utilvalidation.IsDNS1123Subdomain(h))
}

func invalid(path *field.Path, value string, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(path, value, m))
	}
	return errs
}

func notAnIP(path *field.Path, h string) field.ErrorList {
	return validation.When(netutils.ParseIPSloppy(h) != nil, field.Invalid(path, h, "must be a DNS name, not an IP address"))
}

// rule: the requests for a host (any host if none) and where its paths go.
func (k ingress) rule(path *field.Path, r *networkingv1.IngressRule) field.ErrorList {
	var errs field.ErrorList
	if r.Host != "" {
		errs = append(notAnIP(path.Child("host"), r.Host), host(path.Child("host"), r.Host)...)
	}
	if k.keepWildcardRules && strings.Contains(r.Host, "*") {
		return errs
	}
	return append(errs, ruleValue(path, r)...)
}

func ruleValue(path *field.Path, r *networkingv1.IngressRule) field.ErrorList {
	if r.HTTP == nil {
		return nil
	}
	paths := path.Child("http", "paths")
	return validation.Join(
		validation.When(len(r.HTTP.Paths) == 0, field.Required(paths, "")),
		validation.Each(paths, r.HTTP.Paths, httpPath),
	)
}

// httpPath: a URL path, matched as its type says, and its backend.
func httpPath(path *field.Path, p *networkingv1.HTTPIngressPath) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(path.Child("pathType"), "pathType must be specified")}
	}
	at := path.Child("path")
	var errs field.ErrorList
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		errs = validation.When(!strings.HasPrefix(p.Path, "/"), field.Invalid(at, p.Path, "must be an absolute path"))
		// What would make the path mean something else once normalized.
		for _, seq := range []string{"//", "/./", "/../", "%2f", "%2F"} {
			errs = append(errs, validation.When(strings.Contains(p.Path, seq), field.Invalid(at, p.Path, fmt.Sprintf("must not contain '%s'", seq)))...)
		}
		for _, end := range []string{"/..", "/."} {
			errs = append(errs, validation.When(strings.HasSuffix(p.Path, end), field.Invalid(at, p.Path, fmt.Sprintf("cannot end with '%s'", end)))...)
		}
	case networkingv1.PathTypeImplementationSpecific:
		errs = validation.When(p.Path != "" && !strings.HasPrefix(p.Path, "/"), field.Invalid(at, p.Path, "must be an absolute path"))
	default:
		errs = field.ErrorList{field.NotSupported(path.Child("pathType"), *p.PathType, []networkingv1.PathType{
			networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific, networkingv1.PathTypePrefix})}
	}
	return append(errs, backend(path.Child("backend"), p.Backend)...)
}

// backend: a Service port (by name or number) or another object (a bucket, say), not both.
func backend(path *field.Path, b networkingv1.IngressBackend) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(path, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return objectRef(path.Child("resource"), b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, false)
	case b.Service == nil:
		return field.ErrorList{field.Invalid(path, "", "resource or service backend is required")}
	}
	svc, port := path.Child("service"), b.Service.Port
	errs := validation.Required(svc.Child("name"), b.Service.Name)
	if b.Service.Name != "" {
		errs = invalid(svc.Child("name"), b.Service.Name, validation.LabelName(b.Service.Name, false))
	}
	switch {
	case port.Name != "" && port.Number != 0:
		return append(errs, field.Invalid(path, "", "cannot set both port name & port number"))
	case port.Name != "":
		return append(errs, validation.PortName(svc.Child("port", "name"), port.Name)...)
	case port.Number != 0:
		return append(errs, validation.Port(svc.Child("port", "number"), port.Number)...)
	}
	return append(errs, field.Required(path, "port name or number is required"))
}

// objectRef: an object by API group, kind and name; declared marks the kind and name
// required errors the generated rules also report.
func objectRef(path *field.Path, group *string, kind, name string, declared bool) field.ErrorList {
	required := func(p *field.Path, v string) field.ErrorList {
		if v == "" {
			err := field.Required(p, "")
			if declared {
				err = err.MarkCoveredByDeclarative()
			}
			return field.ErrorList{err}
		}
		return invalid(p, v, validation.PathSegmentName(v, false))
	}
	return validation.Join(
		validation.IfSet(path.Child("apiGroup"), group, validation.DNSSubdomain),
		required(path.Child("kind"), kind),
		required(path.Child("name"), name),
	)
}

// tls: the hosts a certificate (in a Secret of the Ingress's namespace) is for.
func (k ingress) tls(path *field.Path, t *networkingv1.IngressTLS) field.ErrorList {
	var errs field.ErrorList
	for i, h := range t.Hosts {
		errs = append(errs, host(path.Child("hosts").Index(i), h)...)
	}
	if k.keepSecretNames {
		return errs
	}
	return append(errs, secretName(path.Child("secretName"), t.SecretName)...)
}

func secretName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return nil
	}
	return validation.DNSSubdomain(path, name)
}

// ValidateIngressStatusUpdate is the rule list of a /status update: the addresses the
// controller publishes.
func ValidateIngressStatusUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	var oldIPs []string
	for _, lb := range old.Status.LoadBalancer.Ingress {
		if lb.IP != "" {
			oldIPs = append(oldIPs, lb.IP)
		}
	}
	path := field.NewPath("status", "loadBalancer", "ingress")
	return validation.Join(
		validation.MetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, metadata),
		validation.Each(path, ing.Status.LoadBalancer.Ingress, func(p *field.Path, lb *networkingv1.IngressLoadBalancerIngress) field.ErrorList {
			var errs field.ErrorList
			if lb.IP != "" {
				errs = utilvalidation.IsValidIPForLegacyField(p.Child("ip"), lb.IP, true, oldIPs)
			}
			if lb.Hostname != "" {
				errs = validation.Join(errs, validation.DNSSubdomain(p.Child("hostname"), lb.Hostname), notAnIP(p.Child("hostname"), lb.Hostname))
			}
			return errs
		}),
	)
}

// ValidateIngressClass is the rule list of a new IngressClass.
func ValidateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	path := field.NewPath("spec")
	return validation.Join(
		validation.Meta(&ic.ObjectMeta, false, validation.SubdomainName, metadata),
		validation.When(len(ic.Spec.Controller) > 250, field.TooLong(path.Child("controller"), "", 250)),
		utilvalidation.IsDomainPrefixedPath(path.Child("controller"), ic.Spec.Controller),
		validation.IfSet(path.Child("parameters"), ic.Spec.Parameters, parameters),
	)
}

// ValidateIngressClassUpdate is the rule list of an update: the controller cannot change.
func ValidateIngressClassUpdate(ic, old *networkingv1.IngressClass) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&ic.ObjectMeta, &old.ObjectMeta, metadata),
		validation.Immutable(field.NewPath("spec", "controller"), ic.Spec.Controller, old.Spec.Controller),
		ValidateIngressClass(ic),
	)
}

// parameters: the object configuring the class's controller, cluster-wide or in a namespace.
func parameters(path *field.Path, p networkingv1.IngressClassParametersReference) field.ErrorList {
	errs := objectRef(path, p.APIGroup, p.Kind, p.Name, true)
	ns := path.Child("namespace")
	switch {
	case p.Scope == nil:
		return append(errs, field.Required(path.Child("scope"), ""))
	case *p.Scope != networkingv1.IngressClassParametersReferenceScopeCluster && *p.Scope != networkingv1.IngressClassParametersReferenceScopeNamespace:
		return append(errs, validation.Supported(path.Child("scope"), *p.Scope,
			networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace)...)
	case *p.Scope == networkingv1.IngressClassParametersReferenceScopeNamespace && p.Namespace == nil:
		return append(errs, field.Required(ns, "`parameters.scope` is set to 'Namespace'"))
	case *p.Scope == networkingv1.IngressClassParametersReferenceScopeNamespace:
		return append(errs, invalid(ns, *p.Namespace, validation.LabelName(*p.Namespace, false))...)
	case p.Namespace != nil:
		return append(errs, field.Forbidden(ns, "`parameters.scope` is set to 'Cluster'"))
	}
	return errs
}
