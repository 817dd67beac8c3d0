// Package version says which Kubernetes release the chain speaks. The chain is built from the
// k8s.io libraries of one release (v0.37.2 = Kubernetes v1.37.2) and serves that release's API,
// so /version reports it, marked "+apichain" (build metadata, ignored by version comparisons) so
// that nobody mistakes the chain for kube-apiserver itself.
package version

import (
	"runtime/debug"
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
)

// Kubernetes returns the Kubernetes version of the k8s.io/apiserver library the binary is built
// with ("v1.37.2"), or "" if the build has no module information.
func Kubernetes() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/apiserver" && strings.HasPrefix(dep.Version, "v0.") {
			return "v1." + strings.TrimPrefix(dep.Version, "v0.")
		}
	}
	return ""
}

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
	if info == nil {
		return nil
	}
	if v := Kubernetes(); v != "" {
		info.GitVersion = v + "+apichain"
	}
	return info
}
