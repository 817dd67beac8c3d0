package pods

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// envVar: a name (any printable ASCII but '='), and a value or exactly one source of one.
func (s *podSpec) envVar(path *field.Path, e *corev1.EnvVar) field.ErrorList {
	var errs field.ErrorList
	if e.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, envName(path.Child("name"), e.Name)...)
	}
	if e.ValueFrom == nil {
		return errs
	}
	from, p := e.ValueFrom, path.Child("valueFrom")
	// kube-apiserver reports these three with an empty value, at valueFrom.
	switch n := len(setMembers(from)); {
	case n == 0:
		return append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case n > 1:
		return append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	case e.Value != "":
		return append(errs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	}
	return validation.Join(errs,
		validation.IfSet(p.Child("fieldRef"), from.FieldRef, func(p *field.Path, f corev1.ObjectFieldSelector) field.ErrorList {
			return podField(p, &f, envPodFields)
		}),
		validation.IfSet(p.Child("resourceFieldRef"), from.ResourceFieldRef, func(p *field.Path, r corev1.ResourceFieldSelector) field.ErrorList {
			return containerField(p, &r, false)
		}),
		validation.IfSet(p.Child("configMapKeyRef"), from.ConfigMapKeyRef, func(p *field.Path, r corev1.ConfigMapKeySelector) field.ErrorList {
			return keyRef(p, r.Name, r.Key)
		}),
		validation.IfSet(p.Child("secretKeyRef"), from.SecretKeyRef, func(p *field.Path, r corev1.SecretKeySelector) field.ErrorList {
			return keyRef(p, r.Name, r.Key)
		}),
		validation.IfSet(p.Child("fileKeyRef"), from.FileKeyRef, fileKeyRef),
	)
}

func envName(path *field.Path, name string) field.ErrorList {
	return invalid(path, name, utilvalidation.IsRelaxedEnvVarName(name))
}

// keyRef: a key of a named ConfigMap or Secret.
func keyRef(path *field.Path, name, key string) field.ErrorList {
	errs := validation.DNSSubdomain(path.Child("name"), name)
	if key == "" {
		return append(errs, field.Required(path.Child("key"), ""))
	}
	return append(errs, invalid(path.Child("key"), key, utilvalidation.IsConfigMapKey(key))...)
}

// fileKeyRef: a variable read from a file that an init container wrote into a volume.
func fileKeyRef(path *field.Path, r corev1.FileKeySelector) field.ErrorList {
	errs := validation.Required(path.Child("key"), r.Key)
	if r.Key != "" {
		errs = append(errs, envName(path.Child("key"), r.Key)...)
	}
	errs = append(errs, validation.Required(path.Child("volumeName"), r.VolumeName)...)
	errs = append(errs, ifSet(path.Child("volumeName"), r.VolumeName, validation.DNSLabel)...)
	errs = append(errs, validation.Required(path.Child("path"), r.Path)...)
	return append(errs, noBacksteps(path.Child("path"), r.Path)...)
}

// envFrom: every key of one ConfigMap or Secret per entry, optionally prefixed.
// kube-apiserver reports the choice of source at envFrom, without the index.
func envFrom(path *field.Path, list []corev1.EnvFromSource) field.ErrorList {
	var errs field.ErrorList
	for i := range list {
		e, p := &list[i], path.Index(i)
		errs = append(errs, ifSet(p.Child("prefix"), e.Prefix, envName)...)
		switch n := len(setMembers(e)); {
		case n == 0:
			errs = append(errs, field.Invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(path, "", "may not have more than one field specified at a time"))
		}
		if e.ConfigMapRef != nil {
			errs = append(errs, requiredName(p.Child("configMapRef", "name"), e.ConfigMapRef.Name)...)
		}
		if e.SecretRef != nil {
			errs = append(errs, requiredName(p.Child("secretRef", "name"), e.SecretRef.Name)...)
		}
	}
	return errs
}

// requiredName: the name of an object in the pod's namespace, which must be given.
func requiredName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return validation.DNSSubdomain(path, name)
}

// The pod fields the downward API exposes: as environment variables, and as files (where
// labels and annotations, which change, are offered too, but not the IPs, which are known only
// once the pod runs).
var (
	envPodFields = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
		"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}
	volumePodFields = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}
	// podFieldLabels are the pod fields the v1 API knows by name at all; a path outside them
	// fails earlier, in the conversion of the field label.
	podFieldLabels = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
		"metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}
)

// podField: a downward API reference to a field of the pod, one of allowed.
func podField(path *field.Path, f *corev1.ObjectFieldSelector, allowed []string) field.ErrorList {
	switch {
	case f.APIVersion == "":
		return field.ErrorList{field.Required(path.Child("apiVersion"), "")}
	case f.FieldPath == "":
		return field.ErrorList{field.Required(path.Child("fieldPath"), "")}
	case f.APIVersion != "v1":
		return field.ErrorList{field.Invalid(path.Child("fieldPath"), f.FieldPath, "error converting fieldPath: unsupported pod version: "+f.APIVersion)}
	}
	// One label or annotation, in environment variables too: metadata.labels['app'].
	if base, key, subscripted := strings.Cut(f.FieldPath, "['"); subscripted {
		key, closed := strings.CutSuffix(key, "']")
		if !closed || (base != "metadata.labels" && base != "metadata.annotations") {
			return field.ErrorList{field.Invalid(path.Child("fieldPath"), f.FieldPath, "error converting fieldPath: field label does not support subscript: "+f.FieldPath)}
		}
		return validation.QualifiedName(path.Child("fieldPath"), key)
	}
	if !contains(podFieldLabels, f.FieldPath) {
		return field.ErrorList{field.Invalid(path.Child("fieldPath"), f.FieldPath, "error converting fieldPath: field label not supported: "+f.FieldPath)}
	}
	if !contains(allowed, f.FieldPath) {
		sorted := append([]string(nil), allowed...)
		sort.Strings(sorted)
		return field.ErrorList{field.NotSupported(path.Child("fieldPath"), f.FieldPath, sorted)}
	}
	return nil
}

// containerResourceFields are what a resourceFieldRef may read, besides hugepages-<size>.
var containerResourceFields = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory",
	"requests.cpu", "requests.ephemeral-storage", "requests.memory"}

// containerField: a downward API reference to a container's requests or limits, scaled by a
// divisor that fits the resource. In a volume the container must be named.
func containerField(path *field.Path, r *corev1.ResourceFieldSelector, inVolume bool) field.ErrorList {
	var errs field.ErrorList
	if inVolume && r.ContainerName == "" {
		errs = append(errs, field.Required(path.Child("containerName"), ""))
	}
	if r.Resource == "" {
		return append(errs, field.Required(path.Child("resource"), ""))
	}
	hugePages := strings.HasPrefix(r.Resource, "limits.hugepages-") || strings.HasPrefix(r.Resource, "requests.hugepages-")
	if !hugePages && !contains(containerResourceFields, r.Resource) {
		return append(errs, field.NotSupported(path.Child("resource"), r.Resource, containerResourceFields))
	}
	if r.Divisor.IsZero() {
		return errs
	}
	divisor := r.Divisor.String()
	_, resourceName, _ := strings.Cut(r.Resource, ".")
	binary := []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
	bad := func(values, what string) field.ErrorList {
		return field.ErrorList{field.Invalid(path.Child("divisor"), r.Resource, fmt.Sprintf("only divisor's values %s are supported with the %s resource", values, what))}
	}
	switch {
	case resourceName == "cpu" && divisor != "1m" && divisor != "1":
		errs = append(errs, bad("1m and 1", "cpu")...)
	case resourceName == "memory" && !contains(binary, divisor):
		errs = append(errs, bad(strings.Join(binary, ", "), "memory")...)
	case resourceName == "ephemeral-storage" && !contains(binary, divisor):
		errs = append(errs, bad(strings.Join(binary, ", "), "local ephemeral storage")...)
	case hugePages && !contains(binary, divisor):
		errs = append(errs, bad(strings.Join(binary, ", "), "hugepages")...)
	}
	return errs
}
