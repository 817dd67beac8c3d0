package validation

// Test helpers: building defaulted objects the way kube-apiserver sees them
// (decoded, then defaulted by RegisterDefaults), and rendering field errors.

import (
	"strings"
	"testing"

	"github.com/apichain/apichain/servers/core/defaults"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

var testScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := defaults.RegisterDefaults(s); err != nil {
		panic(err)
	}
	return s
}()

// decodeDefaulted decodes YAML into obj and applies the registered defaults.
func decodeDefaulted(t *testing.T, in string, obj runtime.Object) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(in), obj); err != nil {
		t.Fatalf("decoding %q: %v", in, err)
	}
	testScheme.Default(obj)
}

// errStrings renders every error the way it appears in kube-apiserver's messages.
func errStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// expectErrors compares rendered errors, in order.
func expectErrors(t *testing.T, name string, errs field.ErrorList, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if diff := cmp.Diff(want, errStrings(errs)); diff != "" {
		t.Errorf("%s: unexpected errors (-want +got):\n%s", name, diff)
	}
}

// expectErrorPrefixes is like expectErrors but only requires each error to start with the given prefix
// (for messages that embed long regexes or diffs).
func expectErrorPrefixes(t *testing.T, name string, errs field.ErrorList, want []string) {
	t.Helper()
	got := errStrings(errs)
	if len(got) != len(want) {
		t.Errorf("%s: got %d errors, want %d:\n%s", name, len(got), len(want), strings.Join(got, "\n"))
		return
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%s: error %d = %q, want prefix %q", name, i, got[i], want[i])
		}
	}
}
