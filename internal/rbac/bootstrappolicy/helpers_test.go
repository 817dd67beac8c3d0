package bootstrappolicy

import (
	"context"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

type attrs struct {
	verb, group, resource, subresource, namespace, name, nonResource string
}

func newUser(name string, groups ...string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: groups}
}

func allowed(t *testing.T, a authorizer.Authorizer, u user.Info, at attrs) bool {
	t.Helper()
	rec := authorizer.AttributesRecord{User: u, Verb: at.verb, APIGroup: at.group, Resource: at.resource,
		Subresource: at.subresource, Namespace: at.namespace, Name: at.name, ResourceRequest: at.nonResource == "", Path: at.nonResource}
	d, _, err := a.Authorize(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return d == authorizer.DecisionAllow
}
