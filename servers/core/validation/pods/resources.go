package pods

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// containerResources: valid names and quantities, requests within limits, and claims the pod
// declares.
func (s *podSpec) containerResources(path *field.Path, r *corev1.ResourceRequirements) field.ErrorList {
	return validation.Join(
		resourceList(path.Child("limits"), r.Limits, ContainerResourceName),
		resourceList(path.Child("requests"), r.Requests, ContainerResourceName),
		requestsWithinLimits(path, r),
		hugePagesNeedCPUOrMemory(path, r),
		s.claimRefs(path.Child("claims"), r.Claims),
	)
}

// ContainerLimits checks a list of resources as a container's limits are checked, reporting
// them under path.Child("limits") (kube-apiserver checks a RuntimeClass's pod overhead so).
func ContainerLimits(path *field.Path, limits corev1.ResourceList) field.ErrorList {
	return validation.Join(
		resourceList(path.Child("limits"), limits, ContainerResourceName),
		hugePagesNeedCPUOrMemory(path, &corev1.ResourceRequirements{Limits: limits}),
	)
}

// resourceList: each name passes nameRule, each quantity is not negative; extended resources
// come in whole units and huge pages in whole pages.
func resourceList(path *field.Path, list corev1.ResourceList, nameRule func(*field.Path, corev1.ResourceName) field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedNames(list) {
		q, p := list[name], path.Key(string(name))
		errs = append(errs, nameRule(p, name)...)
		errs = append(errs, validation.NonNegativeQuantity(p, q)...)
		if isExtended(name) && q.MilliValue()%1000 != 0 {
			errs = append(errs, field.Invalid(p, q, "must be an integer"))
		}
		if size, ok := hugePageSize(name); ok && (size.Value() <= 0 || q.Value()%size.Value() != 0) {
			errs = append(errs, field.Invalid(p, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name)))
		}
	}
	return errs
}

// requestsWithinLimits: a container may ask for less than its limit of what the node can
// overcommit (cpu, memory), but exactly its limit of the rest (huge pages, extended resources).
func requestsWithinLimits(path *field.Path, r *corev1.ResourceRequirements) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedNames(r.Requests) {
		req := r.Requests[name]
		limit, limited := r.Limits[name]
		switch {
		case !limited && !overcommittable(name):
			errs = append(errs, field.Required(path.Child("limits").Key(string(name)), "Limit must be set for non overcommitable resources"))
		case !limited:
		case !overcommittable(name) && req.Cmp(limit) != 0:
			errs = append(errs, field.Invalid(path.Child("requests"), req.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
		case req.Cmp(limit) > 0:
			errs = append(errs, field.Invalid(path.Child("requests"), req.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return errs
}

// hugePagesNeedCPUOrMemory: huge pages are only accounted for beside cpu or memory.
func hugePagesNeedCPUOrMemory(path *field.Path, r *corev1.ResourceRequirements) field.ErrorList {
	hugePages, cpuOrMemory := false, false
	for _, list := range []corev1.ResourceList{r.Limits, r.Requests} {
		for name := range list {
			_, isHugePage := hugePageSize(name)
			hugePages = hugePages || isHugePage
			cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
		}
	}
	return validation.When(hugePages && !cpuOrMemory, field.Forbidden(path, "HugePages require cpu or memory"))
}

// claimRefs: a container uses DRA claims (or one request of a claim) that the pod declares.
func (s *podSpec) claimRefs(path *field.Path, claims []corev1.ResourceClaim) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range claims {
		p := path.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		key := c.Name
		if c.Request != "" {
			errs = append(errs, validation.DNSLabel(p.Child("request"), c.Request)...)
			key += "/" + c.Request
		}
		if seen[key] || seen[c.Name] {
			errs = append(errs, field.Duplicate(p, key))
		}
		seen[key] = true
		if !s.claims[c.Name] {
			notFound := field.NotFound(p, c.Name)
			notFound.Detail = "must be one of the names in pod.spec.resourceClaims"
			if names := sortedKeys(s.claims); len(names) == 0 {
				notFound.Detail += " which is empty"
			} else {
				notFound.Detail += ": " + strings.Join(names, ", ")
			}
			errs = append(errs, notFound)
		}
	}
	return errs
}

// podResources: pod-level requests and limits (PodLevelResources is beta, on), for cpu, memory
// and huge pages; the pod's request covers its containers' and no container exceeds its limit.
func (s *podSpec) podResources(path *field.Path) field.ErrorList {
	r := s.Resources
	if r == nil {
		return nil
	}
	podLevel := func(p *field.Path, name corev1.ResourceName) field.ErrorList {
		if _, isHugePage := hugePageSize(name); isHugePage || name == corev1.ResourceCPU || name == corev1.ResourceMemory {
			return nil
		}
		return field.ErrorList{field.NotSupported(p, name, []string{"cpu", corev1.ResourceHugePagesPrefix, "memory"})}
	}
	errs := validation.Join(
		resourceList(path.Child("limits"), r.Limits, podLevel),
		resourceList(path.Child("requests"), r.Requests, podLevel),
		requestsWithinLimits(path, r),
		validation.When(len(r.Claims) > 0, field.Forbidden(path.Child("claims"), "claims may not be set for Resources at pod-level")),
	)
	for _, name := range sortedNames(r.Requests) {
		podReq, total := r.Requests[name], s.containerRequests(name)
		if total.Cmp(podReq) > 0 {
			errs = append(errs, field.Invalid(path.Child("requests").Key(string(name)), podReq.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", total.String())))
		}
	}
	for i, c := range s.Containers {
		for _, name := range sortedNames(c.Resources.Limits) {
			ctrLimit := c.Resources.Limits[name]
			if podLimit, ok := r.Limits[name]; ok && ctrLimit.Cmp(podLimit) > 0 {
				errs = append(errs, field.Invalid(path.Child("containers").Index(i).Key(string(name)).Child("limits"), ctrLimit.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", podLimit.String())))
			}
		}
	}
	return errs
}

// containerRequests is what the pod's containers need of name at most at once: the regular
// containers and sidecars together, or a plain init container beside the sidecars started
// before it.
func (s *podSpec) containerRequests(name corev1.ResourceName) resource.Quantity {
	var sidecars, peak resource.Quantity
	for _, c := range s.InitContainers {
		q := c.Resources.Requests[name]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.Add(q)
			continue
		}
		q.Add(sidecars)
		if q.Cmp(peak) > 0 {
			peak = q
		}
	}
	total := sidecars.DeepCopy()
	for _, c := range s.Containers {
		total.Add(c.Resources.Requests[name])
	}
	if peak.Cmp(total) > 0 {
		return peak
	}
	return total
}

// The resource names Kubernetes itself defines, in containers and elsewhere (quotas).
var (
	containerResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}
	standardResources  = append([]corev1.ResourceName{
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
		corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
		corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
		corev1.ResourceStorage, corev1.ResourceRequestsStorage,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
	}, containerResources...)
)

// ContainerResourceName: what a container may request (and an autoscaler may scale on): cpu,
// memory, ephemeral-storage, huge pages, or an extended resource with a domain
// ("example.com/gpu").
func ContainerResourceName(path *field.Path, name corev1.ResourceName) field.ErrorList {
	n := string(name)
	errs := validation.QualifiedName(path, n)
	_, isHugePage := hugePageSize(name)
	if !strings.Contains(n, "/") {
		if !contains(standardResources, name) && !isHugePage && !strings.HasPrefix(n, "requests.hugepages-") {
			errs = append(errs, field.Invalid(path, n, "must be a standard resource type or fully qualified"))
		}
		if !contains(containerResources, name) && !isHugePage {
			errs = append(errs, field.Invalid(path, n, "must be a standard resource for containers"))
		}
	} else if !native(name) && !isExtended(name) {
		errs = append(errs, field.Invalid(path, n, "doesn't follow extended resource name standard"))
	}
	return errs
}

// native: a name Kubernetes defines (no domain, or one of its own).
func native(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// isExtended: a device plugin's resource, like example.com/gpu; its quota name,
// requests.example.com/gpu, must be a qualified name too.
func isExtended(name corev1.ResourceName) bool {
	if native(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.QualifiedName(nil, corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// overcommittable: a node hands out more cpu and memory than it has, not huge pages or devices.
func overcommittable(name corev1.ResourceName) bool {
	_, isHugePage := hugePageSize(name)
	return native(name) && !isHugePage
}

// hugePageSize reads the page size of a hugepages-<size> resource.
func hugePageSize(name corev1.ResourceName) (resource.Quantity, bool) {
	size, ok := strings.CutPrefix(string(name), corev1.ResourceHugePagesPrefix)
	if !ok {
		return resource.Quantity{}, false
	}
	q, _ := resource.ParseQuantity(size) // an unreadable size is no size: no quantity is a multiple of it
	return q, true
}

func sortedNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for n := range list {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
