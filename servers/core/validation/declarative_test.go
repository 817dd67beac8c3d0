package validation

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/apichain/apichain/servers/core/validation/declarative"
)

// withDeclarative is what a client gets from Core for obj (old is nil on create): errs, the
// handwritten errors, merged by k8s.io/apiserver with the generated declarative rules of obj's
// kind, as Core's strategies have it do.
func withDeclarative(t *testing.T, obj, old runtime.Object, errs field.ErrorList) field.ErrorList {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := declarative.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: gvks[0].Group, APIVersion: gvks[0].Version})
	op := operation.Create
	if old != nil {
		op = operation.Update
	}
	return rest.ValidateDeclarativelyWithMigrationChecks(ctx, scheme, obj, old, errs, op, rest.DeclarativeValidationConfig{Options: declarative.Options()})
}
