package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_ResourceList rounds every quantity up to a whole milli-unit (a CPU of 0.0001
// becomes 1m): no finer amount is kept.
func SetDefaults_ResourceList(list *corev1.ResourceList) {
	for name, q := range *list {
		q.RoundUp(resource.Milli)
		(*list)[name] = q
	}
}

// SetDefaults_ReplicationController takes the selector and the labels from the template's
// labels when the controller has none. (Its replicas, 1, is a +default marker.)
func SetDefaults_ReplicationController(rc *corev1.ReplicationController) {
	if rc.Spec.Template == nil || rc.Spec.Template.Labels == nil {
		return
	}
	if len(rc.Spec.Selector) == 0 {
		rc.Spec.Selector = rc.Spec.Template.Labels
	}
	if len(rc.Labels) == 0 {
		rc.Labels = rc.Spec.Template.Labels
	}
}

// SetDefaults_Service: a ClusterIP service without session affinity; each port speaks TCP to
// the same port of the pods; traffic may go to any node's endpoints.
func SetDefaults_Service(svc *corev1.Service) {
	spec := &svc.Spec
	fill.Zero(&spec.Type, corev1.ServiceTypeClusterIP)
	fill.Zero(&spec.SessionAffinity, corev1.ServiceAffinityNone)
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		// Client IP affinity lasts three hours unless the config says how long.
		if cfg := spec.SessionAffinityConfig; cfg == nil || cfg.ClientIP == nil || cfg.ClientIP.TimeoutSeconds == nil {
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{
				ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To(corev1.DefaultClientIPServiceAffinitySeconds)},
			}
		}
	}

	for i := range spec.Ports {
		p := &spec.Ports[i]
		fill.Zero(&p.Protocol, corev1.ProtocolTCP)
		if p.TargetPort == (intstr.IntOrString{}) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}

	switch spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		fill.Nil(&spec.InternalTrafficPolicy, corev1.ServiceInternalTrafficPolicyCluster)
		if spec.Type != corev1.ServiceTypeClusterIP || len(spec.ExternalIPs) > 0 {
			// Reachable from outside the cluster.
			fill.Zero(&spec.ExternalTrafficPolicy, corev1.ServiceExternalTrafficPolicyCluster)
		}
	}

	if spec.Type == corev1.ServiceTypeLoadBalancer {
		fill.Nil(&spec.AllocateLoadBalancerNodePorts, true)
		// A load balancer that reports an IP is a virtual IP unless it says it proxies.
		for i := range svc.Status.LoadBalancer.Ingress {
			if ing := &svc.Status.LoadBalancer.Ingress[i]; ing.IP != "" {
				fill.Nil(&ing.IPMode, corev1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// SetDefaults_Endpoints: an endpoint port speaks TCP.
func SetDefaults_Endpoints(ep *corev1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			fill.Zero(&ep.Subsets[i].Ports[j].Protocol, corev1.ProtocolTCP)
		}
	}
}

// SetDefaults_Namespace labels a namespace with its own name (kubernetes.io/metadata.name), so
// that selectors can pick namespaces by name. A namespace asked for by generateName has no name
// yet: the namespace strategy labels it once it has one.
func SetDefaults_Namespace(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// SetDefaults_NamespaceStatus: a new namespace is Active.
func SetDefaults_NamespaceStatus(status *corev1.NamespaceStatus) {
	fill.Zero(&status.Phase, corev1.NamespaceActive)
}

// SetDefaults_NodeStatus: a node that reports its capacity but not what is allocatable offers
// all of it.
func SetDefaults_NodeStatus(status *corev1.NodeStatus) {
	if status.Allocatable == nil && status.Capacity != nil {
		status.Allocatable = status.Capacity.DeepCopy()
	}
}

// SetDefaults_LimitRangeItem fills a container limit range's defaults from its bounds: the
// default limit is the max, the default request is the default limit, else the min.
func SetDefaults_LimitRangeItem(item *corev1.LimitRangeItem) {
	if item.Type != corev1.LimitTypeContainer {
		return
	}
	if item.Default == nil {
		item.Default = corev1.ResourceList{}
	}
	if item.DefaultRequest == nil {
		item.DefaultRequest = corev1.ResourceList{}
	}
	addMissing(item.Default, item.Max)
	addMissing(item.DefaultRequest, item.Default)
	addMissing(item.DefaultRequest, item.Min)
}

// addMissing copies into list every resource of from that list does not name.
func addMissing(list, from corev1.ResourceList) {
	for name, q := range from {
		if _, named := list[name]; !named {
			list[name] = q.DeepCopy()
		}
	}
}

// SetDefaults_ConfigMap: a ConfigMap always has a data map, if empty.
func SetDefaults_ConfigMap(cm *corev1.ConfigMap) {
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
}

// SetDefaults_Secret: a Secret of no type is Opaque.
func SetDefaults_Secret(s *corev1.Secret) {
	fill.Zero(&s.Type, corev1.SecretTypeOpaque)
}
