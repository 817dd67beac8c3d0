// Package coretest holds what Core's integration tests (test/core/<group>) share beyond
// starting a chain (test/testchain): minimal objects as a user writes them, a custom resource
// definition to serve, reading a resource as kubectl's Table, APIService availability and the
// paths of the REST API. The tests of ApiExtensions (test/extensions) and of the composition
// root (servers/chain) use the same.
//
// Where it sits: in test/, above everything; only tests import it.
package coretest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Object reads manifest, a YAML object in which NAME stands for name and NS for ns.
func Object(t testing.TB, manifest, name, ns string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]interface{}{}
	y := strings.NewReplacer("NAME", name, "NS", ns).Replace(manifest)
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// Pod is a pod named name with one container, as small as a valid pod gets.
func Pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}}
}

// Service is a service named name of type typ (empty: ClusterIP) selecting app=name on port
// 80, asking for clusterIP (empty: any).
func Service(name string, typ corev1.ServiceType, clusterIP string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: typ, ClusterIP: clusterIP, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Port: 80}}},
	}
}

// CollectionPath is the REST path of gvr's collection, in namespace if not empty.
func CollectionPath(gvr schema.GroupVersionResource, namespace string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		p = "/api/" + gvr.Version
	}
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + gvr.Resource
}
