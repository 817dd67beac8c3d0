package core

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var spec = field.NewPath("spec")

// ValidateService is the rule list of a Service being created, after the registry has
// allocated its cluster IPs and node ports. Its name is a DNS label (it becomes a DNS name).
func ValidateService(svc *corev1.Service) field.ErrorList {
	return validation.Join(
		validation.Meta(&svc.ObjectMeta, true, validation.LabelName, metadata),
		serviceSpec(svc, nil),
	)
}

// ValidateServiceUpdate: a valid Service that keeps its cluster IPs, IP families, load
// balancer class and health check port.
func ValidateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, metadata),
		clusterIPsKept(svc, old),
		validation.When(svc.Spec.Type == corev1.ServiceTypeLoadBalancer && old.Spec.Type == corev1.ServiceTypeLoadBalancer &&
			!equalPtr(svc.Spec.LoadBalancerClass, old.Spec.LoadBalancerClass),
			field.Invalid(spec.Child("loadBalancerClass"), svc.Spec.LoadBalancerClass, "may not change once set")),
		validation.When(needsHealthCheck(svc) && needsHealthCheck(old) && svc.Spec.HealthCheckNodePort != old.Spec.HealthCheckNodePort,
			field.Forbidden(spec.Child("healthCheckNodePort"), "field is immutable")),
		serviceSpec(svc, old),
	)
}

// serviceSpec is every Service's rules, in kube-apiserver's order; old is the stored Service
// on update, whose IPs and source ranges stay allowed even if they would not be now.
func serviceSpec(svc, old *corev1.Service) field.ErrorList {
	s := &svc.Spec
	return validation.Join(
		topologyAnnotations(svc.Annotations),
		validation.When(len(s.Ports) == 0 && !headless(svc) && s.Type != corev1.ServiceTypeExternalName,
			field.Required(spec.Child("ports"), "")),
		typeFields(svc),
		servicePorts(spec.Child("ports"), s.Ports),
		validation.Labels(spec.Child("selector"), s.Selector),
		sessionAffinity(spec, s),
		clusterIPs(svc, old),
		externalIPs(spec.Child("externalIPs"), s.ExternalIPs, old),
		validation.OneOf(spec.Child("type"), s.Type, corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName,
			corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort),
		nodePorts(spec.Child("ports"), s),
		uniquePorts(spec.Child("ports"), s.Ports),
		sourceRanges(svc, old),
		loadBalancerFields(s),
		trafficPolicies(svc),
	)
}

// topologyAnnotations: the two names of topology-aware routing must agree when both are set.
func topologyAnnotations(annotations map[string]string) field.ErrorList {
	hints, hasHints := annotations[corev1.DeprecatedAnnotationTopologyAwareHints]
	mode, hasMode := annotations[corev1.AnnotationTopologyMode]
	return validation.When(hasHints && hasMode && hints != mode,
		field.Invalid(metadata.Child("annotations").Key(corev1.AnnotationTopologyMode), mode,
			fmt.Sprintf("must match annotations[%s] when both are specified", corev1.DeprecatedAnnotationTopologyAwareHints)))
}

// typeFields: a NodePort or LoadBalancer Service has a cluster IP to forward to; an
// ExternalName Service has no IPs at all, only a DNS name (a trailing dot allowed).
func typeFields(svc *corev1.Service) field.ErrorList {
	s := &svc.Spec
	switch s.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		return validation.When(headless(svc), field.Invalid(spec.Child("clusterIPs").Index(0), s.ClusterIPs[0],
			fmt.Sprintf("may not be set to 'None' for %s services", s.Type)))
	case corev1.ServiceTypeExternalName:
		const msg = "may not be set for ExternalName services"
		name := validation.Required(spec.Child("externalName"), s.ExternalName)
		if cname := strings.TrimSuffix(s.ExternalName, "."); cname != "" {
			name = validation.DNSSubdomain(spec.Child("externalName"), cname)
		}
		return validation.Join(
			validation.When(len(s.ClusterIPs) > 0, field.Forbidden(spec.Child("clusterIPs"), msg)),
			validation.When(len(s.IPFamilies) > 0, field.Forbidden(spec.Child("ipFamilies"), msg)),
			validation.When(s.IPFamilyPolicy != nil, field.Forbidden(spec.Child("ipFamilyPolicy"), msg)),
			name,
		)
	}
	return nil
}

// servicePorts: each port named (uniquely, when there are several), in range, of a known
// protocol, forwarded to a port number or a container port's name.
func servicePorts(path *field.Path, ports []corev1.ServicePort) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, p := range ports {
		at := path.Index(i)
		errs = append(errs, portName(at.Child("name"), p.Name, len(ports) > 1)...)
		errs = append(errs, validation.When(p.Name != "" && names[p.Name], field.Duplicate(at.Child("name"), p.Name))...)
		names[p.Name] = true
		errs = append(errs, validation.Join(
			validation.Port(at.Child("port"), p.Port),
			validation.OneOf(at.Child("protocol"), p.Protocol, protocols...),
			targetPort(at.Child("targetPort"), p.TargetPort),
			appProtocol(at.Child("appProtocol"), p.AppProtocol),
		)...)
	}
	return errs
}

func targetPort(path *field.Path, port intstr.IntOrString) field.ErrorList {
	if port.Type == intstr.String {
		return validation.PortName(path, port.StrVal)
	}
	return validation.Port(path, port.IntVal)
}

// nodePorts: only a NodePort or LoadBalancer Service has them, each once per protocol.
func nodePorts(path *field.Path, s *corev1.ServiceSpec) field.ErrorList {
	var forbidden, dups field.ErrorList
	seen := map[portKey]bool{}
	for i, p := range s.Ports {
		if p.NodePort == 0 {
			continue
		}
		at := path.Index(i).Child("nodePort")
		forbidden = append(forbidden, validation.When(s.Type == corev1.ServiceTypeClusterIP,
			field.Forbidden(at, "may not be used when `type` is 'ClusterIP'"))...)
		dups = append(dups, validation.When(seen[portKey{p.Protocol, p.NodePort}], field.Duplicate(at, p.NodePort))...)
		seen[portKey{p.Protocol, p.NodePort}] = true
	}
	return append(forbidden, dups...)
}

// uniquePorts: each port once per protocol; the duplicate is shown as kube-apiserver's
// internal ServicePort with only those two fields.
func uniquePorts(path *field.Path, ports []corev1.ServicePort) field.ErrorList {
	var errs field.ErrorList
	seen := map[portKey]bool{}
	for i, p := range ports {
		errs = append(errs, validation.When(seen[portKey{p.Protocol, p.Port}],
			field.Duplicate(path.Index(i), validation.Internal(corev1.ServicePort{Protocol: p.Protocol, Port: p.Port})))...)
		seen[portKey{p.Protocol, p.Port}] = true
	}
	return errs
}

type portKey struct {
	protocol corev1.Protocol
	port     int32
}

// sessionAffinity: None, or ClientIP with a timeout of at most a day.
func sessionAffinity(path *field.Path, s *corev1.ServiceSpec) field.ErrorList {
	config := path.Child("sessionAffinityConfig")
	errs := validation.OneOf(path.Child("sessionAffinity"), s.SessionAffinity, corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone)
	switch s.SessionAffinity {
	case corev1.ServiceAffinityNone:
		errs = append(errs, validation.When(s.SessionAffinityConfig != nil, field.Forbidden(config, "must not be set when session affinity is None"))...)
	case corev1.ServiceAffinityClientIP:
		const missing = "when session affinity type is ClientIP"
		const day = 86400 // seconds
		switch c := s.SessionAffinityConfig; {
		case c == nil:
			errs = append(errs, field.Required(config, missing))
		case c.ClientIP == nil:
			errs = append(errs, field.Required(config.Child("clientIP"), missing))
		case c.ClientIP.TimeoutSeconds == nil:
			errs = append(errs, field.Required(config.Child("clientIP", "timeoutSeconds"), missing))
		case *c.ClientIP.TimeoutSeconds <= 0 || *c.ClientIP.TimeoutSeconds > day:
			errs = append(errs, field.Invalid(config.Child("clientIP", "timeoutSeconds"), *c.ClientIP.TimeoutSeconds,
				fmt.Sprintf("must be greater than 0 and less than %d", day)))
		}
	}
	return errs
}

// externalIPs: addresses outside the cluster that route to the Service; new ones must be
// usable, those the stored Service has stay.
func externalIPs(path *field.Path, ips []string, old *corev1.Service) field.ErrorList {
	var kept []string
	if old != nil {
		kept = old.Spec.ExternalIPs
	}
	var errs field.ErrorList
	for i, ip := range ips {
		if ipErrs := utilvalidation.IsValidIPForLegacyField(path.Index(i), ip, true, kept); len(ipErrs) > 0 {
			errs = append(errs, ipErrs...)
		} else {
			errs = append(errs, validation.EndpointIP(path.Index(i), ip)...)
		}
	}
	return errs
}

// sourceRanges: the clients a load balancer lets in, as CIDRs in the field (kube-apiserver
// reports it as spec.LoadBalancerSourceRanges) or, the old way, a comma-separated annotation.
func sourceRanges(svc, old *corev1.Service) field.ErrorList {
	notLB := svc.Spec.Type != corev1.ServiceTypeLoadBalancer
	const onlyLB = "may only be used when `type` is 'LoadBalancer'"
	if ranges := svc.Spec.LoadBalancerSourceRanges; len(ranges) > 0 {
		path := spec.Child("LoadBalancerSourceRanges")
		var kept []string
		if old != nil {
			for _, r := range old.Spec.LoadBalancerSourceRanges {
				kept = append(kept, strings.TrimSpace(r))
			}
		}
		errs := validation.When(notLB, field.Forbidden(path, onlyLB))
		for i, r := range ranges { // padded with spaces in old clients' objects: allowed
			errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(path.Index(i), strings.TrimSpace(r), true, kept)...)
		}
		return errs
	}
	value, set := svc.Annotations[corev1.AnnotationLoadBalancerSourceRangesKey]
	if !set {
		return nil
	}
	path := metadata.Child("annotations").Key(corev1.AnnotationLoadBalancerSourceRangesKey)
	errs := validation.When(notLB, field.Forbidden(path, onlyLB))
	if old != nil && old.Annotations[corev1.AnnotationLoadBalancerSourceRangesKey] == value {
		return errs
	}
	if value = strings.TrimSpace(value); value != "" {
		for _, r := range strings.Split(value, ",") {
			errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(path, strings.TrimSpace(r), true, nil)...)
		}
	}
	return errs
}

// loadBalancerFields: allocateLoadBalancerNodePorts and loadBalancerClass belong to
// LoadBalancer Services, which must say whether they want node ports.
func loadBalancerFields(s *corev1.ServiceSpec) field.ErrorList {
	const onlyLB = "may only be used when `type` is 'LoadBalancer'"
	lb := s.Type == corev1.ServiceTypeLoadBalancer
	var class field.ErrorList
	if s.LoadBalancerClass != nil {
		class = validation.QualifiedName(spec.Child("loadBalancerClass"), *s.LoadBalancerClass)
		if !lb {
			class = field.ErrorList{field.Forbidden(spec.Child("loadBalancerClass"), onlyLB)}
		}
	}
	return validation.Join(
		validation.When(!lb && s.AllocateLoadBalancerNodePorts != nil, field.Forbidden(spec.Child("allocateLoadBalancerNodePorts"), onlyLB)),
		// sic: kube-apiserver's path has no "spec".
		validation.When(lb && s.AllocateLoadBalancerNodePorts == nil, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), "")),
		class,
	)
}

// trafficPolicies: externalTrafficPolicy for Services reachable from outside (with a health
// check port when traffic stays on its node), internalTrafficPolicy for those with a cluster
// IP, and a known trafficDistribution.
func trafficPolicies(svc *corev1.Service) field.ErrorList {
	s := &svc.Spec
	var external, health field.ErrorList
	switch {
	case !externallyAccessible(svc):
		external = validation.When(s.ExternalTrafficPolicy != "", field.Invalid(spec.Child("externalTrafficPolicy"),
			s.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	default:
		external = validation.OneOf(spec.Child("externalTrafficPolicy"), s.ExternalTrafficPolicy,
			corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal)
	}
	switch {
	case !needsHealthCheck(svc):
		health = validation.When(s.HealthCheckNodePort != 0, field.Invalid(spec.Child("healthCheckNodePort"), s.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	case s.HealthCheckNodePort == 0:
		health = field.ErrorList{field.Required(spec.Child("healthCheckNodePort"), "")}
	default:
		health = validation.Port(spec.Child("healthCheckNodePort"), s.HealthCheckNodePort)
	}
	var internal, distribution field.ErrorList
	if p := s.InternalTrafficPolicy; p != nil {
		internal = validation.OneOf(spec.Child("internalTrafficPolicy"), *p,
			corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal)
	} else if s.Type == corev1.ServiceTypeClusterIP || s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer {
		internal = field.ErrorList{field.Required(spec.Child("internalTrafficPolicy"), "")}
	}
	if d := s.TrafficDistribution; d != nil {
		distribution = validation.OneOf(spec.Child("trafficDistribution"), *d, corev1.ServiceTrafficDistributionPreferClose,
			corev1.ServiceTrafficDistributionPreferSameZone, corev1.ServiceTrafficDistributionPreferSameNode)
	}
	return validation.Join(external, health, internal, distribution)
}

// externallyAccessible: reachable from outside the cluster.
func externallyAccessible(svc *corev1.Service) bool {
	t := svc.Spec.Type
	return t == corev1.ServiceTypeLoadBalancer || t == corev1.ServiceTypeNodePort ||
		(t == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0)
}

// needsHealthCheck: a load balancer must know which nodes have endpoints when traffic stays
// on the node it arrives at.
func needsHealthCheck(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

func headless(svc *corev1.Service) bool {
	return len(svc.Spec.ClusterIPs) == 1 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
