package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// node is a valid, defaulted Node as a kubelet registers it, changed by edit.
func node(t *testing.T, edit func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{}
	validationtest.Decode(t, n, `
metadata: {name: n1, resourceVersion: "1"}
spec: {podCIDRs: [10.244.0.0/24, "fd00::/64"], providerID: "kind://n1", taints: [{key: a, value: b, effect: NoSchedule}, {key: a, effect: NoExecute}]}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110", example.com/gpu: "2"}
  addresses: [{type: InternalIP, address: 10.0.0.1}, {type: Hostname, address: n1}]
  declaredFeatures: [Alpha, Beta/sub]`)
	if edit != nil {
		edit(n)
	}
	return n
}

func TestNode(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*corev1.Node)
		want []string
	}{
		{"valid", nil, nil},
		{"namespaced", func(n *corev1.Node) { n.Namespace = "default" }, []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"taints", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{
				{Key: "a", Value: "b", Effect: corev1.TaintEffectNoSchedule},
				{Key: "a", Value: "c", Effect: corev1.TaintEffectNoSchedule},
				{Key: "b", Effect: ""},
				{Key: "bad key", Value: "bad value", Effect: "Sometimes"},
			}
		}, []string{
			`metadata.taints[1]: Duplicate value: {"Key":"a","Value":"c","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
			"metadata.taints[2].effect: Required value",
			`metadata.taints[3].key: Invalid value: "bad key": name part must consist of alphanumeric characters`,
			`metadata.taints[3].value: Invalid value: "bad value": a valid label must be an empty string or consist of`,
			`metadata.taints[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"quantities", func(n *corev1.Node) {
			n.Status.Allocatable = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1"), corev1.ResourcePods: resource.MustParse("1.5"), "example.com/gpu": resource.MustParse("500m")}
		}, []string{
			`status.allocatable[example.com/gpu]: Invalid value: "500m": must be an integer`,
			`status.allocatable[memory]: Invalid value: "-1": must be greater than or equal to 0`,
			`status.allocatable[pods]: Invalid value: "1500m": must be an integer`,
		}},
		{"swap", func(n *corev1.Node) { n.Status.NodeInfo.Swap = &corev1.NodeSwapStatus{Capacity: ptr.To[int64](0)} },
			[]string{"metadata.nodeSwapStatus.capacity: Invalid value: 0: must be greater than zero"}},
		{"declared features", func(n *corev1.Node) { n.Status.DeclaredFeatures = []string{"B", "A", "A", "lower"} }, []string{
			`status.declaredFeatures[1]: Invalid value: "A": list must be sorted alphabetically`,
			`status.declaredFeatures[2]: Duplicate value: "A"`,
			`status.declaredFeatures[3]: Invalid value: "lower": invalid feature name "lower": must start with an UpperCamelCase segment`,
		}},
		{"pod CIDRs", func(n *corev1.Node) { n.Spec.PodCIDRs = []string{"10.244.0.0/24", "10.245.0.0/24", "10.0.0.0/33"} }, []string{
			`spec.podCIDRs[2]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
			`spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24","10.0.0.0/33"]: may specify no more than one CIDR for each IP family`,
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateNode(node(t, tc.edit)), tc.want...)
	}
}

func TestNodeUpdate(t *testing.T) {
	old := node(t, nil)
	validationtest.Expect(t, "unschedulable and taints may change", ValidateNodeUpdate(node(t, func(n *corev1.Node) {
		n.Spec.Unschedulable = true
		n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	}), old))

	changed := node(t, func(n *corev1.Node) {
		n.Spec.PodCIDRs = []string{"10.245.0.0/24", "fd01::/64"}
		n.Spec.ProviderID = "kind://n2"
		n.Spec.DoNotUseExternalID = "x"
		n.Status.Addresses = append(n.Status.Addresses, n.Status.Addresses[0])
	})
	want := []string{
		`status.addresses[2]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}`,
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		"spec.providerID: Invalid value: null: field cannot be modified once set",
		"spec.externalID: Forbidden: may not be updated",
	}
	validationtest.Expect(t, "status update", ValidateNodeStatusUpdate(changed, old), want...)
	validationtest.Expect(t, "update: the node is valid first", ValidateNodeUpdate(changed, old), want...)

	cleared := node(t, func(n *corev1.Node) { n.Spec.ProviderID = ""; n.Spec.PodCIDRs = nil })
	validationtest.Expect(t, "cleared", ValidateNodeStatusUpdate(cleared, old),
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		"spec.providerID: Invalid value: null: field cannot be cleared once set")
	assigned := node(t, nil)
	old.Spec.PodCIDRs, old.Spec.ProviderID = nil, ""
	validationtest.Expect(t, "assigned once", ValidateNodeStatusUpdate(assigned, old))
}
