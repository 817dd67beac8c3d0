package flowcontrol_test

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/test/testchain"
)

// TestWhoMayReadAndChange: kube-apiserver's bootstrap policy names FlowSchemas and
// PriorityLevelConfigurations nowhere; they are reached only through wildcard rules:
// cluster-admin's (system:masters) for everything, kube-controller-manager's list and watch of
// every resource, and the wildcard roles of a few of its controllers (the garbage collector
// deletes and updates, the namespace controller deletes, the quota controller lists). Nobody
// else, not a ServiceAccount, not the scheduler, not a kubelet, may even read them. The chain's
// policy is kube-apiserver's, so its answers are the same.
func TestWhoMayReadAndChange(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	controller := func(name string) (string, []string) {
		return "system:serviceaccount:kube-system:" + name, []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}
	}
	gc, gcGroups := controller("generic-garbage-collector")
	nsc, nscGroups := controller("namespace-controller")
	tests := []struct {
		user     string
		groups   []string
		verb     string
		resource string
		allowed  bool
	}{
		{"admin", []string{"system:masters"}, "create", "flowschemas", true},
		{"admin", []string{"system:masters"}, "delete", "prioritylevelconfigurations", true},
		{"system:kube-controller-manager", nil, "list", "flowschemas", true},
		{"system:kube-controller-manager", nil, "watch", "prioritylevelconfigurations", true},
		{"system:kube-controller-manager", nil, "update", "flowschemas", false},
		{gc, gcGroups, "delete", "flowschemas", true},
		{gc, gcGroups, "create", "flowschemas", false},
		{nsc, nscGroups, "delete", "prioritylevelconfigurations", true},
		{"system:kube-scheduler", nil, "list", "flowschemas", false},
		{"system:node:n1", []string{"system:nodes"}, "get", "flowschemas", false},
		{"system:serviceaccount:default:default", []string{"system:serviceaccounts", "system:serviceaccounts:default"}, "list", "flowschemas", false},
		{"alice", nil, "get", "prioritylevelconfigurations", false},
	}
	for _, tt := range tests {
		review, err := cs.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: tt.user, Groups: append(tt.groups, "system:authenticated"),
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tt.verb, Group: "flowcontrol.apiserver.k8s.io", Resource: tt.resource}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != tt.allowed {
			t.Errorf("%s %v may %s %s: %v (%s), want %v", tt.user, tt.groups, tt.verb, tt.resource, review.Status.Allowed, review.Status.Reason, tt.allowed)
		}
	}
}
