package validation

// Table tests for ReplicationController validation. Cases and messages follow
// kubernetes v1.37.2 pkg/apis/core/validation/validation_test.go (TestValidateReplicationController*),
// with the enforced declarative rules of core/v1.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func rcWith(t *testing.T, mutate func(*v1.ReplicationController)) *v1.ReplicationController {
	rc := &v1.ReplicationController{}
	decodeDefaulted(t, `
metadata: {name: rc, namespace: default, resourceVersion: "1"}
spec:
  selector: {app: a}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: nginx}]}`, rc)
	if mutate != nil {
		mutate(rc)
	}
	return rc
}

func TestValidateReplicationController(t *testing.T) {
	cases := []struct {
		name string
		obj  *v1.ReplicationController
		want []string
	}{
		{"valid", rcWith(t, nil), nil},
		{"empty selector", rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.Selector = nil }), []string{"spec.selector: Required value"}},
		{"selector mismatch", rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "b"} }),
			[]string{"spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`"}},
		{"no template", rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.Template = nil }), []string{"spec.template: Required value"}},
		{"restart policy", rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever }),
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"no replicas", rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.Replicas = nil }), []string{"spec.replicas: Required value"}},
		// declarative (+k8s:beta) errors come last, in the order of the generated validation
		{"negative replicas", rcWith(t, func(rc *v1.ReplicationController) {
			rc.Spec.Replicas = ptr.To[int32](-1)
			rc.Spec.MinReadySeconds = -1
			rc.Spec.Selector = nil
		}), []string{
			"spec.selector: Required value",
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"name", rcWith(t, func(rc *v1.ReplicationController) { rc.Name = "RC" }),
			[]string{`metadata.name: Invalid value: "RC": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"ephemeral containers", rcWith(t, func(rc *v1.ReplicationController) {
			rc.Spec.Template.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent, TerminationMessagePolicy: v1.TerminationMessageReadFile}}}
		}), []string{"spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, withDeclarative(t, tc.obj, nil, ValidateReplicationController(tc.obj)), tc.want)
	}
	// An unchanged invalid minReadySeconds is not checked declaratively again on update
	// (ratcheting), so the handwritten error it covers stays.
	old := rcWith(t, func(rc *v1.ReplicationController) { rc.Spec.MinReadySeconds = -1 })
	expectErrors(t, "ratcheting", withDeclarative(t, old.DeepCopy(), old, ValidateReplicationControllerUpdate(old.DeepCopy(), old)), []string{"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"})
	expectErrors(t, "status", ValidateReplicationControllerStatusUpdate(rcWith(t, func(rc *v1.ReplicationController) {
		rc.Status = v1.ReplicationControllerStatus{Replicas: 1, ReadyReplicas: 2}
	}), rcWith(t, nil)), []string{"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"})
}
