package authorization

import (
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

const listPods = `{spec: {resourceAttributes: {verb: list, resource: pods, namespace: ns}}}`

func TestSubjectAccessReview(t *testing.T) {
	for _, tc := range []struct {
		name string
		docs []string
		want []string
	}{
		{"user", []string{listPods, `{spec: {user: alice}}`}, nil},
		{"group only", []string{listPods, `{spec: {groups: [devs]}}`}, nil},
		{"non-resource URL", []string{`{spec: {user: alice, nonResourceAttributes: {path: /healthz, verb: get}}}`}, nil},
		{"nothing asked", []string{`{}`}, []string{
			"spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified",
			`spec.user: Invalid value: "": at least one of user or group must be specified`}},
		{"two things asked", []string{listPods, `{spec: {user: alice, nonResourceAttributes: {path: /healthz, verb: get}}}`}, []string{
			`spec: Invalid value: {"Path":"/healthz","Verb":"get"}: exactly one of nonResourceAttributes or resourceAttributes must be specified`}},
		{"metadata", []string{listPods, `{metadata: {name: q}, spec: {user: alice}}`}, []string{
			`metadata: Invalid value: {"name":"q"}: must be empty`}},
		{"selector raw and requirements", []string{listPods, `{spec: {user: alice, resourceAttributes: {fieldSelector: {rawSelector: a=b, requirements: [{key: a, operator: In, values: [b]}]}}}}`}, []string{
			`spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements`}},
		{"selector empty", []string{listPods, `{spec: {user: alice, resourceAttributes: {labelSelector: {}}}}`}, []string{
			"spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required"}},
		{"selector requirement", []string{listPods, `{spec: {user: alice, resourceAttributes: {labelSelector: {requirements: [{key: "a b", operator: Exists}]}}}}`}, []string{
			`spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "a b": name part must consist of alphanumeric characters`}},
		{"unknown operator is the authorizer's business", []string{listPods, `{spec: {user: alice, resourceAttributes: {labelSelector: {requirements: [{key: a, operator: Near}]}}}}`}, nil},
	} {
		sar := &authorizationv1.SubjectAccessReview{}
		vt.Decode(t, sar, tc.docs...)
		vt.Expect(t, tc.name, ValidateSubjectAccessReview(sar), tc.want...)
	}
}

func TestSelfSubjectAccessReview(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"valid", listPods, nil},
		{"nothing asked", `{}`, []string{"spec: Invalid value: null: exactly one of"}},
		{"metadata", `{metadata: {labels: {a: b}}, spec: {nonResourceAttributes: {path: /, verb: get}}}`, []string{
			`metadata: Invalid value: {"labels":{"a":"b"}}: must be empty`}},
	} {
		sar := &authorizationv1.SelfSubjectAccessReview{}
		vt.Decode(t, sar, tc.doc)
		vt.Expect(t, tc.name, ValidateSelfSubjectAccessReview(sar), tc.want...)
	}
}

func TestLocalSubjectAccessReview(t *testing.T) {
	const local = `{metadata: {namespace: ns}, spec: {user: alice}}`
	for _, tc := range []struct {
		name string
		docs []string
		want []string
	}{
		{"valid", []string{listPods, local}, nil},
		{"other namespace", []string{listPods, local, `{spec: {resourceAttributes: {namespace: other}}}`}, []string{
			`spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`}},
		{"name", []string{listPods, local, `{metadata: {name: q}}`}, []string{
			`metadata: Invalid value: {"name":"q"}: must be empty except for namespace`}},
		{"non-resource URL", []string{local, `{spec: {nonResourceAttributes: {path: /, verb: get}}}`}, []string{
			`spec.nonResourceAttributes: Invalid value: {"Path":"/","Verb":"get"}: disallowed on this kind of request`}},
	} {
		sar := &authorizationv1.LocalSubjectAccessReview{}
		vt.Decode(t, sar, tc.docs...)
		vt.Expect(t, tc.name, ValidateLocalSubjectAccessReview(sar), tc.want...)
	}
}
