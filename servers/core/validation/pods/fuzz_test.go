package pods

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// FuzzPod validates any JSON that decodes as a Pod, defaulted as Core defaults it. It must not
// panic, and what it accepts must have the basics right: a valid name, containers, each with a
// unique DNS-label name and an image, and ports in range.
func FuzzPod(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80}]}]}}`,
		`{"metadata":{"name":"p"},"spec":{"initContainers":[{"name":"i","image":"x","restartPolicy":"Always"}],"containers":[{"name":"c","image":"x"}]}}`,
		`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"hugepages-2Mi":"1Mi"}}}],"volumes":[{"name":"v","projected":{"sources":[{}]}}]}}`,
		`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"a","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['x"}}}]}]}}`,
		`{"spec":{"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		p := &corev1.Pod{}
		if json.Unmarshal([]byte(doc), p) != nil {
			return
		}
		validationtest.Scheme.Default(p)
		if len(ValidatePod(p)) > 0 {
			return
		}
		if p.Name != "" && len(validation.IsDNS1123Subdomain(p.Name)) > 0 {
			t.Errorf("accepted the pod name %q", p.Name)
		}
		if len(p.Spec.Containers) == 0 {
			t.Error("accepted a pod without containers")
		}
		names := map[string]bool{}
		for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
			if names[c.Name] || len(validation.IsDNS1123Label(c.Name)) > 0 || c.Image == "" {
				t.Errorf("accepted the container %q with image %q", c.Name, c.Image)
			}
			names[c.Name] = true
			for _, port := range c.Ports {
				if port.ContainerPort < 1 || port.ContainerPort > 65535 {
					t.Errorf("accepted the container port %d", port.ContainerPort)
				}
			}
		}
	})
}
