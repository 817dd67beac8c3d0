package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// service is a valid ClusterIP Service as the registry hands it to validation (defaulted,
// cluster IP allocated), changed by edit and defaulted again.
func service(t *testing.T, edit func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{}
	validationtest.Decode(t, svc, `
metadata: {name: svc, namespace: ns, resourceVersion: "1"}
spec: {selector: {app: a}, ports: [{port: 80}], clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1], ipFamilies: [IPv4], ipFamilyPolicy: SingleStack}`)
	if edit != nil {
		edit(svc)
		validationtest.Scheme.Default(svc)
	}
	return svc
}

func TestService(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*corev1.Service)
		want []string
	}{
		{"valid", nil, nil},
		{"a name may start with a digit", func(s *corev1.Service) { s.Name = "1svc" }, nil},
		{"but is a DNS label", func(s *corev1.Service) { s.Name = "svc.x" }, []string{`metadata.name: Invalid value: "svc.x": must not contain dots`}},
		{"headless without ports", func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.Ports = "None", []string{"None"}, nil
		}, nil},
		{"no ports", func(s *corev1.Service) { s.Spec.Ports = nil }, []string{"spec.ports: Required value"}},
		{"ports", func(s *corev1.Service) {
			s.Spec.Ports = []corev1.ServicePort{{Port: 80}, {Name: "b", Port: 70000, Protocol: "HTTP", TargetPort: intstr.FromString("Bad_Port")}, {Name: "b", Port: 80}}
		}, []string{
			"spec.ports[0].name: Required value",
			"spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
			`spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			`spec.ports[1].targetPort: Invalid value: "Bad_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			`spec.ports[2].name: Duplicate value: "b"`,
			`spec.ports[2]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`,
		}},
		{"session affinity", func(s *corev1.Service) {
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](86401)}}
		}, []string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"}},
		{"cluster IPs", func(s *corev1.Service) { s.Spec.ClusterIPs = []string{"10.0.0.2"} },
			[]string{"spec.clusterIPs: Invalid value: [\"10.0.0.2\"]: first value must match `clusterIP`"}},
		{"IP families", func(s *corev1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{"IPv4", "IPv4", "IPv5"} }, []string{
			`spec.ipFamilies[1]: Duplicate value: "IPv4"`,
			`spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
		}},
		{"an IP of another family", func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "fd00::1", []string{"fd00::1"} },
			[]string{"spec.clusterIPs[0]: Invalid value: \"fd00::1\": expected an IPv4 value as indicated by `ipFamilies[0]`"}},
		{"two IPs of a family", func(s *corev1.Service) { s.Spec.ClusterIPs = []string{"10.0.0.1", "10.0.0.2"} },
			[]string{`spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.2"]: may specify no more than one IP for each IP family`}},
		{"external IPs", func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"1.2.3.4", "127.0.0.1", "01.2.3.4"} }, []string{
			`spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			`spec.externalIPs[2]: Invalid value: "01.2.3.4": must not have leading 0s`,
		}},
		{"ClusterIP type", func(s *corev1.Service) {
			s.Spec.Ports[0].NodePort = 30000
			s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"}
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		}, []string{
			"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
			"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
			`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
		}},
		{"node ports", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeNodePort
			s.Spec.Ports = []corev1.ServicePort{{Name: "a", Port: 80, NodePort: 30000}, {Name: "b", Port: 81, NodePort: 30000}}
		}, []string{"spec.ports[1].nodePort: Duplicate value: 30000"}},
		{"headless NodePort", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ClusterIP, s.Spec.ClusterIPs = corev1.ServiceTypeNodePort, "None", []string{"None"}
		}, []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`}},
		{"load balancer", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeLoadBalancer
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			s.Spec.LoadBalancerClass = ptr.To("Bad Class")
			s.Spec.LoadBalancerSourceRanges = []string{" 10.0.0.0/8 ", "10.0.0.1/33"}
		}, []string{
			`spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.1/33": must be a valid CIDR value`,
			`spec.loadBalancerClass: Invalid value: "Bad Class": name part must consist of alphanumeric characters`,
			"spec.healthCheckNodePort: Required value",
		}},
		{"ExternalName", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com."
			s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy, s.Spec.InternalTrafficPolicy = "", nil, nil, nil, nil
		}, nil},
		{"ExternalName with IPs", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ClusterIP, s.Spec.IPFamilies = "", nil
		}, []string{
			"spec.clusterIPs: Forbidden: may not be set for ExternalName services",
			"spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
			"spec.externalName: Required value",
		}},
		{"traffic distribution", func(s *corev1.Service) { s.Spec.TrafficDistribution = ptr.To("Nearest") }, []string{
			`spec.trafficDistribution: Unsupported value: "Nearest": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"`,
		}},
		{"topology annotations", func(s *corev1.Service) {
			s.Annotations = map[string]string{corev1.DeprecatedAnnotationTopologyAwareHints: "Auto", corev1.AnnotationTopologyMode: "Disabled"}
		}, []string{`metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Disabled": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified`}},
	} {
		validationtest.Expect(t, tc.name, ValidateService(service(t, tc.edit)), tc.want...)
	}
}

func TestServiceUpdate(t *testing.T) {
	old := service(t, nil)
	validationtest.Expect(t, "unchanged", ValidateServiceUpdate(service(t, nil), old))
	validationtest.Expect(t, "another cluster IP", ValidateServiceUpdate(service(t, func(s *corev1.Service) {
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.2", []string{"10.0.0.2"}
	}), old), `spec.clusterIPs[0]: Invalid value: ["10.0.0.2"]: may not change once set`)
	validationtest.Expect(t, "another family", ValidateServiceUpdate(service(t, func(s *corev1.Service) {
		s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.IPFamilies = "fd00::1", []string{"fd00::1"}, []corev1.IPFamily{corev1.IPv6Protocol}
	}), old),
		`spec.clusterIPs[0]: Invalid value: ["fd00::1"]: may not change once set`,
		`spec.ipFamilies[0]: Invalid value: ["IPv6"]: may not change once set`)
	validationtest.Expect(t, "to ExternalName, the IPs released", ValidateServiceUpdate(service(t, func(s *corev1.Service) {
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
		s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy, s.Spec.InternalTrafficPolicy = "", nil, nil, nil, nil
	}), old))

	lb := service(t, func(s *corev1.Service) {
		s.Spec.Type, s.Spec.LoadBalancerClass = corev1.ServiceTypeLoadBalancer, ptr.To("example.com/a")
		s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyLocal, 30001
	})
	changed := lb.DeepCopy()
	changed.Spec.LoadBalancerClass, changed.Spec.HealthCheckNodePort = ptr.To("example.com/b"), 30002
	validationtest.Expect(t, "load balancer class and health check port stay", ValidateServiceUpdate(changed, lb),
		`spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set`,
		"spec.healthCheckNodePort: Forbidden: field is immutable")

	oldRanges := lb.DeepCopy()
	oldRanges.Spec.LoadBalancerSourceRanges = []string{"10.0.0.1/8"} // stored before CIDRs were checked strictly
	validationtest.Expect(t, "stored source ranges stay allowed", ValidateServiceUpdate(oldRanges.DeepCopy(), oldRanges))
	validationtest.Expect(t, "which a new Service may not have", ValidateService(oldRanges),
		`spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`)
}

func TestServiceStatus(t *testing.T) {
	old := service(t, nil)
	withIngress := old.DeepCopy()
	withIngress.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	validationtest.Expect(t, "ingress of a ClusterIP Service", ValidateServiceStatusUpdate(withIngress, old),
		"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'")

	lb := old.DeepCopy()
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	status := lb.DeepCopy()
	status.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{
		{IP: "1.2.3.4"},
		{Hostname: "1.2.3.5", IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)},
		{IP: "1.2.3.6", IPMode: ptr.To(corev1.LoadBalancerIPMode("Tunnel"))},
	}
	validationtest.Expect(t, "ingress", ValidateServiceStatusUpdate(status, lb),
		"status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set",
		"status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set",
		`status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.5": must be a DNS name, not an IP address`,
		`status.loadBalancer.ingress[2].ipMode: Unsupported value: "Tunnel": supported values: "Proxy", "VIP"`)
}
