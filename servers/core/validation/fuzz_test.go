package validation

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
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
		{"pod", ValidatePodName, isDNSSubdomain},
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

// FuzzValidatePod decodes any JSON as a Pod, defaults it as the API does before validation,
// and validates it. Properties: no panic, and a Pod that validation accepts has a valid name
// (or a generateName), at least one container, unique DNS-label container names and an image for
// each container.
func FuzzValidatePod(f *testing.F) {
	seed, err := json.Marshal(validPod())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add(`{"metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	f.Add(`{"metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x"},{"name":"c","image":"y"}]}}`)
	f.Add(`{"metadata":{"name":"p","namespace":"default"},"spec":{"initContainers":[{"name":"i","image":"x","restartPolicy":"Always"}],"containers":[{"name":"c","image":"x"}]}}`)
	f.Add(`{"metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"-1"}},"ports":[{"containerPort":0}]}],"volumes":[{"name":"v"}]}}`)
	f.Add(`{"metadata":{"generateName":"p-","namespace":"default","annotations":{"container.apparmor.security.beta.kubernetes.io/c":"x"}},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"seccompProfile":{"type":"Localhost"}}}]}}`)
	f.Add(`{"spec":{"containers":[]}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		pod := &v1.Pod{}
		if err := json.Unmarshal([]byte(doc), pod); err != nil {
			return
		}
		testScheme.Default(pod)
		if len(ValidatePod(pod)) != 0 {
			return
		}
		if pod.Name == "" && pod.GenerateName == "" || pod.Name != "" && !isDNSSubdomain(pod.Name) {
			t.Errorf("accepted a pod named %q (generateName %q)", pod.Name, pod.GenerateName)
		}
		if len(pod.Spec.Containers) == 0 {
			t.Errorf("accepted a pod without containers")
		}
		seen := map[string]bool{}
		for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			if !isDNSLabel(c.Name) || seen[c.Name] {
				t.Errorf("accepted container name %q (duplicate: %v)", c.Name, seen[c.Name])
			}
			seen[c.Name] = true
			if c.Image == "" {
				t.Errorf("accepted container %q without an image", c.Name)
			}
		}
	})
}
