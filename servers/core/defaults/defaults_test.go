package defaults

// Behaviour tests for individual defaulters; expectations follow kubernetes
// v1.37.2 pkg/apis/{core,discovery,apps,batch}/v1/defaults_test.go.

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestServiceDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	cases := []struct {
		name string
		in   v1.ServiceSpec
		want func(*v1.ServiceSpec) bool
	}{
		{"clusterIP type and policies", v1.ServiceSpec{}, func(s *v1.ServiceSpec) bool {
			return s.Type == v1.ServiceTypeClusterIP && s.SessionAffinity == v1.ServiceAffinityNone &&
				*s.InternalTrafficPolicy == v1.ServiceInternalTrafficPolicyCluster && s.ExternalTrafficPolicy == "" &&
				s.AllocateLoadBalancerNodePorts == nil
		}},
		{"clusterIP with externalIPs is externally accessible", v1.ServiceSpec{ExternalIPs: []string{"1.2.3.4"}}, func(s *v1.ServiceSpec) bool {
			return s.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyCluster
		}},
		{"load balancer", v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer}, func(s *v1.ServiceSpec) bool {
			return s.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyCluster && *s.AllocateLoadBalancerNodePorts &&
				*s.InternalTrafficPolicy == v1.ServiceInternalTrafficPolicyCluster
		}},
		{"external name gets no traffic policies", v1.ServiceSpec{Type: v1.ServiceTypeExternalName}, func(s *v1.ServiceSpec) bool {
			return s.InternalTrafficPolicy == nil && s.ExternalTrafficPolicy == ""
		}},
		{"client IP affinity timeout", v1.ServiceSpec{SessionAffinity: v1.ServiceAffinityClientIP}, func(s *v1.ServiceSpec) bool {
			return *s.SessionAffinityConfig.ClientIP.TimeoutSeconds == v1.DefaultClientIPServiceAffinitySeconds
		}},
		{"affinity None drops config", v1.ServiceSpec{SessionAffinityConfig: &v1.SessionAffinityConfig{}}, func(s *v1.ServiceSpec) bool {
			return s.SessionAffinityConfig == nil
		}},
		{"ports", v1.ServiceSpec{Ports: []v1.ServicePort{{Port: 80}, {Port: 81, TargetPort: intstr.FromString("http")}, {Port: 82, Protocol: v1.ProtocolUDP}}}, func(s *v1.ServiceSpec) bool {
			return s.Ports[0].TargetPort == intstr.FromInt32(80) && s.Ports[0].Protocol == v1.ProtocolTCP &&
				s.Ports[1].TargetPort == intstr.FromString("http") && s.Ports[2].Protocol == v1.ProtocolUDP &&
				s.Ports[2].TargetPort == intstr.FromInt32(82)
		}},
	}
	for _, tc := range cases {
		svc := &v1.Service{Spec: tc.in}
		scheme.Default(svc)
		if !tc.want(&svc.Spec) {
			t.Errorf("%s: unexpected defaults: %+v", tc.name, svc.Spec)
		}
	}

	vip, proxy := v1.LoadBalancerIPModeVIP, v1.LoadBalancerIPModeProxy
	svc := &v1.Service{Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer}}
	svc.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "1.2.3.4"}, {IP: "1.2.3.5", IPMode: &proxy}, {Hostname: "lb"}}
	scheme.Default(svc)
	ing := svc.Status.LoadBalancer.Ingress
	if *ing[0].IPMode != vip || *ing[1].IPMode != proxy || ing[2].IPMode != nil {
		t.Errorf("unexpected ipMode defaults: %+v", ing)
	}
}

func TestPodDefaultsRequestsFromLimitsAndHostNetwork(t *testing.T) {
	scheme := newTestScheme(t)
	pod := &v1.Pod{Spec: v1.PodSpec{
		HostNetwork: true,
		Containers: []v1.Container{{
			Name: "c", Image: "i",
			Ports: []v1.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 9090, HostPort: 9091}},
			Resources: v1.ResourceRequirements{
				Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
			},
		}},
		InitContainers: []v1.Container{{Name: "i", Image: "i", Resources: v1.ResourceRequirements{
			Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("0.0001")},
		}}},
		TerminationGracePeriodSeconds: ptr.To[int64](-1),
	}}
	pod.Status.PodIP = "10.0.0.1"
	scheme.Default(pod)
	c := pod.Spec.Containers[0]
	if q := c.Resources.Requests[v1.ResourceCPU]; q.String() != "500m" {
		t.Errorf("explicit cpu request changed: %s", q.String())
	}
	if q := c.Resources.Requests[v1.ResourceMemory]; q.String() != "1Gi" {
		t.Errorf("memory request not defaulted from limit: %s", q.String())
	}
	// SetDefaults_ResourceList rounds up to milli scale (after requests were copied from limits).
	if q := pod.Spec.InitContainers[0].Resources.Requests[v1.ResourceCPU]; q.String() != "1m" {
		t.Errorf("init container cpu request = %s, want 1m", q.String())
	}
	if c.Ports[0].HostPort != 8080 || c.Ports[1].HostPort != 9091 {
		t.Errorf("hostNetwork ports: %+v", c.Ports)
	}
	if *pod.Spec.TerminationGracePeriodSeconds != 1 {
		t.Errorf("negative terminationGracePeriodSeconds should become 1, got %d", *pod.Spec.TerminationGracePeriodSeconds)
	}
	if diff := cmp.Diff([]v1.PodIP{{IP: "10.0.0.1"}}, pod.Status.PodIPs); diff != "" {
		t.Errorf("podIPs: %s", diff)
	}

	// Requests are not defaulted from limits on templates (SetDefaults_Pod only).
	tmpl := &v1.PodTemplate{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{
		Resources: v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}},
	}}}}}
	scheme.Default(tmpl)
	if tmpl.Template.Spec.Containers[0].Resources.Requests != nil {
		t.Errorf("pod template got requests defaulted: %v", tmpl.Template.Spec.Containers[0].Resources.Requests)
	}
	if tmpl.Template.Spec.EnableServiceLinks != nil {
		t.Errorf("enableServiceLinks must only be defaulted on pods")
	}
}

func TestReplicationControllerDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	rc := &v1.ReplicationController{Spec: v1.ReplicationControllerSpec{
		Template: &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}}},
	}}
	scheme.Default(rc)
	if *rc.Spec.Replicas != 1 || rc.Spec.Selector["app"] != "a" || rc.Labels["app"] != "a" {
		t.Errorf("unexpected RC defaults: %+v %+v", rc.Labels, rc.Spec)
	}
	rc = &v1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"own": "x"}},
		Spec: v1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](0),
			Selector: map[string]string{"sel": "y"},
			Template: &v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}}},
		},
	}
	scheme.Default(rc)
	if *rc.Spec.Replicas != 0 || rc.Spec.Selector["sel"] != "y" || rc.Labels["own"] != "x" || len(rc.Labels) != 1 {
		t.Errorf("explicit RC fields must be kept: %+v %+v", rc.Labels, rc.Spec)
	}
}

func TestMiscCoreDefaults(t *testing.T) {
	scheme := newTestScheme(t)

	lr := &v1.LimitRange{Spec: v1.LimitRangeSpec{Limits: []v1.LimitRangeItem{{
		Type: v1.LimitTypeContainer,
		Max:  v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")},
		Min:  v1.ResourceList{v1.ResourceMemory: resource.MustParse("1Mi")},
	}, {
		Type: v1.LimitTypePod,
		Max:  v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")},
	}}}}
	scheme.Default(lr)
	item := lr.Spec.Limits[0]
	if q := item.Default[v1.ResourceCPU]; q.String() != "2" {
		t.Errorf("default limit from max: %v", item.Default)
	}
	if q := item.DefaultRequest[v1.ResourceCPU]; q.String() != "2" {
		t.Errorf("default request from default limit: %v", item.DefaultRequest)
	}
	if q := item.DefaultRequest[v1.ResourceMemory]; q.String() != "1Mi" {
		t.Errorf("default request from min: %v", item.DefaultRequest)
	}
	if lr.Spec.Limits[1].Default != nil {
		t.Errorf("pod limits must not get defaults: %v", lr.Spec.Limits[1].Default)
	}

	node := &v1.Node{Status: v1.NodeStatus{Capacity: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}}}
	scheme.Default(node)
	if q := node.Status.Allocatable[v1.ResourceCPU]; q.String() != "4" {
		t.Errorf("allocatable not defaulted from capacity: %v", node.Status.Allocatable)
	}

	ep := &v1.Endpoints{Subsets: []v1.EndpointSubset{{Ports: []v1.EndpointPort{{Port: 80}, {Port: 53, Protocol: v1.ProtocolUDP}}}}}
	scheme.Default(ep)
	if ep.Subsets[0].Ports[0].Protocol != v1.ProtocolTCP || ep.Subsets[0].Ports[1].Protocol != v1.ProtocolUDP {
		t.Errorf("endpoints ports: %+v", ep.Subsets[0].Ports)
	}

	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}
	scheme.Default(ns)
	if ns.Labels != nil || ns.Status.Phase != v1.NamespaceActive {
		t.Errorf("generateName-only namespace: %+v", ns)
	}
	ns = &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{v1.LabelMetadataName: "wrong"}}}
	scheme.Default(ns)
	if ns.Labels[v1.LabelMetadataName] != "a" {
		t.Errorf("metadata.name label must always be overwritten: %v", ns.Labels)
	}

	cm := &v1.ConfigMap{}
	scheme.Default(cm)
	if cm.Data == nil {
		t.Errorf("configmap data must be defaulted to an empty map")
	}

	list := &v1.PodList{Items: []v1.Pod{{}, {}}}
	scheme.Default(list)
	for _, p := range list.Items {
		if p.Spec.DNSPolicy != v1.DNSClusterFirst || *p.Spec.EnableServiceLinks != true {
			t.Errorf("list items not defaulted: %+v", p.Spec)
		}
	}

	sa := &v1.Pod{Spec: v1.PodSpec{DeprecatedServiceAccount: "old"}}
	scheme.Default(sa)
	if sa.Spec.ServiceAccountName != "old" {
		t.Errorf("serviceAccountName must be defaulted from serviceAccount: %q", sa.Spec.ServiceAccountName)
	}
}

func TestEndpointSliceDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	udp := v1.ProtocolUDP
	es := &discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{}, {Name: ptr.To("dns"), Protocol: &udp}}}
	scheme.Default(es)
	if *es.Ports[0].Name != "" || *es.Ports[0].Protocol != v1.ProtocolTCP || *es.Ports[1].Name != "dns" || *es.Ports[1].Protocol != udp {
		t.Errorf("unexpected ports: %+v", es.Ports)
	}
	*es.Ports[0].Name = "changed"
	other := &discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{}}}
	scheme.Default(other)
	if *other.Ports[0].Name != "" {
		t.Errorf("defaulted port names must not alias each other")
	}
}

func TestAppsDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	scheme.Default(d)
	if d.Spec.Strategy.RollingUpdate != nil || *d.Spec.Replicas != 1 {
		t.Errorf("recreate deployment: %+v", d.Spec)
	}
	ss := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{
		UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
		VolumeClaimTemplates: []v1.PersistentVolumeClaim{{}},
	}}
	scheme.Default(ss)
	if ss.Spec.UpdateStrategy.RollingUpdate != nil {
		t.Errorf("OnDelete statefulset must not get rollingUpdate")
	}
	pvc := ss.Spec.VolumeClaimTemplates[0]
	if *pvc.Spec.VolumeMode != v1.PersistentVolumeFilesystem || pvc.Status.Phase != v1.ClaimPending {
		t.Errorf("volumeClaimTemplates not defaulted: %+v", pvc)
	}
	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}}}
	scheme.Default(ds)
	if ds.Spec.UpdateStrategy.RollingUpdate != nil || *ds.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("OnDelete daemonset: %+v", ds.Spec)
	}
}

func TestBatchDefaults(t *testing.T) {
	scheme := newTestScheme(t)
	j := &batchv1.Job{Spec: batchv1.JobSpec{
		Parallelism:          ptr.To[int32](3),
		BackoffLimitPerIndex: ptr.To[int32](1),
		PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: v1.DisruptionTarget}},
		}}},
		Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}},
	}}
	scheme.Default(j)
	if j.Spec.Completions != nil || *j.Spec.Parallelism != 3 || *j.Spec.BackoffLimit != math.MaxInt32 ||
		*j.Spec.PodReplacementPolicy != batchv1.Failed || j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status != v1.ConditionTrue ||
		j.Labels["a"] != "b" {
		t.Errorf("unexpected job defaults: %+v %+v", j.Labels, j.Spec)
	}
	cj := &batchv1.CronJob{}
	scheme.Default(cj)
	if cj.Spec.JobTemplate.Spec.BackoffLimit != nil || cj.Spec.JobTemplate.Spec.Template.Spec.DNSPolicy != v1.DNSClusterFirst {
		t.Errorf("cronjob must default only its own fields and the pod template: %+v", cj.Spec.JobTemplate.Spec)
	}
}
