package validation

import (
	"strings"
	"testing"
)

// The checks below restate the DNS name rules (RFC 1123, RFC 1035) independently of
// k8s.io/apimachinery's regular expressions, so that the fuzz targets compare two readings.

func isLowerAlnum(c byte) bool { return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') }

// isDNSLabel: 1 to 63 of [a-z0-9-], starting and ending with [a-z0-9] (RFC 1123 label).
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// isDNS1035Label: an RFC 1123 label that starts with a letter.
func isDNS1035Label(s string) bool { return isDNSLabel(s) && 'a' <= s[0] && s[0] <= 'z' }

// isDNSSubdomain: at most 253 characters of dot-separated RFC 1123 labels (each label may
// exceed 63 characters here: Kubernetes checks the total length only).
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if len(l) == 0 || !isLowerAlnum(l[0]) || !isLowerAlnum(l[len(l)-1]) {
			return false
		}
		for i := 0; i < len(l); i++ {
			if !isLowerAlnum(l[i]) && l[i] != '-' {
				return false
			}
		}
	}
	return true
}

// FuzzValidateNames: each name validator accepts a name exactly when the independent reading
// of its rule does, and always says why when it refuses.
func FuzzValidateNames(f *testing.F) {
	for _, s := range []string{"a", "web-1", "Bad_Name", "-a", "a-", "a.b", "a..b", ".a", "1abc", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254), "..", "../x", "a/b", "a%2Fb", "ü", "a\x00b", ""} {
		f.Add(s)
	}
	validators := []struct {
		name   string
		fn     func(string, bool) []string
		accept func(string) bool
	}{
		{"configmap", ValidateConfigMapName, isDNSSubdomain},
		{"secret", ValidateSecretName, isDNSSubdomain},
		{"node", ValidateNodeName, isDNSSubdomain},
		{"service", ValidateServiceName, isDNS1035Label},
		{"namespace", ValidateNamespaceName, isDNSLabel},
		{"serviceaccount", ValidateServiceAccountName, isDNSSubdomain},
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, v := range validators {
			errs := v.fn(name, false)
			if got, want := len(errs) == 0, v.accept(name); got != want {
				t.Errorf("%s name %q: accepted=%v, want %v (%v)", v.name, name, got, want, errs)
			}
			for _, msg := range errs {
				if strings.TrimSpace(msg) == "" {
					t.Errorf("%s name %q: an empty message", v.name, name)
				}
			}
		}
	})
}
