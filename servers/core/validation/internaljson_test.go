package validation

// Tests for internalJSON, which renders v1 values as kube-apiserver prints its untagged
// internal types.

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestInternalJSON(t *testing.T) {
	cases := []struct {
		in   interface{}
		want string
	}{
		{v1.ServicePort{Protocol: v1.ProtocolTCP, Port: 80}, `{"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`},
		{v1.ServicePort{TargetPort: intstr.FromString("http")}, `{"Name":"","Protocol":"","AppProtocol":null,"Port":0,"TargetPort":"http","NodePort":0}`},
		{[]v1.PodIP{{IP: "1.1.1.1"}}, `[{"IP":"1.1.1.1"}]`},
		{v1.Taint{Key: "k", TimeAdded: &metav1.Time{}}, `{"Key":"k","Value":"","Effect":"","TimeAdded":null}`},
		{map[v1.ResourceName]resource.Quantity{"cpu": resource.MustParse("1")}, `{"cpu":"1"}`},
		{(*v1.SeccompProfile)(nil), `null`},
		{v1.EphemeralContainer{TargetContainerName: "t"}, ""}, // embedded struct fields are flattened
		// apimachinery's types keep their tags, an embedded ObjectMeta is inlined.
		{v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: v1.PodSpec{RestartPolicy: "Never"}},
			`{"labels":{"a":"b"},"Spec":{"Volumes":null`},
		{struct{ Selector *metav1.LabelSelector }{&metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}, `{"Selector":{"matchLabels":{"a":"b"}}}`},
	}
	for _, tc := range cases {
		data, err := json.Marshal(internal(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			var m map[string]interface{}
			if err := json.Unmarshal(data, &m); err != nil || m["TargetContainerName"] != "t" || m["Name"] != "" {
				t.Errorf("embedded struct not flattened: %s", data)
			}
			continue
		}
		if string(data) != tc.want && !(strings.HasSuffix(tc.want, "null") && strings.HasPrefix(string(data), tc.want)) {
			t.Errorf("internal(%T) = %s, want %s", tc.in, data, tc.want)
		}
	}
	err := field.Invalid(field.NewPath("x"), internal(v1.LocalObjectReference{Name: "a"}), "msg")
	if got, want := err.Error(), `x: Invalid value: {"Name":"a"}: msg`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
