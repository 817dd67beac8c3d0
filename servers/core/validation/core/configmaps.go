package core

import (
	"encoding/json"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var metadata = field.NewPath("metadata")

// ValidateConfigMap is the rule list of a ConfigMap being created.
func ValidateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	data, binary := field.NewPath("data"), field.NewPath("binaryData")
	var errs field.ErrorList
	size := 0
	for _, key := range sortedKeys(cm.Data) {
		errs = append(errs, configKey(data.Key(key), key)...)
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(data.Key(key), key, "duplicate of key present in binaryData"))
		}
		size += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		errs = append(errs, configKey(binary.Key(key), key)...)
		size += len(cm.BinaryData[key])
	}
	return validation.Join(
		validation.Meta(&cm.ObjectMeta, true, validation.SubdomainName, metadata),
		errs,
		// What etcd takes in one value, with room to spare; the error is about the whole object.
		validation.When(size > corev1.MaxSecretSize, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize)),
	)
}

// ValidateConfigMapUpdate: a valid ConfigMap whose data stays as it is once immutable is set.
func ValidateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, metadata),
		keptImmutable(old.Immutable, cm.Immutable, map[string]bool{
			"data":       reflect.DeepEqual(cm.Data, old.Data),
			"binaryData": reflect.DeepEqual(cm.BinaryData, old.BinaryData),
		}),
		ValidateConfigMap(cm),
	)
}

// ValidateSecret is the rule list of a Secret being created. stringData is already merged
// into data (the registry does it first, as kube-apiserver's conversion does).
func ValidateSecret(s *corev1.Secret) field.ErrorList {
	data := field.NewPath("data")
	var errs field.ErrorList
	size := 0
	for _, key := range sortedKeys(s.Data) {
		errs = append(errs, configKey(data.Key(key), key)...)
		size += len(s.Data[key])
	}
	return validation.Join(
		validation.Meta(&s.ObjectMeta, true, validation.SubdomainName, metadata),
		errs,
		validation.When(size > corev1.MaxSecretSize, field.TooLong(data, "", corev1.MaxSecretSize)),
		secretType(data, s),
	)
}

// secretType: the built-in types promise their consumers some keys.
func secretType(data *field.Path, s *corev1.Secret) field.ErrorList {
	has := func(key string) bool { _, ok := s.Data[key]; return ok }
	required := func(keys ...string) field.ErrorList {
		var errs field.ErrorList
		for _, k := range keys {
			errs = append(errs, validation.When(!has(k), field.Required(data.Key(k), ""))...)
		}
		return errs
	}
	// A docker config must be JSON; its content is not echoed back.
	dockerConfig := func(key string) field.ErrorList {
		if !has(key) {
			return required(key)
		}
		if err := json.Unmarshal(s.Data[key], &map[string]interface{}{}); err != nil {
			return field.ErrorList{field.Invalid(data.Key(key), "<secret contents redacted>", err.Error())}
		}
		return nil
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		// The token controller fills in the token and the account's uid; the name is the user's.
		return validation.When(s.Annotations[corev1.ServiceAccountNameKey] == "",
			field.Required(metadata.Child("annotations").Key(corev1.ServiceAccountNameKey), ""))
	case corev1.SecretTypeDockercfg:
		return dockerConfig(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		return dockerConfig(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		if has(corev1.BasicAuthUsernameKey) || has(corev1.BasicAuthPasswordKey) {
			return nil // either may be empty, but one must be there
		}
		return required(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
	case corev1.SecretTypeSSHAuth:
		return validation.When(len(s.Data[corev1.SSHAuthPrivateKey]) == 0, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
	case corev1.SecretTypeTLS:
		return required(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return nil // Opaque, or a type of the user's own
}

// ValidateSecretUpdate: a valid Secret of the same type, whose data stays as it is once
// immutable is set.
func ValidateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&s.ObjectMeta, &old.ObjectMeta, metadata),
		// The declarative rule for type is alpha in v1.37: only logged, so it is ours to report.
		validation.Covered("immutable", validation.Immutable(field.NewPath("type"), s.Type, old.Type)).MarkAlpha(),
		keptImmutable(old.Immutable, s.Immutable, map[string]bool{"data": reflect.DeepEqual(s.Data, old.Data)}),
		ValidateSecret(s),
	)
}

// keptImmutable: once a ConfigMap or Secret is marked immutable, it stays so and the fields
// named in unchanged (field name: whether it is unchanged) keep their content.
func keptImmutable(was, is *bool, unchanged map[string]bool) field.ErrorList {
	if was == nil || !*was {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	errs := validation.When(is == nil || !*is, field.Forbidden(field.NewPath("immutable"), msg))
	for _, name := range []string{"data", "binaryData"} {
		if same, ok := unchanged[name]; ok && !same {
			errs = append(errs, field.Forbidden(field.NewPath(name), msg))
		}
	}
	return errs
}

// configKey: a key of a ConfigMap or Secret, which becomes a file name or an env variable.
func configKey(path *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	return errs
}

// ValidateServiceAccount is the rule list of a ServiceAccount being created: its metadata.
func ValidateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return validation.Meta(&sa.ObjectMeta, true, validation.SubdomainName, metadata)
}

// ValidateServiceAccountUpdate: any valid ServiceAccount.
func ValidateServiceAccountUpdate(sa, old *corev1.ServiceAccount) field.ErrorList {
	return validation.Join(validation.MetaUpdate(&sa.ObjectMeta, &old.ObjectMeta, metadata), ValidateServiceAccount(sa))
}

// sortedKeys lists a map's keys in order, so that errors come in the same order every time.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
