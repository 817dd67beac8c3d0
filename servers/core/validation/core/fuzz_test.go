package core

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// word: lower-case letters, digits and '-', starting and ending with a letter or digit.
func word(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// label reads RFC 1123's label rule directly: a word of at most 63 characters.
func label(s string) bool { return len(s) <= 63 && word(s) }

// subdomain: words joined by dots, at most 253 characters in all (Kubernetes does not hold
// each part to 63).
func subdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !word(part) {
			return false
		}
	}
	return true
}

// FuzzNames: each kind accepts a name exactly when the direct reading of its rule does
// (Namespaces and Services: a DNS label, they become DNS names; the others: a subdomain), and
// says why when it refuses.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a", "web-1", "Bad_Name", "-a", "a-", "a.b", "a..b", ".a", "1abc", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254), "..", "a/b", "ü", "a\x00b", ""} {
		f.Add(s)
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "ns"} }
	kinds := []struct {
		name     string
		validate func(string) field.ErrorList
		accept   func(string) bool
	}{
		{"ConfigMap", func(n string) field.ErrorList { return ValidateConfigMap(&corev1.ConfigMap{ObjectMeta: meta(n)}) }, subdomain},
		{"Secret", func(n string) field.ErrorList { return ValidateSecret(&corev1.Secret{ObjectMeta: meta(n)}) }, subdomain},
		{"ServiceAccount", func(n string) field.ErrorList {
			return ValidateServiceAccount(&corev1.ServiceAccount{ObjectMeta: meta(n)})
		}, subdomain},
		{"Node", func(n string) field.ErrorList {
			return ValidateNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}, subdomain},
		{"Namespace", func(n string) field.ErrorList {
			return ValidateNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}, label},
		{"Service", func(n string) field.ErrorList {
			return ValidateService(&corev1.Service{ObjectMeta: meta(n)})
		}, label},
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, k := range kinds {
			var nameErrs field.ErrorList
			for _, e := range k.validate(name) {
				if e.Field == "metadata.name" {
					nameErrs = append(nameErrs, e)
				}
			}
			if accepted, want := len(nameErrs) == 0, name != "" && k.accept(name); accepted != want {
				t.Errorf("%s name %q: accepted %v, want %v (%v)", k.name, name, accepted, want, nameErrs)
			}
			for _, e := range nameErrs {
				if strings.TrimSpace(e.Detail) == "" && e.Type != field.ErrorTypeRequired {
					t.Errorf("%s name %q: refused without saying why", k.name, name)
				}
			}
		}
	})
}
