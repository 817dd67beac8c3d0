package validation

// Every object that the real kube-apiserver v1.37.2 accepted and returned
// (testdata/accepted/*.json, copied from /work/shared/reference/defaulted)
// must pass this package's validation, both on create and as a no-op update.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestAcceptedObjectsAreValid(t *testing.T) {
	type check struct {
		newObj func() runtime.Object
		create func(runtime.Object) field.ErrorList
		update func(newObj, oldObj runtime.Object) field.ErrorList
	}
	checks := map[string]check{
		"namespace.json": {func() runtime.Object { return &v1.Namespace{} },
			func(o runtime.Object) field.ErrorList { return ValidateNamespace(o.(*v1.Namespace)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateNamespaceUpdate(n.(*v1.Namespace), o.(*v1.Namespace))
			}},
		"configmap.json": {func() runtime.Object { return &v1.ConfigMap{} },
			func(o runtime.Object) field.ErrorList { return ValidateConfigMap(o.(*v1.ConfigMap)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateConfigMapUpdate(n.(*v1.ConfigMap), o.(*v1.ConfigMap))
			}},
		"secret.json": {func() runtime.Object { return &v1.Secret{} },
			func(o runtime.Object) field.ErrorList { return ValidateSecret(o.(*v1.Secret)) },
			func(n, o runtime.Object) field.ErrorList { return ValidateSecretUpdate(n.(*v1.Secret), o.(*v1.Secret)) }},
		"serviceaccount.json": {func() runtime.Object { return &v1.ServiceAccount{} },
			func(o runtime.Object) field.ErrorList { return ValidateServiceAccount(o.(*v1.ServiceAccount)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateServiceAccountUpdate(n.(*v1.ServiceAccount), o.(*v1.ServiceAccount))
			}},
		"event.json": {func() runtime.Object { return &v1.Event{} },
			func(o runtime.Object) field.ErrorList { return ValidateEvent(o.(*v1.Event)) },
			func(n, o runtime.Object) field.ErrorList { return ValidateEventUpdate(n.(*v1.Event), o.(*v1.Event)) }},
		"service.json": {func() runtime.Object { return &v1.Service{} },
			func(o runtime.Object) field.ErrorList { return ValidateService(o.(*v1.Service)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateServiceUpdate(n.(*v1.Service), o.(*v1.Service))
			}},
		"service-nodeport.json": {func() runtime.Object { return &v1.Service{} },
			func(o runtime.Object) field.ErrorList { return ValidateService(o.(*v1.Service)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateServiceUpdate(n.(*v1.Service), o.(*v1.Service))
			}},
		"endpointslice.json": {func() runtime.Object { return &discoveryv1.EndpointSlice{} },
			func(o runtime.Object) field.ErrorList { return ValidateEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateEndpointSliceUpdate(n.(*discoveryv1.EndpointSlice), o.(*discoveryv1.EndpointSlice))
			}},
		"lease.json": {func() runtime.Object { return &coordinationv1.Lease{} },
			func(o runtime.Object) field.ErrorList { return ValidateLease(o.(*coordinationv1.Lease)) },
			func(n, o runtime.Object) field.ErrorList {
				return ValidateLeaseUpdate(n.(*coordinationv1.Lease), o.(*coordinationv1.Lease))
			}},
		"node.json": {func() runtime.Object { return &v1.Node{} },
			func(o runtime.Object) field.ErrorList { return ValidateNode(o.(*v1.Node)) },
			func(n, o runtime.Object) field.ErrorList { return ValidateNodeUpdate(n.(*v1.Node), o.(*v1.Node)) }},
	}
	files, err := filepath.Glob("testdata/accepted/*.json")
	if err != nil || len(files) != len(checks) {
		t.Fatalf("expected %d files, got %v (%v)", len(checks), files, err)
	}
	for _, file := range files {
		c := checks[filepath.Base(file)]
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		obj := c.newObj()
		if err := json.Unmarshal(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		expectErrors(t, file+" create", c.create(obj), nil)
		obj.(interface{ SetResourceVersion(string) }).SetResourceVersion("1")
		expectErrors(t, file+" update", c.update(obj.DeepCopyObject(), obj), nil)
	}
}
