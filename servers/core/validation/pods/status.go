package pods

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidatePodStatusUpdate is the rule list of a pods/status update, which the scheduler and the
// kubelet write: conditions, addresses, container states, in the order of PodStatus's fields.
func ValidatePodStatusUpdate(pod, old *corev1.Pod) field.ErrorList {
	status, s := field.NewPath("status"), &pod.Status
	return validation.Join(
		validation.MetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, metadata),
		// The node is the binding's to set, not status's.
		validation.When(pod.Spec.NodeName != old.Spec.NodeName, field.Forbidden(status.Child("nodeName"), "may not be changed directly")),
		validation.Each(status.Child("conditions"), s.Conditions, podCondition),
		ifSet(status.Child("nominatedNodeName"), s.NominatedNodeName, validation.DNSSubdomain),
		validation.When(pod.Spec.NodeName != "" && s.NominatedNodeName != "" && s.NominatedNodeName != old.Status.NominatedNodeName,
			field.Forbidden(status.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node")),
		podIPs(status, "hostIP", s.HostIP, ips(s.HostIPs, func(h corev1.HostIP) string { return h.IP }), validation.Internal(s.HostIPs)),
		podIPs(status, "podIP", s.PodIP, ips(s.PodIPs, func(p corev1.PodIP) string { return p.IP }), validation.Internal(s.PodIPs)),
		stayTerminated(status.Child("initContainerStatuses"), pod.Spec.InitContainers, s.InitContainerStatuses, old.Status.InitContainerStatuses, pod.Spec.RestartPolicy),
		stayTerminated(status.Child("containerStatuses"), pod.Spec.Containers, s.ContainerStatuses, old.Status.ContainerStatuses, pod.Spec.RestartPolicy),
		// The QoS class follows from the resources, which the status cannot change.
		validation.When(old.Status.QOSClass != "" && s.QOSClass != old.Status.QOSClass, field.Invalid(status.Child("qosClass"), s.QOSClass, "field is immutable")),
		claimStatuses(status.Child("resourceClaimStatuses"), &pod.Spec, s.ResourceClaimStatuses),
	)
}

// podCondition: a condition's type is a qualified name (kube-apiserver reports it at "Type").
func podCondition(p *field.Path, c *corev1.PodCondition) field.ErrorList {
	return validation.Join(
		validation.When(c.ObservedGeneration < 0, field.Invalid(p.Child("observedGeneration"), c.ObservedGeneration, "must be a non-negative integer")),
		validation.QualifiedName(p.Child("Type"), string(c.Type)),
	)
}

func ips[T any](list []T, ip func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = ip(x)
	}
	return out
}

// podIPs: the pod's (or its host's) addresses, the first of them also in the single field, at
// most one of each IP family.
func podIPs(status *field.Path, single, value string, list []string, shown interface{}) field.ErrorList {
	listPath := status.Child(single + "s")
	errs := ifSet(status.Child(single), value, func(p *field.Path, v string) field.ErrorList {
		return utilvalidation.IsValidIPForLegacyField(p, v, true, nil)
	})
	families := map[bool]int{}
	for i, ip := range list {
		p := listPath.Index(i).Child("ip")
		errs = append(errs, utilvalidation.IsValidIPForLegacyField(p, ip, true, nil)...)
		if a, err := netip.ParseAddr(ip); err == nil {
			families[a.Unmap().Is4()]++
		}
	}
	if len(list) > 0 && list[0] != value {
		errs = append(errs, field.Invalid(listPath.Index(0).Child("ip"), list[0], "must be equal to `"+single+"`"))
	}
	if families[true] > 1 || families[false] > 1 {
		errs = append(errs, field.Invalid(listPath, shown, "may specify no more than one IP for each IP family"))
	}
	return errs
}

// stayTerminated: a container that may not restart (restartPolicy Never, or OnFailure after a
// success) does not come back to life in its status.
func stayTerminated(path *field.Path, containers []corev1.Container, statuses, old []corev1.ContainerStatus, podPolicy corev1.RestartPolicy) field.ErrorList {
	policies := map[string]corev1.RestartPolicy{}
	for _, c := range containers {
		switch {
		case len(c.RestartPolicyRules) > 0:
			// Its own rules decide; nothing to check here.
		case c.RestartPolicy != nil:
			policies[c.Name] = corev1.RestartPolicy(*c.RestartPolicy)
		default:
			policies[c.Name] = podPolicy
		}
	}
	ended := map[string]bool{}
	for _, st := range old {
		if t := st.State.Terminated; t != nil {
			policy := policies[st.Name]
			ended[st.Name] = policy == corev1.RestartPolicyNever || (policy == corev1.RestartPolicyOnFailure && t.ExitCode == 0)
		}
	}
	var errs field.ErrorList
	for i, st := range statuses {
		errs = append(errs, validation.When(ended[st.Name] && st.State.Terminated == nil,
			field.Forbidden(path.Index(i).Child("state"), "may not be transitioned to non-terminated state"))...)
	}
	return errs
}

// claimStatuses: the ResourceClaims made for the pod's claim templates, by pod claim name.
func claimStatuses(path *field.Path, spec *corev1.PodSpec, statuses []corev1.PodResourceClaimStatus) field.ErrorList {
	declared := map[string]bool{}
	for _, c := range spec.ResourceClaims {
		declared[c.Name] = true
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, st := range statuses {
		p := path.Index(i)
		switch {
		case seen[st.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), st.Name))
		case !declared[st.Name]:
			errs = append(errs, field.Invalid(p.Child("name"), st.Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		seen[st.Name] = true
		errs = append(errs, validation.IfSet(p.Child("resourceClaimName"), st.ResourceClaimName, validation.DNSSubdomain)...)
	}
	return errs
}
