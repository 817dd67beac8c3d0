package core

// A Service's cluster IPs and IP families, and its load balancer's status.

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/apichain/apichain/servers/core/validation"
)

var (
	clusterIPsPath = spec.Child("clusterIPs")
	familiesPath   = spec.Child("ipFamilies")
	policyPath     = spec.Child("ipFamilyPolicy")
)

// clusterIPs: clusterIP is clusterIPs[0]; the list holds "None" (headless) or up to two IPs,
// one per family, in the order of ipFamilies. On update the stored IPs stay allowed.
func clusterIPs(svc, old *corev1.Service) field.ErrorList {
	s := &svc.Spec
	if s.Type == corev1.ServiceTypeExternalName {
		return nil // its IP fields must be empty: typeFields
	}
	var kept []string
	if old != nil {
		kept = old.Spec.ClusterIPs
	}
	errs := validation.Join(
		validation.When(s.ClusterIP != "" && len(s.ClusterIPs) == 0, field.Required(clusterIPsPath, "")),
		validation.When(s.ClusterIP != "" && len(s.ClusterIPs) > 0 && s.ClusterIPs[0] != s.ClusterIP,
			field.Invalid(clusterIPsPath, s.ClusterIPs, "first value must match `clusterIP`")),
		validation.When(s.ClusterIP == "" && len(s.ClusterIPs) > 0,
			field.Invalid(clusterIPsPath, s.ClusterIPs, "must be empty when `clusterIP` is not specified")),
	)
	for i, f := range s.IPFamilies {
		errs = append(errs, validation.Join(
			validation.When(f != corev1.IPv4Protocol && f != corev1.IPv6Protocol,
				field.NotSupported(familiesPath.Index(i), f, []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol})),
			validation.When(slices.Contains(s.IPFamilies[:i], f), field.Duplicate(familiesPath.Index(i), f)),
		)...)
	}
	policies := []corev1.IPFamilyPolicy{corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack}
	if p := s.IPFamilyPolicy; p != nil && !slices.Contains(policies, *p) {
		errs = append(errs, field.NotSupported(policyPath, *p, policies))
	}

	invalid := 0
	for i, ip := range s.ClusterIPs {
		if i == 0 && ip == corev1.ClusterIPNone {
			if len(s.ClusterIPs) > 1 {
				invalid++
				errs = append(errs, field.Invalid(clusterIPsPath, s.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		ipErrs := utilvalidation.IsValidIPForLegacyField(clusterIPsPath.Index(i), ip, true, kept)
		invalid += len(ipErrs)
		errs = append(errs, ipErrs...)
	}
	errs = append(errs, validation.When(len(s.ClusterIPs) > 2, field.Invalid(clusterIPsPath, s.ClusterIPs, "may only hold up to 2 values"))...)
	if invalid > 0 {
		return errs // the checks below would only repeat the problem
	}
	v6 := func(ip string) bool {
		parsed := netutils.ParseIPSloppy(ip)
		return parsed != nil && parsed.To4() == nil
	}
	v4 := func(ip string) bool { return !v6(ip) }
	if len(s.ClusterIPs) > 1 && !(slices.ContainsFunc(s.ClusterIPs, v4) && slices.ContainsFunc(s.ClusterIPs, v6)) {
		errs = append(errs, field.Invalid(clusterIPsPath, s.ClusterIPs, "may specify no more than one IP for each IP family"))
	}
	if headless(svc) {
		return errs
	}
	for i, ip := range s.ClusterIPs {
		if i >= len(s.IPFamilies) {
			break
		}
		switch f := s.IPFamilies[i]; {
		case f == corev1.IPv4Protocol && v6(ip), f == corev1.IPv6Protocol && !v6(ip):
			errs = append(errs, field.Invalid(clusterIPsPath.Index(i), ip, fmt.Sprintf("expected an %s value as indicated by `ipFamilies[%d]`", f, i)))
		}
	}
	return errs
}

// clusterIPsKept: an update keeps the primary cluster IP and family (switching to or from
// ExternalName, or between headless ones, aside); a secondary one may be added, or released
// by going SingleStack.
func clusterIPsKept(svc, old *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	var ips, families field.ErrorList
	if !headless(svc) || !headless(old) {
		ips = keptStack(clusterIPsPath, svc.Spec.ClusterIPs, old.Spec.ClusterIPs, svc.Spec.IPFamilyPolicy, "clusterIP")
	}
	if !headless(svc) && !headless(old) {
		families = keptStack(familiesPath, svc.Spec.IPFamilies, old.Spec.IPFamilies, svc.Spec.IPFamilyPolicy, "ipFamily")
	}
	return validation.Join(ips, families)
}

func keptStack[T ~string](path *field.Path, list, old []T, policy *corev1.IPFamilyPolicy, what string) field.ErrorList {
	const changed = "may not change once set"
	var errs field.ErrorList
	switch {
	case len(list) == len(old):
		for i := range old {
			errs = append(errs, validation.When(list[i] != old[i], field.Invalid(path.Index(i), list, changed))...)
		}
	case len(list) < len(old): // released
		errs = validation.Join(
			validation.When(len(list) == 0, field.Invalid(path.Index(0), list, "primary "+what+" can not be unset")),
			validation.When(len(list) > 0 && list[0] != old[0], field.Invalid(path.Index(0), list, changed)),
			validation.When(len(list) == 1 && (policy == nil || *policy != corev1.IPFamilyPolicySingleStack),
				field.Invalid(policyPath, policy, "must be set to 'SingleStack' when releasing the secondary "+what)),
		)
	default: // added
		errs = validation.When(len(old) > 0 && list[0] != old[0], field.Invalid(path.Index(0), list, changed))
	}
	return errs
}

// ValidateServiceStatusUpdate is the rule list of a Service's /status, which a load balancer
// controller writes: where the load balancer is reachable.
func ValidateServiceStatusUpdate(svc, old *corev1.Service) field.ErrorList {
	path := field.NewPath("status", "loadBalancer", "ingress")
	ingress := svc.Status.LoadBalancer.Ingress
	errs := validation.MetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, metadata)
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer && len(ingress) > 0 {
		return append(errs, field.Forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'"))
	}
	var kept []string
	for _, in := range old.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			kept = append(kept, in.IP)
		}
	}
	modes := []corev1.LoadBalancerIPMode{corev1.LoadBalancerIPModeProxy, corev1.LoadBalancerIPModeVIP}
	for i, in := range ingress {
		at := path.Index(i)
		if in.IP != "" {
			errs = append(errs, utilvalidation.IsValidIPForLegacyField(at.Child("ip"), in.IP, true, kept)...)
		}
		switch {
		case in.IPMode == nil:
			errs = append(errs, validation.When(in.IP != "", field.Required(at.Child("ipMode"), "must be specified when `ip` is set"))...)
		case in.IP == "":
			errs = append(errs, field.Forbidden(at.Child("ipMode"), "may not be specified when `ip` is not set"))
		case !slices.Contains(modes, *in.IPMode):
			errs = append(errs, field.NotSupported(at.Child("ipMode"), *in.IPMode, modes))
		}
		if in.Hostname != "" {
			errs = append(errs, validation.DNSSubdomain(at.Child("hostname"), in.Hostname)...)
			errs = append(errs, validation.When(netutils.ParseIPSloppy(in.Hostname) != nil,
				field.Invalid(at.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))...)
		}
	}
	return errs
}
