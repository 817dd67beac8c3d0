package validation

// Table tests for Node validation. Expectations follow kubernetes v1.37.2
// pkg/apis/core/validation/validation.go and validation_test.go
// (TestValidateNode, TestValidateNodeUpdate).

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateNode(t *testing.T) {
	node := func(mutate func(*v1.Node)) *v1.Node {
		n := validNode()
		if mutate != nil {
			mutate(n)
		}
		return n
	}
	cases := []struct {
		name string
		obj  *v1.Node
		want []string
	}{
		{"valid", node(func(n *v1.Node) {
			n.Spec.PodCIDRs = []string{"10.244.0.0/24", "fd00::/64"}
			n.Spec.Taints = []v1.Taint{{Key: "a", Value: "b", Effect: v1.TaintEffectNoSchedule}, {Key: "a", Effect: v1.TaintEffectNoExecute}}
			n.Status.Capacity = v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("110")}
		}), nil},
		{"namespace set", node(func(n *v1.Node) { n.Namespace = "default" }), []string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"taints", node(func(n *v1.Node) {
			n.Spec.Taints = []v1.Taint{
				{Key: "a", Value: "b", Effect: v1.TaintEffectNoSchedule},
				{Key: "a", Value: "c", Effect: v1.TaintEffectNoSchedule},
				{Key: "b", Effect: ""},
				{Key: "c", Effect: "Sometimes"},
			}
		}), []string{
			`metadata.taints[1]: Duplicate value: {"Key":"a","Value":"c","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
			`metadata.taints[2].effect: Required value`,
			`metadata.taints[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"pod CIDRs", node(func(n *v1.Node) { n.Spec.PodCIDRs = []string{"10.244.0.0/24", "10.245.0.0/24"} }), []string{
			`spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24"]: may specify no more than one CIDR for each IP family`,
		}},
		{"negative capacity and fractional pods", node(func(n *v1.Node) {
			n.Status.Capacity = v1.ResourceList{v1.ResourceMemory: resource.MustParse("-1"), v1.ResourcePods: resource.MustParse("1.5")}
		}), nil},
		{"declared features", node(func(n *v1.Node) { n.Status.DeclaredFeatures = []string{"B", "A", "A"} }), []string{
			`status.declaredFeatures[1]: Invalid value: "A": list must be sorted alphabetically`,
			`status.declaredFeatures[2]: Duplicate value: "A"`,
		}},
		{"taints annotation", node(func(n *v1.Node) { n.Annotations = map[string]string{v1.TaintsAnnotationKey: "[{"} }), []string{
			`metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/taints": unexpected end of JSON input`,
		}},
	}
	for _, tc := range cases {
		if tc.name == "negative capacity and fractional pods" {
			// Map iteration order decides the order of the two errors; check them as a set.
			got := errStrings(ValidateNode(tc.obj))
			want := map[string]bool{
				`status.capacity.memory: Invalid value: "-1": must be greater than or equal to 0`: true,
				`status.capacity.pods: Invalid value: "1500m": must be an integer`:                true,
			}
			if len(got) != len(want) {
				t.Errorf("%s: got %v", tc.name, got)
			}
			for _, g := range got {
				if !want[g] {
					t.Errorf("%s: unexpected error %q", tc.name, g)
				}
			}
			continue
		}
		expectErrors(t, tc.name, ValidateNode(tc.obj), tc.want)
	}
}

func TestValidateNodeUpdate(t *testing.T) {
	old := validNode()
	old.ResourceVersion = "1"
	old.Spec.PodCIDRs = []string{"10.244.0.0/24"}
	old.Spec.ProviderID = "provider://a"

	unschedulable := old.DeepCopy()
	unschedulable.Spec.Unschedulable = true
	unschedulable.Spec.Taints = []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}
	expectErrors(t, "unschedulable and taints may change", ValidateNodeUpdate(unschedulable, old), nil)

	changed := old.DeepCopy()
	changed.Spec.PodCIDRs = []string{"10.245.0.0/24"}
	changed.Spec.ProviderID = "provider://b"
	changed.Spec.DoNotUseExternalID = "x"
	changed.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.1"}, {Type: v1.NodeInternalIP, Address: "10.0.0.1"}}
	want := []string{
		`status.addresses[1]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}`,
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		`spec.providerID: Invalid value: null: field cannot be modified once set`,
		`spec.externalID: Forbidden: may not be updated`,
	}
	expectErrors(t, "status update", ValidateNodeStatusUpdate(changed, old), want)
	// The main resource's update also runs ValidateNode on the new object first.
	renamed := changed.DeepCopy()
	renamed.Name = "Bad_Name"
	got := errStrings(ValidateNodeUpdate(renamed, old))
	if len(got) != 6 || got[0][:len("metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain")] != "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain" ||
		got[1] != `metadata.name: Invalid value: "Bad_Name": field is immutable` {
		t.Errorf("update errors: %q", got)
	}

	cleared := old.DeepCopy()
	cleared.Spec.ProviderID = ""
	cleared.Spec.ConfigSource = &v1.NodeConfigSource{}
	expectErrors(t, "clear provider id and bad config source", ValidateNodeStatusUpdate(cleared, old), []string{
		`spec.providerID: Invalid value: null: field cannot be cleared once set`,
		`spec.configSource: Invalid value: {"ConfigMap":null}: exactly one reference subfield must be non-nil`,
	})
	_ = metav1.Now
}
