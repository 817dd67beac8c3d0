package core

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestConfigMap(t *testing.T) {
	cm := func(doc string) *corev1.ConfigMap {
		c := &corev1.ConfigMap{}
		validationtest.Decode(t, c, `{metadata: {name: cm, namespace: ns, resourceVersion: "1"}, `+doc+`}`)
		return c
	}
	validationtest.Expect(t, "valid", ValidateConfigMap(cm(`data: {a.txt: x}, binaryData: {b: eA==}`)))
	validationtest.Expect(t, "keys", ValidateConfigMap(cm(`data: {a: x, "bad key": "y"}, binaryData: {a: eA==, "b/c": eA==}`)),
		`data[a]: Invalid value: "a": duplicate of key present in binaryData`,
		`data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
		`binaryData[b/c]: Invalid value: "b/c": a valid config key must consist of alphanumeric characters`)
	big := cm(`data: {a: x}`)
	big.Data["a"] = strings.Repeat("x", corev1.MaxSecretSize+1)
	validationtest.Expect(t, "too big", ValidateConfigMap(big), "[]: Too long: may not be more than 1048576 bytes")

	frozen := cm(`data: {a: x}, immutable: true`)
	validationtest.Expect(t, "immutable, unchanged", ValidateConfigMapUpdate(frozen.DeepCopy(), frozen))
	thawed := cm(`data: {a: y}, binaryData: {b: eA==}, immutable: false`)
	validationtest.Expect(t, "immutable, changed", ValidateConfigMapUpdate(thawed, frozen),
		"immutable: Forbidden: field is immutable when `immutable` is set",
		"data: Forbidden: field is immutable when `immutable` is set",
		"binaryData: Forbidden: field is immutable when `immutable` is set")
	validationtest.Expect(t, "mutable", ValidateConfigMapUpdate(thawed, cm(`data: {a: x}`)))
}

func TestSecret(t *testing.T) {
	secret := func(typ corev1.SecretType, data ...string) *corev1.Secret {
		s := &corev1.Secret{}
		validationtest.Decode(t, s, `{metadata: {name: s, namespace: ns, resourceVersion: "1"}}`)
		s.Type = typ
		for i := 0; i+1 < len(data); i += 2 {
			if s.Data == nil {
				s.Data = map[string][]byte{}
			}
			s.Data[data[i]] = []byte(data[i+1])
		}
		return s
	}
	for _, tc := range []struct {
		name string
		s    *corev1.Secret
		want []string
	}{
		{"opaque", secret(corev1.SecretTypeOpaque, "a", "b"), nil},
		{"a type of one's own", secret("example.com/mine"), nil},
		{"bad key", secret(corev1.SecretTypeOpaque, "a b", "x"), []string{`data[a b]: Invalid value: "a b": a valid config key`}},
		{"service account token", secret(corev1.SecretTypeServiceAccountToken),
			[]string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
		{"dockercfg", secret(corev1.SecretTypeDockercfg), []string{"data[.dockercfg]: Required value"}},
		{"dockerconfigjson", secret(corev1.SecretTypeDockerConfigJson, ".dockerconfigjson", "not json"),
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`}},
		{"basic auth", secret(corev1.SecretTypeBasicAuth), []string{"data[username]: Required value", "data[password]: Required value"}},
		{"basic auth, password only", secret(corev1.SecretTypeBasicAuth, "password", ""), nil},
		{"ssh", secret(corev1.SecretTypeSSHAuth, "ssh-privatekey", ""), []string{"data[ssh-privatekey]: Required value"}},
		{"tls", secret(corev1.SecretTypeTLS, "tls.crt", "x"), []string{"data[tls.key]: Required value"}},
	} {
		validationtest.Expect(t, tc.name, ValidateSecret(tc.s), tc.want...)
	}

	old := secret(corev1.SecretTypeOpaque, "a", "b")
	old.Immutable = ptr.To(true)
	changed := secret("Other", "a", "c")
	validationtest.Expect(t, "type and immutable data", ValidateSecretUpdate(changed, old),
		`type: Invalid value: "Other": field is immutable`,
		"immutable: Forbidden: field is immutable when `immutable` is set",
		"data: Forbidden: field is immutable when `immutable` is set")
}

func TestServiceAccount(t *testing.T) {
	sa := &corev1.ServiceAccount{}
	validationtest.Decode(t, sa, `metadata: {name: Robot, namespace: ns, finalizers: [mine]}`)
	validationtest.Expect(t, "invalid", ValidateServiceAccount(sa),
		`metadata.name: Invalid value: "Robot": a lowercase RFC 1123 subdomain`,
		`metadata.finalizers[0]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified`)
}
