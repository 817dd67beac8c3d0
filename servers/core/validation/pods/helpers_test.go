package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/servers/core/defaults"
)

// reference is the repository's copy of kube-apiserver's observed behaviour.
const reference = "../../../chain/testdata/reference/"

// scheme defaults objects as Core does before it validates them.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := defaults.RegisterDefaults(s); err != nil {
		panic(err)
	}
	return s
}()

// decode reads YAML (or JSON) into obj and defaults it.
func decode(t *testing.T, in string, obj runtime.Object) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(in), obj); err != nil {
		t.Fatalf("decoding %q: %v", in, err)
	}
	scheme.Default(obj)
}

// pod is a valid, defaulted pod with one container, changed by edit.
func pod(t *testing.T, edit func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{}
	decode(t, `
metadata: {name: p, namespace: ns}
spec:
  serviceAccountName: default
  containers:
  - name: c
    image: nginx:1.27
    ports: [{name: http, containerPort: 80}]
    resources: {requests: {cpu: 100m}}`, p)
	if edit != nil {
		edit(p)
		scheme.Default(p)
	}
	return p
}
