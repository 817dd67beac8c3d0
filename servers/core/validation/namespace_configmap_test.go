package validation

// Table tests for Namespace, ConfigMap, Secret and ServiceAccount validation.
// Expected messages follow kubernetes v1.37.2 pkg/apis/core/validation
// (validation.go and validation_test.go: TestValidateNamespace*,
// TestValidateConfigMap*, TestValidateSecret*, TestValidateServiceAccount*).

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestValidateNamespace(t *testing.T) {
	ns := func(name string, finalizers ...v1.FinalizerName) *v1.Namespace {
		n := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"}, Spec: v1.NamespaceSpec{Finalizers: finalizers}}
		testScheme.Default(n)
		return n
	}
	withNamespace := ns("abc")
	withNamespace.Namespace = "other"
	cases := []struct {
		name string
		obj  *v1.Namespace
		want []string
	}{
		{"valid", ns("abc", "kubernetes", "example.com/fin"), nil},
		{"invalid name", ns("Bad_Name"), []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`}},
		{"namespace set", withNamespace, []string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"legacy finalizer name", ns("abc", "bad"), []string{"spec.finalizers: Invalid value: \"bad\": name is neither a standard finalizer name nor is it fully qualified"}},
		{"missing name", ns(""), []string{`metadata.name: Required value: name or generateName is required`}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateNamespace(tc.obj), tc.want)
	}

	old := ns("abc")
	renamed := ns("abd")
	expectErrors(t, "rename", ValidateNamespaceUpdate(renamed, old), []string{`metadata.name: Invalid value: "abd": field is immutable`})
	expectErrors(t, "label update", ValidateNamespaceUpdate(func() *v1.Namespace { n := old.DeepCopy(); n.Labels["x"] = "y"; return n }(), old), nil)

	terminating := old.DeepCopy()
	terminating.Status.Phase = v1.NamespaceTerminating
	expectErrors(t, "status terminating without deletion", ValidateNamespaceStatusUpdate(terminating, old),
		[]string{"status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"})
	deleting := old.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	expectErrors(t, "status active while deleting", ValidateNamespaceStatusUpdate(deleting, deleting.DeepCopy()),
		[]string{"status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"})

	finalize := old.DeepCopy()
	finalize.Spec.Finalizers = []v1.FinalizerName{"kubernetes", "Bad Finalizer"}
	expectErrorPrefixes(t, "finalize", ValidateNamespaceFinalizeUpdate(finalize, old), []string{
		`spec.finalizers[1]: Invalid value: "Bad Finalizer": name part must consist of alphanumeric characters`,
		`spec.finalizers[1]: Invalid value: "Bad Finalizer": name is neither a standard finalizer name nor is it fully qualified`,
	})
}

func TestValidateConfigMap(t *testing.T) {
	cm := func(mutate func(*v1.ConfigMap)) *v1.ConfigMap {
		c := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default", ResourceVersion: "1"}, Data: map[string]string{"a": "b"}}
		if mutate != nil {
			mutate(c)
		}
		testScheme.Default(c)
		return c
	}
	cases := []struct {
		name string
		obj  *v1.ConfigMap
		want []string
	}{
		{"valid", cm(nil), nil},
		{"valid dotted keys", cm(func(c *v1.ConfigMap) { c.Data = map[string]string{".dot": "x", "a-b_c.d": "y"} }), nil},
		{"bad key", cm(func(c *v1.ConfigMap) { c.Data = map[string]string{"a b": "x"} }), []string{`data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`}},
		{"duplicate key in binaryData", cm(func(c *v1.ConfigMap) { c.BinaryData = map[string][]byte{"a": []byte("x")} }), []string{`data[a]: Invalid value: "a": duplicate of key present in binaryData`}},
		{"missing namespace", cm(func(c *v1.ConfigMap) { c.Namespace = "" }), []string{`metadata.namespace: Required value`}},
		{"too large", cm(func(c *v1.ConfigMap) { c.Data = map[string]string{"a": strings.Repeat("x", v1.MaxSecretSize+1)} }), []string{`[]: Too long: may not be more than 1048576 bytes`}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateConfigMap(tc.obj), tc.want)
	}

	immutable := cm(func(c *v1.ConfigMap) { c.Immutable = ptr.To(true) })
	changed := immutable.DeepCopy()
	changed.Data["a"] = "changed"
	changed.Immutable = ptr.To(false)
	expectErrors(t, "immutable configmap", ValidateConfigMapUpdate(changed, immutable), []string{
		"immutable: Forbidden: field is immutable when `immutable` is set",
		"data: Forbidden: field is immutable when `immutable` is set",
	})
	binary := immutable.DeepCopy()
	binary.BinaryData = map[string][]byte{"b": {1}}
	expectErrors(t, "immutable configmap binaryData", ValidateConfigMapUpdate(binary, immutable), []string{
		"binaryData: Forbidden: field is immutable when `immutable` is set",
	})
	mutable := cm(nil)
	expectErrors(t, "mutable configmap", ValidateConfigMapUpdate(changed, mutable), nil)
}

func TestValidateSecret(t *testing.T) {
	secret := func(typ v1.SecretType, data map[string][]byte, mutate func(*v1.Secret)) *v1.Secret {
		s := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default", ResourceVersion: "1"}, Type: typ, Data: data}
		if mutate != nil {
			mutate(s)
		}
		testScheme.Default(s)
		return s
	}
	cases := []struct {
		name string
		obj  *v1.Secret
		want []string
	}{
		{"valid opaque", secret("", map[string][]byte{"a": []byte("b")}, nil), nil},
		{"bad key", secret("", map[string][]byte{"a/b": nil}, nil), []string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters`}},
		{"too large", secret("", map[string][]byte{"a": make([]byte, v1.MaxSecretSize+1)}, nil), []string{`data: Too long: may not be more than 1048576 bytes`}},
		{"sa token without annotation", secret(v1.SecretTypeServiceAccountToken, nil, nil), []string{`metadata.annotations[kubernetes.io/service-account.name]: Required value`}},
		{"sa token", secret(v1.SecretTypeServiceAccountToken, nil, func(s *v1.Secret) {
			s.Annotations = map[string]string{v1.ServiceAccountNameKey: "default"}
		}), nil},
		{"dockercfg missing", secret(v1.SecretTypeDockercfg, nil, nil), []string{`data[.dockercfg]: Required value`}},
		{"dockercfg bad json", secret(v1.SecretTypeDockercfg, map[string][]byte{".dockercfg": []byte("{")}, nil), []string{`data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`}},
		{"dockerconfigjson missing", secret(v1.SecretTypeDockerConfigJson, nil, nil), []string{`data[.dockerconfigjson]: Required value`}},
		{"basic auth missing both", secret(v1.SecretTypeBasicAuth, nil, nil), []string{`data[username]: Required value`, `data[password]: Required value`}},
		{"basic auth username only", secret(v1.SecretTypeBasicAuth, map[string][]byte{"username": nil}, nil), nil},
		{"ssh auth", secret(v1.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": nil}, nil), []string{`data[ssh-privatekey]: Required value`}},
		{"tls", secret(v1.SecretTypeTLS, map[string][]byte{"tls.crt": nil}, nil), []string{`data[tls.key]: Required value`}},
		{"unknown type", secret("example.com/custom", nil, nil), nil},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateSecret(tc.obj), tc.want)
	}

	old := secret("", map[string][]byte{"a": []byte("b")}, func(s *v1.Secret) { s.Immutable = ptr.To(true) })
	newer := old.DeepCopy()
	newer.Type = v1.SecretTypeTLS
	newer.Data["tls.crt"] = nil
	newer.Data["tls.key"] = nil
	expectErrors(t, "secret update", ValidateSecretUpdate(newer, old), []string{
		`type: Invalid value: "kubernetes.io/tls": field is immutable`,
		"data: Forbidden: field is immutable when `immutable` is set",
	})
}

func TestValidateServiceAccount(t *testing.T) {
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Namespace: "default", ResourceVersion: "1"}}
	expectErrors(t, "valid", ValidateServiceAccount(sa), nil)
	bad := sa.DeepCopy()
	bad.Name = "Bad_Name"
	expectErrorPrefixes(t, "bad name", ValidateServiceAccount(bad), []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of`})
	renamed := sa.DeepCopy()
	renamed.Name = "sb"
	expectErrors(t, "rename", ValidateServiceAccountUpdate(renamed, sa), []string{`metadata.name: Invalid value: "sb": field is immutable`})
}
