package admission

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/request"
)

func TestNumericResourceVersion(t *testing.T) {
	cm := func(rv string) runtime.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", ResourceVersion: rv}}
	}
	cr := func(rv string) runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetName("w")
		u.SetResourceVersion(rv)
		return u
	}
	cases := []struct {
		name string
		obj  runtime.Object
		op   admission.Operation
		verb string // the request's verb, as RequestInfo has it
		// want is the error's message, "" for none.
		want string
	}{
		{"update, numeric", cm("42"), admission.Update, "update", ""},
		{"update, empty (unconditional update)", cm(""), admission.Update, "update", ""},
		{"update, zero", cm("0"), admission.Update, "update", ""},
		{"update, not a number", cm("abc"), admission.Update, "update",
			`ConfigMap "cm" is invalid: metadata.resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"update, negative", cm("-1"), admission.Update, "update",
			`ConfigMap "cm" is invalid: metadata.resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`},
		{"patch of a custom resource", cr("x1"), admission.Update, "patch",
			`Widget.example.com "w" is invalid: metadata.resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax`},
		// Storage ignores what it cannot parse on a POST, and kube-apiserver creates the object.
		{"create through POST", cm("abc"), admission.Create, "create", ""},
		// Store.Update parses it before it creates.
		{"create through PUT", cm("abc"), admission.Create, "update", `metadata.resourceVersion: Invalid value: "abc"`},
		{"create through apply", cm("abc"), admission.Create, "patch", `metadata.resourceVersion: Invalid value: "abc"`},
	}
	p := NewNumericResourceVersion()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gr, kind, name := corev1.Resource("configmaps"), "ConfigMap", "cm"
			if _, ok := tc.obj.(*unstructured.Unstructured); ok {
				gr, kind, name = schema.GroupResource{Group: "example.com", Resource: "widgets"}, "Widget", "w"
			}
			ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{IsResourceRequest: true, Verb: tc.verb})
			err := p.Admit(ctx, attrs(tc.obj, nil, gr, kind, "ns", name, "", tc.op, nil), nil)
			if got := errString(err); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if err != nil && !apierrors.IsInvalid(err) {
				t.Errorf("not an Invalid error: %v", err)
			}
		})
	}
}
