package printers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeStatusAndRoles follows upstream's TestPrintNodeStatus and
// TestPrintNodeRole, plus TestPrintNodeArch for the wide cells.
func TestNodeStatusAndRoles(t *testing.T) {
	ready := func(s corev1.ConditionStatus) []corev1.NodeCondition {
		return []corev1.NodeCondition{{Type: corev1.NodeReady, Status: s}}
	}
	tests := []struct {
		name string
		node corev1.Node
		want []interface{}
	}{
		{"ready", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo1"}, Status: corev1.NodeStatus{Conditions: ready(corev1.ConditionTrue)}},
			[]interface{}{"foo1", "Ready", "<none>", "<unknown>", ""}},
		{"ready, unschedulable", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo2"}, Spec: corev1.NodeSpec{Unschedulable: true}, Status: corev1.NodeStatus{Conditions: ready(corev1.ConditionTrue)}},
			[]interface{}{"foo2", "Ready,SchedulingDisabled", "<none>", "<unknown>", ""}},
		{"duplicate ready condition", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo3"}, Status: corev1.NodeStatus{Conditions: append(ready(corev1.ConditionTrue), ready(corev1.ConditionTrue)...)}},
			[]interface{}{"foo3", "Ready", "<none>", "<unknown>", ""}},
		{"not ready", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo4"}, Status: corev1.NodeStatus{Conditions: ready(corev1.ConditionFalse)}},
			[]interface{}{"foo4", "NotReady", "<none>", "<unknown>", ""}},
		{"not ready, unschedulable", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo5"}, Spec: corev1.NodeSpec{Unschedulable: true}, Status: corev1.NodeStatus{Conditions: ready(corev1.ConditionFalse)}},
			[]interface{}{"foo5", "NotReady,SchedulingDisabled", "<none>", "<unknown>", ""}},
		{"unknown condition", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo6"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: "InvalidValue", Status: corev1.ConditionTrue}}}},
			[]interface{}{"foo6", "Unknown", "<none>", "<unknown>", ""}},
		{"unknown, unschedulable", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo9"}, Spec: corev1.NodeSpec{Unschedulable: true}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{}}}},
			[]interface{}{"foo9", "Unknown,SchedulingDisabled", "<none>", "<unknown>", ""}},
		{"roles from node-role labels and kubernetes.io/role", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo10",
			Labels: map[string]string{"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/proxy": "", "kubernetes.io/role": "node"}}},
			[]interface{}{"foo10", "Unknown", "control-plane,master,node,proxy", "<unknown>", ""}},
		{"role from kubernetes.io/role", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foo11", Labels: map[string]string{"kubernetes.io/role": "node"}}},
			[]interface{}{"foo11", "Unknown", "node", "<unknown>", ""}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Node, &tc.node, false, tc.want)
	}

	wide := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "foo1"},
		Status: corev1.NodeStatus{
			NodeInfo:  corev1.NodeSystemInfo{Architecture: "arch1", KernelVersion: "kernel1", OSImage: "image1", ContainerRuntimeVersion: "runtime1", KubeletVersion: "v1.37.2"},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "1.1.1.1"}, {Type: corev1.NodeInternalIP, Address: "10.1.1.1"}},
		},
	}
	checkRow(t, "wide", Node, &wide, true, []interface{}{"foo1", "Unknown", "<none>", "<unknown>", "v1.37.2", "10.1.1.1", "1.1.1.1", "image1", "kernel1 (arch1)", "runtime1"})
}

// TestServiceCells follows upstream's TestPrintService and
// TestPrintServiceLoadBalancer. kube-apiserver prints with Wide, so the
// load balancer addresses are never elided.
func TestServiceCells(t *testing.T) {
	lb := func(ips ...string) corev1.ServiceStatus {
		var ingress []corev1.LoadBalancerIngress
		for _, ip := range ips {
			ingress = append(ingress, corev1.LoadBalancerIngress{IP: ip})
		}
		return corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}}
	}
	tcp := func(port, nodePort int32) []corev1.ServicePort {
		return []corev1.ServicePort{{Protocol: "tcp", Port: port, NodePort: nodePort}}
	}
	tests := []struct {
		name string
		svc  corev1.Service
		want []interface{}
	}{
		{"cluster IP with selector", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test1"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: tcp(2233, 0), ClusterIPs: []string{"10.9.8.7"}, Selector: map[string]string{"foo": "bar"}}},
			[]interface{}{"test1", "ClusterIP", "10.9.8.7", "<none>", "2233/tcp", "<unknown>", "foo=bar"}},
		{"node port", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test2"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: tcp(8888, 9999), ClusterIPs: []string{"10.9.8.7"}}},
			[]interface{}{"test2", "NodePort", "10.9.8.7", "<none>", "8888:9999/tcp", "<unknown>", "<none>"}},
		{"load balancer pending", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test3"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: tcp(8888, 0), ClusterIPs: []string{"10.9.8.7"}}},
			[]interface{}{"test3", "LoadBalancer", "10.9.8.7", "<pending>", "8888/tcp", "<unknown>", "<none>"}},
		{"load balancer with external IP and no status", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test4"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: tcp(8888, 0), ClusterIPs: []string{"10.9.8.7"}, ExternalIPs: []string{"80.11.12.10"}}},
			[]interface{}{"test4", "LoadBalancer", "10.9.8.7", "80.11.12.10", "8888/tcp", "<unknown>", "<none>"}},
		{"load balancer ingress then external IPs", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test6"},
			Spec:   corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: tcp(8888, 0), ClusterIPs: []string{"10.9.8.7"}, ExternalIPs: []string{"80.11.12.10", "80.11.12.11"}},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "2.3.4.5", Hostname: "test.cluster.local"}, {IP: "3.4.5.6", Hostname: "test.cluster.com"}}}}},
			[]interface{}{"test6", "LoadBalancer", "10.9.8.7", "2.3.4.5,3.4.5.6,80.11.12.10,80.11.12.11", "8888/tcp", "<unknown>", "<none>"}},
		{"external name", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "test7"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "my.database.example.com"}},
			[]interface{}{"test7", "ExternalName", "<none>", "my.database.example.com", "<none>", "<unknown>", "<none>"}},
		{"load balancer, several ports", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "service2"},
			Spec: corev1.ServiceSpec{ClusterIPs: []string{"1.3.4.5"}, Type: "LoadBalancer",
				Ports: []corev1.ServicePort{{Port: 80, Protocol: "TCP"}, {Port: 8090, Protocol: "UDP"}, {Port: 8000, Protocol: "TCP"}, {Port: 7777, Protocol: "SCTP"}}}},
			[]interface{}{"service2", "LoadBalancer", "1.3.4.5", "<pending>", "80/TCP,8090/UDP,8000/TCP,7777/SCTP", "<unknown>", "<none>"}},
		{"long load balancer list, wide", corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "service4"},
			Spec: corev1.ServiceSpec{ClusterIPs: []string{"1.5.6.7"}, Type: "LoadBalancer",
				Ports:    []corev1.ServicePort{{Port: 80, Protocol: "TCP"}, {Port: 8090, Protocol: "UDP"}, {Port: 8000, Protocol: "TCP"}},
				Selector: map[string]string{"foo": "bar"}},
			Status: lb("2.3.4.5", "3.4.5.6", "5.6.7.8")},
			[]interface{}{"service4", "LoadBalancer", "1.5.6.7", "2.3.4.5,3.4.5.6,5.6.7.8", "80/TCP,8090/UDP,8000/TCP", "<unknown>", "foo=bar"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Service, &tc.svc, true, tc.want)
	}
}

// TestEndpointsCells follows upstream's TestPrintEndpoint.
func TestEndpointsCells(t *testing.T) {
	addrs := func(ips ...string) []corev1.EndpointAddress {
		var out []corev1.EndpointAddress
		for _, ip := range ips {
			out = append(out, corev1.EndpointAddress{IP: ip})
		}
		return out
	}
	future := metav1.Time{Time: time.Now().Add(1.9e9)}
	tests := []struct {
		name string
		ep   corev1.Endpoints
		want []interface{}
	}{
		{"no subsets", corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "endpoint1", CreationTimestamp: future}},
			[]interface{}{"endpoint1", "<none>", "0s"}},
		{"no ports", corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "endpoint3", CreationTimestamp: metav1.Time{Time: time.Now().Add(-3e11)}},
			Subsets: []corev1.EndpointSubset{{Addresses: addrs("1.2.3.4", "5.6.7.8")}}},
			[]interface{}{"endpoint3", "1.2.3.4,5.6.7.8", "5m"}},
		{"two IPs one port", corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "endpoint2", CreationTimestamp: future},
			Subsets: []corev1.EndpointSubset{{Addresses: addrs("1.2.3.4", "5.6.7.8"), Ports: []corev1.EndpointPort{{Port: 8001, Protocol: "tcp"}}}}},
			[]interface{}{"endpoint2", "1.2.3.4:8001,5.6.7.8:8001", "0s"}},
		{"more than three", corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "endpoint2", CreationTimestamp: future},
			Subsets: []corev1.EndpointSubset{{Addresses: addrs("1.2.3.4", "5.6.7.8", "9.8.7.6", "6.6.6.6"), Ports: []corev1.EndpointPort{{Port: 8001, Protocol: "tcp"}}}}},
			[]interface{}{"endpoint2", "1.2.3.4:8001,5.6.7.8:8001,9.8.7.6:8001 + 1 more...", "0s"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Endpoints, &tc.ep, true, tc.want)
	}
}

// TestEventCells follows upstream's TestPrintEvent, and checks that an
// events.k8s.io/v1 Event prints like the core Event it converts to.
func TestEventCells(t *testing.T) {
	daysAgo := func(d int) metav1.Time { return metav1.Time{Time: time.Now().UTC().AddDate(0, 0, -d)} }
	microDaysAgo := func(d int) metav1.MicroTime { return metav1.MicroTime{Time: time.Now().UTC().AddDate(0, 0, -d)} }
	deployment := corev1.ObjectReference{Kind: "Deployment", Name: "Deployment Name", FieldPath: "spec.containers{foo}"}
	kubelet := corev1.EventSource{Component: "kubelet", Host: "Node1"}
	tests := []struct {
		name  string
		event corev1.Event
		wide  bool
		want  []interface{}
	}{
		{"default columns", corev1.Event{Source: corev1.EventSource{Component: "kubelet"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "Pod Name", FieldPath: "spec.containers{foo}"},
			Reason:         "Event Reason", Message: "Message Data", FirstTimestamp: daysAgo(3), LastTimestamp: daysAgo(2), Count: 6, Type: corev1.EventTypeNormal, ObjectMeta: metav1.ObjectMeta{Name: "event1"}},
			false, []interface{}{"2d", "Normal", "Event Reason", "pod/Pod Name", "Message Data"}},
		{"wide", corev1.Event{Source: kubelet, InvolvedObject: deployment,
			Reason: "Event Reason", Message: "Message Data", FirstTimestamp: daysAgo(3), LastTimestamp: daysAgo(2), Count: 6, Type: corev1.EventTypeWarning, ObjectMeta: metav1.ObjectMeta{Name: "event2"}},
			true, []interface{}{"2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", int64(6), "event2"}},
		{"no first timestamp", corev1.Event{Source: kubelet, InvolvedObject: deployment,
			Reason: "Event Reason", Message: "Message Data", EventTime: microDaysAgo(3), LastTimestamp: daysAgo(3), Count: 1, Type: corev1.EventTypeWarning, ObjectMeta: metav1.ObjectMeta{Name: "event3"}},
			true, []interface{}{"3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", int64(1), "event3"}},
		{"series", corev1.Event{Source: kubelet, InvolvedObject: deployment,
			Series: &corev1.EventSeries{Count: 2, LastObservedTime: microDaysAgo(2)},
			Reason: "Event Reason", Message: "Message Data", EventTime: microDaysAgo(3), Type: corev1.EventTypeWarning, ObjectMeta: metav1.ObjectMeta{Name: "event6"}},
			true, []interface{}{"2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", int64(2), "event6"}},
		{"singleton without count", corev1.Event{Source: kubelet, InvolvedObject: deployment,
			Reason: "Event Reason", Message: "Message Data", EventTime: microDaysAgo(3), Type: corev1.EventTypeWarning, ObjectMeta: metav1.ObjectMeta{Name: "event7"}},
			true, []interface{}{"3d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", int64(1), "event7"}},
		{"source from reporting controller", corev1.Event{ReportingController: "kubelet", ReportingInstance: "test", InvolvedObject: deployment,
			Reason: "Event Reason", Message: "Message Data", FirstTimestamp: daysAgo(3), LastTimestamp: daysAgo(2), Count: 6, Type: corev1.EventTypeWarning, ObjectMeta: metav1.ObjectMeta{Name: "event2"}},
			true, []interface{}{"2d", "Warning", "Event Reason", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, test", "Message Data", "3d", int64(6), "event2"}},
		{"object without name", corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Node"}, Message: "  padded  ", ObjectMeta: metav1.ObjectMeta{Name: "event8"}},
			true, []interface{}{"<unknown>", "", "", "node", "", "", "padded", "<unknown>", int64(1), "event8"}},
	}
	for _, tc := range tests {
		checkRow(t, tc.name, Event, &tc.event, tc.wide, tc.want)
	}

	v1 := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "event9"},
		EventTime:           microDaysAgo(3),
		Series:              &eventsv1.EventSeries{Count: 4, LastObservedTime: microDaysAgo(1)},
		ReportingController: "kubelet",
		ReportingInstance:   "Node1",
		Reason:              "Pulled",
		Regarding:           deployment,
		Note:                "Message Data",
		Type:                corev1.EventTypeNormal,
	}
	checkRow(t, "events.k8s.io/v1", EventsV1Event, v1, true,
		[]interface{}{"24h", "Normal", "Pulled", "deployment/Deployment Name", "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", int64(4), "event9"})
}
