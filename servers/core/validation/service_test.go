package validation

// Table tests for Service validation. Expectations follow kubernetes v1.37.2
// pkg/apis/core/validation/validation.go and validation_test.go
// (TestValidateServiceCreate, TestValidateServiceUpdate, TestValidateServiceStatusUpdate).

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestValidateServiceCreate(t *testing.T) {
	svc := func(mutate func(*v1.Service)) *v1.Service {
		s := validService()
		if mutate != nil {
			mutate(s)
			testScheme.Default(s)
		}
		return s
	}
	singleStack := v1.IPFamilyPolicySingleStack
	cases := []struct {
		name string
		obj  *v1.Service
		want []string
	}{
		{"valid", svc(nil), nil},
		{"name may start with a digit (RelaxedServiceNameValidation)", svc(func(s *v1.Service) { s.Name = "1svc" }), nil},
		{"bad name", svc(func(s *v1.Service) { s.Name = "svc.x" }), []string{`metadata.name: Invalid value: "svc.x": must not contain dots`}},
		{"allocated cluster IP", svc(func(s *v1.Service) {
			s.Spec.ClusterIP = "10.0.0.1"
			s.Spec.ClusterIPs = []string{"10.0.0.1"}
			s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
			s.Spec.IPFamilyPolicy = &singleStack
		}), nil},
		{"headless", svc(func(s *v1.Service) {
			s.Spec.ClusterIP = v1.ClusterIPNone
			s.Spec.ClusterIPs = []string{v1.ClusterIPNone}
			s.Spec.Ports = nil
		}), nil},
		{"no ports", svc(func(s *v1.Service) { s.Spec.Ports = nil }), []string{`spec.ports: Required value`}},
		{"multiple ports need names", svc(func(s *v1.Service) {
			s.Spec.Ports = []v1.ServicePort{{Port: 80}, {Name: "b", Port: 81}, {Name: "b", Port: 82}}
		}), []string{`spec.ports[0].name: Required value`, `spec.ports[2].name: Duplicate value: "b"`}},
		{"bad protocol and target port", svc(func(s *v1.Service) {
			s.Spec.Ports[0].Protocol = "HTTP"
			s.Spec.Ports[0].TargetPort = intstr.FromString("Bad_Port")
		}), []string{
			`spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			`spec.ports[0].targetPort: Invalid value: "Bad_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
		}},
		{"duplicate port", svc(func(s *v1.Service) {
			s.Spec.Ports = []v1.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 80}}
		}), []string{`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`}},
		{"clusterIP without clusterIPs", svc(func(s *v1.Service) { s.Spec.ClusterIP = "10.0.0.1" }), []string{`spec.clusterIPs: Required value`}},
		{"clusterIPs mismatch", svc(func(s *v1.Service) {
			s.Spec.ClusterIP = "10.0.0.1"
			s.Spec.ClusterIPs = []string{"10.0.0.2"}
		}), []string{"spec.clusterIPs: Invalid value: [\"10.0.0.2\"]: first value must match `clusterIP`"}},
		{"ip families", svc(func(s *v1.Service) {
			s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol, v1.IPv4Protocol, "IPv5"}
		}), []string{
			`spec.ipFamilies[1]: Duplicate value: "IPv4"`,
			`spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
		}},
		{"clusterIP family mismatch", svc(func(s *v1.Service) {
			s.Spec.ClusterIP = "fd00::1"
			s.Spec.ClusterIPs = []string{"fd00::1"}
			s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
		}), []string{"spec.clusterIPs[0]: Invalid value: \"fd00::1\": expected an IPv4 value as indicated by `ipFamilies[0]`"}},
		{"external IPs", svc(func(s *v1.Service) {
			s.Spec.ExternalIPs = []string{"1.2.3.4", "127.0.0.1"}
			s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
		}), []string{`spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`}},
		{"client IP affinity timeout", svc(func(s *v1.Service) {
			s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](86401)}}
		}), []string{`spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400`}},
		{"nodePort on ClusterIP service", svc(func(s *v1.Service) { s.Spec.Ports[0].NodePort = 30000 }), []string{
			"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
		}},
		{"source ranges on ClusterIP service", svc(func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }), []string{
			"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
		}},
		{"external traffic policy on ClusterIP service", svc(func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal }), []string{
			`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
		}},
		{"nodeport", svc(func(s *v1.Service) { s.Spec.Type = v1.ServiceTypeNodePort; s.Spec.Ports[0].NodePort = 30000 }), nil},
		{"duplicate node ports", svc(func(s *v1.Service) {
			s.Spec.Type = v1.ServiceTypeNodePort
			s.Spec.Ports = []v1.ServicePort{{Name: "a", Port: 80, NodePort: 30000}, {Name: "b", Port: 81, NodePort: 30000}}
		}), []string{`spec.ports[1].nodePort: Duplicate value: 30000`}},
		{"load balancer with local traffic needs a health check port", svc(func(s *v1.Service) {
			s.Spec.Type = v1.ServiceTypeLoadBalancer
			s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
			s.Spec.LoadBalancerClass = ptr.To("Bad Class")
		}), []string{
			`spec.loadBalancerClass: Invalid value: "Bad Class": name part must consist of alphanumeric characters`,
			`spec.healthCheckNodePort: Required value`,
		}},
		{"headless NodePort", svc(func(s *v1.Service) {
			s.Spec.Type = v1.ServiceTypeNodePort
			s.Spec.ClusterIP = v1.ClusterIPNone
			s.Spec.ClusterIPs = []string{v1.ClusterIPNone}
		}), []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`}},
		{"external name", svc(func(s *v1.Service) {
			s.Spec.Type = v1.ServiceTypeExternalName
			s.Spec.ExternalName = "example.com."
			s.Spec.InternalTrafficPolicy = nil
		}), nil},
		{"external name with cluster IPs", svc(func(s *v1.Service) {
			s.Spec.Type = v1.ServiceTypeExternalName
			s.Spec.ClusterIPs = []string{"10.0.0.1"}
			s.Spec.IPFamilyPolicy = &singleStack
		}), []string{
			`spec.clusterIPs: Forbidden: may not be set for ExternalName services`,
			`spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services`,
			`spec.externalName: Required value`,
		}},
		{"traffic distribution", svc(func(s *v1.Service) { s.Spec.TrafficDistribution = ptr.To("Nearest") }), []string{
			`spec.trafficDistribution: Unsupported value: "Nearest": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"`,
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateService(tc.obj), tc.want)
	}
}

func TestValidateServiceUpdate(t *testing.T) {
	allocated := func() *v1.Service {
		s := validService()
		s.ResourceVersion = "1"
		s.Spec.ClusterIP = "10.0.0.1"
		s.Spec.ClusterIPs = []string{"10.0.0.1"}
		s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol}
		s.Spec.IPFamilyPolicy = ptr.To(v1.IPFamilyPolicySingleStack)
		return s
	}
	old := allocated()
	expectErrors(t, "unchanged", ValidateServiceUpdate(allocated(), old), nil)

	newIP := allocated()
	newIP.Spec.ClusterIP = "10.0.0.2"
	newIP.Spec.ClusterIPs = []string{"10.0.0.2"}
	expectErrors(t, "clusterIP is immutable", ValidateServiceUpdate(newIP, old), []string{
		`spec.clusterIPs[0]: Invalid value: ["10.0.0.2"]: may not change once set`,
	})

	family := allocated()
	family.Spec.ClusterIP = "fd00::1"
	family.Spec.ClusterIPs = []string{"fd00::1"}
	family.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol}
	expectErrors(t, "ip family is immutable", ValidateServiceUpdate(family, old), []string{
		`spec.clusterIPs[0]: Invalid value: ["fd00::1"]: may not change once set`,
		`spec.ipFamilies[0]: Invalid value: ["IPv6"]: may not change once set`,
	})

	toExternalName := allocated()
	toExternalName.Spec.Type = v1.ServiceTypeExternalName
	toExternalName.Spec.ExternalName = "example.com"
	toExternalName.Spec.ClusterIP = ""
	toExternalName.Spec.ClusterIPs = nil
	toExternalName.Spec.IPFamilies = nil
	toExternalName.Spec.IPFamilyPolicy = nil
	toExternalName.Spec.InternalTrafficPolicy = nil
	expectErrors(t, "switch to ExternalName releases IPs", ValidateServiceUpdate(toExternalName, old), nil)

	lb := allocated()
	lb.Spec.Type = v1.ServiceTypeLoadBalancer
	lb.Spec.LoadBalancerClass = ptr.To("example.com/a")
	testScheme.Default(lb)
	lbChanged := lb.DeepCopy()
	lbChanged.Spec.LoadBalancerClass = ptr.To("example.com/b")
	expectErrors(t, "load balancer class is immutable", ValidateServiceUpdate(lbChanged, lb), []string{
		`spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set`,
	})
}

func TestValidateServiceStatusUpdate(t *testing.T) {
	old := validService()
	old.ResourceVersion = "1"
	withIngress := old.DeepCopy()
	withIngress.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	expectErrors(t, "ingress on ClusterIP", ValidateServiceStatusUpdate(withIngress, old), []string{
		"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
	})

	lb := old.DeepCopy()
	lb.Spec.Type = v1.ServiceTypeLoadBalancer
	lbStatus := lb.DeepCopy()
	lbStatus.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "1.2.3.4"}, {Hostname: "1.2.3.5", IPMode: ptr.To(v1.LoadBalancerIPModeVIP)}}
	expectErrors(t, "ingress ip mode", ValidateServiceStatusUpdate(lbStatus, lb), []string{
		"status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set",
		"status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set",
		`status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.5": must be a DNS name, not an IP address`,
	})
}
