package auth_test

import (
	"context"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/test/testchain"
)

func TestSelfSubjectReview(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := r.Status.UserInfo
	if u.Username != "admin" || len(u.Groups) != 2 || u.Groups[0] != "system:masters" || u.Groups[1] != "system:authenticated" {
		t.Errorf("admin is %+v", u)
	}
}

func TestTokenReview(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	r, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "not-a-token"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status.Authenticated || r.Status.Error == "" {
		t.Errorf("an unknown token: %+v", r.Status)
	}
	_, err = cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{}, metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("TokenReview without a token: %v, want BadRequest", err)
	}
}

func TestAccessReviews(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	listPods := &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", Namespace: "default"}
	for _, tc := range []struct {
		user    string
		groups  []string
		attrs   *authorizationv1.ResourceAttributes
		nonRes  *authorizationv1.NonResourceAttributes
		allowed bool
	}{
		{"admin", []string{"system:masters"}, listPods, nil, true},
		{"bob", []string{"devs"}, listPods, nil, false},
		{"system:anonymous", []string{"system:unauthenticated"}, nil, &authorizationv1.NonResourceAttributes{Path: "/readyz", Verb: "get"}, true},
		{"system:anonymous", []string{"system:unauthenticated"}, nil, &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}, false},
	} {
		sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: tc.user, Groups: tc.groups, ResourceAttributes: tc.attrs, NonResourceAttributes: tc.nonRes}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != tc.allowed {
			t.Errorf("SubjectAccessReview for %s %v: %+v", tc.user, tc.groups, sar.Status)
		}
	}
	// Invalid: neither kind of attributes, and no user.
	_, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{}, metav1.CreateOptions{})
	want := `SubjectAccessReview.authorization.k8s.io "" is invalid: [spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("empty SubjectAccessReview:\n got  %v\n want %s", err, want)
	}

	// Self reviews: what kubectl auth can-i sends.
	for _, tc := range []struct {
		cfg     *rest.Config
		allowed bool
	}{{shared.Admin, true}, {testchain.UserConfig(t, shared, "bob", "devs"), false}} {
		ssar, err := kubernetes.NewForConfigOrDie(tc.cfg).AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: listPods}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ssar.Status.Allowed != tc.allowed {
			t.Errorf("SelfSubjectAccessReview (allowed=%v expected): %+v", tc.allowed, ssar.Status)
		}
	}

	lsar := &authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "default"},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "admin", Groups: []string{"system:masters"}, ResourceAttributes: listPods}}
	got, err := cs.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx, lsar, metav1.CreateOptions{})
	if err != nil || !got.Status.Allowed {
		t.Errorf("LocalSubjectAccessReview: %v %+v", err, got)
	}
	lsar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", Namespace: "kube-system"}
	if _, err := cs.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx, lsar, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("LocalSubjectAccessReview for another namespace: %v, want Invalid", err)
	}
}
