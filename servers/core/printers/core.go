// Follows kubernetes pkg/printers/internalversion/printers.go (printNamespace,
// printConfigMap, printSecret, printServiceAccount, printService,
// printEndpoints, printReplicationController, printResourceQuota,
// printComponentStatus and their column definitions) as of kube-apiserver
// v1.37, on the core/v1 types. LimitRange has no printer upstream: it uses the
// default convertor of k8s.io/apiserver/pkg/registry/rest/table.go (see
// defaultTablePrinter in rbac.go).

package printers

import (
	"bytes"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Namespace prints core/v1 Namespaces.
var Namespace = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Status", Type: "string", Description: "The status of the namespace"},
		ageColumn(),
	},
	Row: rowFunc(func(obj *corev1.Namespace) ([]interface{}, error) {
		return []interface{}{obj.Name, string(obj.Status.Phase), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// ConfigMap prints core/v1 ConfigMaps.
var ConfigMap = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *corev1.ConfigMap) ([]interface{}, error) {
		return []interface{}{obj.Name, int64(len(obj.Data) + len(obj.BinaryData)), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// Secret prints core/v1 Secrets.
var Secret = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Type", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["type"]},
		{Name: "Data", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["data"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *corev1.Secret) ([]interface{}, error) {
		return []interface{}{obj.Name, string(obj.Type), int64(len(obj.Data)), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// ServiceAccount prints core/v1 ServiceAccounts (no Secrets column since v1.35).
var ServiceAccount = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		ageColumn(),
	},
	Row: rowFunc(func(obj *corev1.ServiceAccount) ([]interface{}, error) {
		return []interface{}{obj.Name, translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// Service prints core/v1 Services.
var Service = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Type", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["type"]},
		{Name: "Cluster-IP", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["clusterIP"]},
		{Name: "External-IP", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["externalIPs"]},
		{Name: "Port(s)", Type: "string", Description: corev1.ServiceSpec{}.SwaggerDoc()["ports"]},
		ageColumn(),
		{Name: "Selector", Type: "string", Priority: 1, Description: corev1.ServiceSpec{}.SwaggerDoc()["selector"]},
	},
	Row: rowFunc(printService),
}

// Endpoints prints core/v1 Endpoints.
var Endpoints = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Endpoints", Type: "string", Description: corev1.Endpoints{}.SwaggerDoc()["subsets"]},
		ageColumn(),
	},
	Row: rowFunc(func(obj *corev1.Endpoints) ([]interface{}, error) {
		return []interface{}{obj.Name, formatEndpoints(obj, nil), translateTimestampSince(obj.CreationTimestamp)}, nil
	}),
}

// ReplicationController prints core/v1 ReplicationControllers.
var ReplicationController = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Desired", Type: "integer", Description: corev1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"]},
		{Name: "Current", Type: "integer", Description: corev1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"]},
		{Name: "Ready", Type: "integer", Description: corev1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"]},
		ageColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: corev1.ReplicationControllerSpec{}.SwaggerDoc()["selector"]},
	},
	Row: rowFunc(func(obj *corev1.ReplicationController) ([]interface{}, error) {
		desiredReplicas := derefInt32(obj.Spec.Replicas)
		currentReplicas := obj.Status.Replicas
		readyReplicas := obj.Status.ReadyReplicas
		var containers []corev1.Container
		if obj.Spec.Template != nil {
			containers = obj.Spec.Template.Spec.Containers
		}
		names, images := layoutContainerCells(containers)
		return []interface{}{obj.Name, int64(desiredReplicas), int64(currentReplicas), int64(readyReplicas), translateTimestampSince(obj.CreationTimestamp),
			names, images, labels.FormatLabels(obj.Spec.Selector)}, nil
	}),
}

// LimitRange prints core/v1 LimitRanges with kube-apiserver's default
// convertor (Name, Created At), as upstream registers no printer for them.
var LimitRange = defaultTablePrinter()

// ResourceQuota prints core/v1 ResourceQuotas.
var ResourceQuota = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
		{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
		ageColumn(),
	},
	Row: rowFunc(printResourceQuota),
}

// ComponentStatus prints core/v1 ComponentStatuses.
var ComponentStatus = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Status", Type: "string", Description: "Status of the component conditions"},
		{Name: "Message", Type: "string", Description: "Message of the component conditions"},
		{Name: "Error", Type: "string", Description: "Error of the component conditions"},
	},
	Row: rowFunc(func(obj *corev1.ComponentStatus) ([]interface{}, error) {
		status := "Unknown"
		message := ""
		errorMessage := ""
		for _, condition := range obj.Conditions {
			if condition.Type == corev1.ComponentHealthy {
				if condition.Status == corev1.ConditionTrue {
					status = "Healthy"
				} else {
					status = "Unhealthy"
				}
				message = condition.Message
				errorMessage = condition.Error
				break
			}
		}
		return []interface{}{obj.Name, status, message, errorMessage}, nil
	}),
}

// Pass ports=nil for all ports.
func formatEndpoints(endpoints *corev1.Endpoints, ports sets.Set[string]) string {
	if len(endpoints.Subsets) == 0 {
		return "<none>"
	}
	list := []string{}
	max := 3
	more := false
	count := 0
	for i := range endpoints.Subsets {
		ss := &endpoints.Subsets[i]
		if len(ss.Ports) == 0 {
			// It's possible to have headless services with no ports.
			count += len(ss.Addresses)
			for i := range ss.Addresses {
				if len(list) == max {
					more = true
					// the next loop is redundant
					break
				}
				list = append(list, ss.Addresses[i].IP)
			}
			// avoid nesting code too deeply
			continue
		}

		// "Normal" services with ports defined.
		for i := range ss.Ports {
			port := &ss.Ports[i]
			if ports == nil || ports.Has(port.Name) {
				count += len(ss.Addresses)
				for i := range ss.Addresses {
					if len(list) == max {
						more = true
						// the next loop is redundant
						break
					}
					addr := &ss.Addresses[i]
					hostPort := net.JoinHostPort(addr.IP, strconv.Itoa(int(port.Port)))
					list = append(list, hostPort)
				}
			}
		}
	}

	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

// loadBalancerStatusStringer behaves mostly like a string interface and converts the given status to a string.
// `wide` indicates whether the returned value is meant for --o=wide output. If not, it's clipped to 16 bytes.
func loadBalancerStatusStringer(s corev1.LoadBalancerStatus, wide bool) string {
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

func getServiceExternalIP(svc *corev1.Service, wide bool) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		lbIps := loadBalancerStatusStringer(svc.Status.LoadBalancer, wide)
		if len(svc.Spec.ExternalIPs) > 0 {
			results := []string{}
			if len(lbIps) > 0 {
				results = append(results, strings.Split(lbIps, ",")...)
			}
			results = append(results, svc.Spec.ExternalIPs...)
			return strings.Join(results, ",")
		}
		if len(lbIps) > 0 {
			return lbIps
		}
		return "<pending>"
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

func makePortString(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for ix := range ports {
		port := &ports[ix]
		pieces[ix] = fmt.Sprintf("%d/%s", port.Port, port.Protocol)
		if port.NodePort > 0 {
			pieces[ix] = fmt.Sprintf("%d:%d/%s", port.Port, port.NodePort, port.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

func printService(obj *corev1.Service) ([]interface{}, error) {
	// kube-apiserver generates Tables with Wide: true.
	const wide = true
	svcType := obj.Spec.Type
	internalIP := "<none>"
	if len(obj.Spec.ClusterIPs) > 0 {
		internalIP = obj.Spec.ClusterIPs[0]
	}

	externalIP := getServiceExternalIP(obj, wide)
	svcPorts := makePortString(obj.Spec.Ports)
	if len(svcPorts) == 0 {
		svcPorts = "<none>"
	}

	return []interface{}{obj.Name, string(svcType), internalIP, externalIP, svcPorts, translateTimestampSince(obj.CreationTimestamp),
		labels.FormatLabels(obj.Spec.Selector)}, nil
}

func printResourceQuota(resourceQuota *corev1.ResourceQuota) ([]interface{}, error) {
	resources := make([]corev1.ResourceName, 0, len(resourceQuota.Status.Hard))
	for resource := range resourceQuota.Status.Hard {
		resources = append(resources, resource)
	}
	sort.Slice(resources, func(i, j int) bool { return resources[i] < resources[j] })

	requestColumn := bytes.NewBuffer([]byte{})
	limitColumn := bytes.NewBuffer([]byte{})
	for i := range resources {
		w := requestColumn
		resource := resources[i]
		usedQuantity := resourceQuota.Status.Used[resource]
		hardQuantity := resourceQuota.Status.Hard[resource]

		// use limitColumn writer if a resource name prefixed with "limits" is found
		if pieces := strings.Split(resource.String(), "."); len(pieces) > 1 && pieces[0] == "limits" {
			w = limitColumn
		}

		fmt.Fprintf(w, "%s: %s/%s, ", resource, usedQuantity.String(), hardQuantity.String())
	}

	age := translateTimestampSince(resourceQuota.CreationTimestamp)
	return []interface{}{resourceQuota.Name, strings.TrimSuffix(requestColumn.String(), ", "), strings.TrimSuffix(limitColumn.String(), ", "), age}, nil
}
