package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// pod is a valid, defaulted pod with one container, changed by edit.
func pod(t *testing.T, edit func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{}
	validationtest.Decode(t, p, `
metadata: {name: p, namespace: ns}
spec:
  serviceAccountName: default
  containers:
  - name: c
    image: nginx:1.27
    ports: [{name: http, containerPort: 80}]
    resources: {requests: {cpu: 100m}}`)
	if edit != nil {
		edit(p)
		validationtest.Scheme.Default(p)
	}
	return p
}
