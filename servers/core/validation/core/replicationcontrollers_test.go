package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// rc is a valid, defaulted ReplicationController, changed by edit.
func rc(t *testing.T, edit func(*corev1.ReplicationController)) *corev1.ReplicationController {
	c := &corev1.ReplicationController{}
	validationtest.Decode(t, c, `
metadata: {name: rc, namespace: ns, resourceVersion: "1"}
spec:
  replicas: 1
  selector: {app: a}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: "nginx:1.27"}]}`)
	if edit != nil {
		edit(c)
		validationtest.Scheme.Default(c)
	}
	return c
}

func TestReplicationController(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*corev1.ReplicationController)
		want []string
	}{
		{"valid", nil, nil},
		{"template", func(c *corev1.ReplicationController) {
			c.Spec.Template.Labels = map[string]string{"app": "b"}
			c.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			c.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
			c.Spec.Template.Spec.Containers[0].Image = ""
		}, []string{
			`spec.template.metadata.labels: Invalid value: {"app":"b"}: ` + "`selector` does not match template `labels`",
			"spec.template.spec.containers[0].image: Required value",
			`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`,
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported",
		}},
		{"no template", func(c *corev1.ReplicationController) { c.Spec.Template = nil }, []string{"spec.template: Required value"}},
		// The name, replicas and minReadySeconds are the generated rules': their errors come last.
		{"generated rules", func(c *corev1.ReplicationController) {
			c.Name = "Bad_Name"
			c.Spec.Replicas, c.Spec.MinReadySeconds = ptr.To[int32](-1), -1
			c.Spec.Selector, c.Spec.Template.Labels = nil, nil // nothing to default the selector from
		}, []string{
			"spec.selector: Required value",
			`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`,
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
		}},
	} {
		c := rc(t, tc.edit)
		validationtest.Expect(t, tc.name, validationtest.Merged(t, c, nil, ValidateReplicationController(c)), tc.want...)
	}

	old := rc(t, nil)
	validationtest.Expect(t, "a new template", ValidateReplicationControllerUpdate(rc(t, func(c *corev1.ReplicationController) {
		c.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	}), old))

	status := old.DeepCopy()
	status.Status = corev1.ReplicationControllerStatus{Replicas: 1, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 2, ObservedGeneration: -1}
	validationtest.Expect(t, "status", ValidateReplicationControllerStatusUpdate(status, old),
		"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
		"status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas")
}
