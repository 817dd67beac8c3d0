package coretest

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/test/testchain"
)

// CanI asks, as cfg's user, whether it may do attrs (a SelfSubjectAccessReview).
func CanI(t testing.TB, cfg *rest.Config, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	r, err := kubernetes.NewForConfigOrDie(cfg).AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
		&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status.Allowed
}

// WaitAllowed waits until the authorizer has seen a grant: the authorizer reads Roles and
// bindings from the shared informers, so a grant is not in force the moment it is written.
func WaitAllowed(t testing.TB, cfg *rest.Config, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	testchain.WaitFor(t, func() bool { return CanI(t, cfg, attrs) })
}
