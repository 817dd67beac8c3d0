package version

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestKubernetesVersionFollowsTheLibraries(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s.io/apiserver v0\.(\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no k8s.io/apiserver")
	}
	if want := "v1." + string(m[1]); Kubernetes != want {
		t.Errorf("Kubernetes = %q, but go.mod has k8s.io/apiserver for %s", Kubernetes, want)
	}
	info := Effective().Info()
	if info.GitVersion != Kubernetes+"+apichain" || info.Major != "1" || !strings.HasPrefix(Kubernetes, "v1."+info.Minor+".") {
		t.Errorf("Info() = %+v", info)
	}
}
