package core

// The names and amounts of resources, as nodes report them and quotas and limit ranges cap them.

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// The resources Kubernetes counts in whole units: objects, and the devices of extended resources.
var countedResources = []corev1.ResourceName{
	corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
	corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
	corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// The resources a container asks for by a name without a domain.
var containerResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}

// standardResources are the names without a domain that Kubernetes defines anywhere;
// quotaResources those a quota may cap.
var (
	quotaResources = slices.Concat(containerResources, countedResources, []corev1.ResourceName{
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsStorage, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	})
	standardResources = append(slices.Clone(quotaResources), corev1.ResourceStorage)
)

// resourceQuantities: the amounts of a resource list, none negative, whole numbers of what
// is counted.
func resourceQuantities(path *field.Path, list corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(list) {
		errs = append(errs, quantity(path.Key(string(name)), name, list[name])...)
	}
	return errs
}

func quantity(path *field.Path, name corev1.ResourceName, q resource.Quantity) field.ErrorList {
	counted := slices.Contains(countedResources, name) || extended(name)
	return validation.Join(
		validation.NonNegativeQuantity(path, q),
		validation.When(counted && q.MilliValue()%1000 != 0, field.Invalid(path, q, "must be an integer")),
	)
}

// resourceName: a qualified name; without a domain, one that Kubernetes defines.
func resourceName(path *field.Path, name corev1.ResourceName) field.ErrorList {
	if errs := validation.QualifiedName(path, string(name)); len(errs) > 0 {
		return errs
	}
	return validation.When(!domain(name) && !slices.Contains(standardResources, name) && !quotaHugePages(name),
		field.Invalid(path, name, "must be a standard resource type or fully qualified"))
}

// quotaResourceName: what a ResourceQuota may cap.
func quotaResourceName(path *field.Path, name corev1.ResourceName) field.ErrorList {
	return append(resourceName(path, name), validation.When(!domain(name) && !slices.Contains(quotaResources, name) && !quotaHugePages(name),
		field.Invalid(path, name, "must be a standard resource for quota"))...)
}

// containerResourceName: what a container (or a pod, in a LimitRange) may ask for: cpu,
// memory, ephemeral storage, huge pages, or an extended resource such as example.com/gpu.
func containerResourceName(path *field.Path, name corev1.ResourceName) field.ErrorList {
	errs := resourceName(path, name)
	switch {
	case !domain(name):
		errs = append(errs, validation.When(!slices.Contains(containerResources, name) && !hugePages(name),
			field.Invalid(path, name, "must be a standard resource for containers"))...)
	case !native(name) && !extended(name):
		errs = append(errs, field.Invalid(path, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

func domain(name corev1.ResourceName) bool { return strings.Contains(string(name), "/") }

// hugePages: hugepages-<page size>; quotas cap them as requests.hugepages-<page size> too.
func hugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

func quotaHugePages(name corev1.ResourceName) bool {
	return hugePages(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix+corev1.ResourceHugePagesPrefix)
}

// native: a name Kubernetes defines (no domain, or one of its own).
func native(name corev1.ResourceName) bool {
	return !domain(name) || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// extended: a device plugin's resource, like example.com/gpu; its quota name,
// requests.example.com/gpu, must be a qualified name too.
func extended(name corev1.ResourceName) bool {
	if native(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.QualifiedName(nil, corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// overcommittable: a node hands out more cpu and memory than it has, not huge pages or devices.
func overcommittable(name corev1.ResourceName) bool {
	return native(name) && !hugePages(name)
}
