// Package version says which Kubernetes release the chain speaks. The chain is built from the
// k8s.io libraries of one release (v0.37.2 = Kubernetes v1.37.2) and serves that release's API,
// so /version reports it, marked "+apichain" (build metadata, ignored by version comparisons) so
// that nobody mistakes the chain for kube-apiserver itself.
package version

import (
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
)

// Kubernetes is the release of the k8s.io libraries in go.mod (k8s.io/apiserver v0.37.2 is
// Kubernetes v1.37.2); a test keeps the two in step.
const Kubernetes = "v1.37.2"

// Effective returns the effective version to put in every server's generic config: the
// library's, with /version reporting the Kubernetes release instead of "v0.0.0-master".
func Effective() basecompatibility.EffectiveVersion {
	return effective{compatibility.DefaultComponentGlobalsRegistry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent)}
}

type effective struct {
	basecompatibility.EffectiveVersion
}

func (e effective) Info() *apimachineryversion.Info {
	info := e.EffectiveVersion.Info()
	if info != nil {
		info.GitVersion = Kubernetes + "+apichain"
	}
	return info
}
