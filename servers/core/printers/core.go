package printers

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
)

// The core/v1 resources but pods, volumes and events.

var Namespace = define("namespaces", func(ns *corev1.Namespace) []any {
	return []any{ns.Name, ns.Status.Phase, age(ns.CreationTimestamp)}
})

var ConfigMap = define("configmaps", func(cm *corev1.ConfigMap) []any {
	return []any{cm.Name, len(cm.Data) + len(cm.BinaryData), age(cm.CreationTimestamp)}
})

var Secret = define("secrets", func(s *corev1.Secret) []any {
	return []any{s.Name, s.Type, len(s.Data), age(s.CreationTimestamp)}
})

var ServiceAccount = define("serviceaccounts", func(sa *corev1.ServiceAccount) []any {
	return []any{sa.Name, age(sa.CreationTimestamp)}
})

// LimitRange has kube-apiserver's default table: Name, Created At.
var LimitRange = define("limitranges", createdAt[*corev1.LimitRange])

var PodTemplate = define("podtemplates", func(t *corev1.PodTemplate) []any {
	containers := t.Template.Spec.Containers
	return []any{t.Name, containerNames(containers), containerImages(containers), labels.FormatLabels(t.Template.Labels)}
})

var ReplicationController = define("replicationcontrollers", func(rc *corev1.ReplicationController) []any {
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	return []any{rc.Name, ptr.Deref(rc.Spec.Replicas, 0), rc.Status.Replicas, rc.Status.ReadyReplicas, age(rc.CreationTimestamp),
		containerNames(containers), containerImages(containers), labels.FormatLabels(rc.Spec.Selector)}
})

var Service = define("services", func(s *corev1.Service) []any {
	clusterIP := "<none>"
	if len(s.Spec.ClusterIPs) > 0 {
		clusterIP = s.Spec.ClusterIPs[0]
	}
	ports := joined(s.Spec.Ports, ",", func(p corev1.ServicePort) string {
		if p.NodePort > 0 {
			return fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
		return fmt.Sprintf("%d/%s", p.Port, p.Protocol)
	})
	return []any{s.Name, s.Spec.Type, clusterIP, externalIP(s), cmp.Or(ports, "<none>"), age(s.CreationTimestamp), labels.FormatLabels(s.Spec.Selector)}
})

// externalIP is a Service's External-IP cell. kube-apiserver prints tables
// wide, so a load balancer's addresses are never shortened.
func externalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		return cmp.Or(strings.Join(s.Spec.ExternalIPs, ","), "<none>")
	case corev1.ServiceTypeLoadBalancer:
		addresses := sortedAddresses(s.Status.LoadBalancer.Ingress, func(i corev1.LoadBalancerIngress) string { return cmp.Or(i.IP, i.Hostname) })
		return cmp.Or(strings.Join(append(addresses, s.Spec.ExternalIPs...), ","), "<pending>")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

var Endpoints = define("endpoints", func(e *corev1.Endpoints) []any {
	list := "<none>"
	if len(e.Subsets) > 0 {
		var all []string
		for _, subset := range e.Subsets {
			if len(subset.Ports) == 0 { // a headless service without ports
				all = append(all, joinedIPs(subset.Addresses, "")...)
			}
			for _, port := range subset.Ports {
				all = append(all, joinedIPs(subset.Addresses, strconv.Itoa(int(port.Port)))...)
			}
		}
		list = firstOf(all, 3, ",")
	}
	return []any{e.Name, list, age(e.CreationTimestamp)}
})

// joinedIPs is each address's IP, with ":port" unless port is empty.
func joinedIPs(addresses []corev1.EndpointAddress, port string) []string {
	out := make([]string, len(addresses))
	for i, a := range addresses {
		out[i] = a.IP
		if port != "" {
			out[i] = net.JoinHostPort(a.IP, port)
		}
	}
	return out
}

var ResourceQuota = define("resourcequotas", func(q *corev1.ResourceQuota) []any {
	var requests, limits []string
	for _, name := range slices.Sorted(maps.Keys(q.Status.Hard)) {
		hard, used := q.Status.Hard[name], q.Status.Used[name]
		usage := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if strings.HasPrefix(string(name), "limits.") {
			limits = append(limits, usage)
		} else {
			requests = append(requests, usage)
		}
	}
	return []any{q.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), age(q.CreationTimestamp)}
})

var ComponentStatus = define("componentstatuses", func(cs *corev1.ComponentStatus) []any {
	for _, c := range cs.Conditions {
		if c.Type == corev1.ComponentHealthy {
			health := "Unhealthy"
			if c.Status == corev1.ConditionTrue {
				health = "Healthy"
			}
			return []any{cs.Name, health, c.Message, c.Error}
		}
	}
	return []any{cs.Name, "Unknown", "", ""}
})

var Node = define("nodes", func(n *corev1.Node) []any {
	info := n.Status.NodeInfo
	kernel := cmp.Or(info.KernelVersion, "<unknown>")
	if info.Architecture != "" {
		kernel += " (" + info.Architecture + ")"
	}
	return []any{n.Name, nodeStatus(n), nodeRoles(n), age(n.CreationTimestamp), info.KubeletVersion,
		nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP),
		cmp.Or(info.OSImage, "<unknown>"), kernel, cmp.Or(info.ContainerRuntimeVersion, "<unknown>")}
})

// nodeStatus is Ready, NotReady or Unknown (after the node's last Ready
// condition), with SchedulingDisabled for a cordoned node.
func nodeStatus(n *corev1.Node) string {
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			status = "NotReady"
			if c.Status == corev1.ConditionTrue {
				status = "Ready"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

// nodeRoles are named by node-role.kubernetes.io/<role> labels and by the
// older kubernetes.io/role=<role>.
func nodeRoles(n *corev1.Node) string {
	roles := sets.New[string]()
	for key, value := range n.Labels {
		if role, ok := strings.CutPrefix(key, "node-role.kubernetes.io/"); ok && role != "" {
			roles.Insert(role)
		}
		if key == "kubernetes.io/role" && value != "" {
			roles.Insert(value)
		}
	}
	return cmp.Or(strings.Join(sets.List(roles), ","), "<none>")
}

// nodeAddress is the node's first address of type t, or <none>.
func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}
