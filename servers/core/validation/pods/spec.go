package pods

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// podSpec is one pod spec under validation with what its rules need to know about the rest of
// it: the volumes that mounts name, the claims that containers name, the metadata, and the
// stored spec on update.
type podSpec struct {
	*corev1.PodSpec
	old     *corev1.PodSpec // nil on create
	meta    *metav1.ObjectMeta
	isPod   bool // a Pod rather than a template: its name is known and it is about to run
	volumes map[string]*corev1.VolumeSource
	claims  map[string]bool
}

func newPodSpec(spec, old *corev1.PodSpec, meta *metav1.ObjectMeta, isPod bool) *podSpec {
	s := &podSpec{PodSpec: spec, old: old, meta: meta, isPod: isPod,
		volumes: map[string]*corev1.VolumeSource{}, claims: map[string]bool{}}
	for i, v := range spec.Volumes {
		s.volumes[v.Name] = &spec.Volumes[i].VolumeSource
	}
	for _, c := range spec.ResourceClaims {
		s.claims[c.Name] = true
	}
	return s
}

// validate runs the rules of a pod spec, in the order of its fields.
func (s *podSpec) validate(path *field.Path) field.ErrorList {
	return validation.Join(
		s.volumeList(path.Child("volumes")),
		s.containerList(path.Child("initContainers"), s.InitContainers, true),
		s.containerList(path.Child("containers"), s.Containers, false),
		validation.When(len(s.Containers) == 0, field.Required(path.Child("containers"), "")),
		s.hostPortConflicts(path.Child("containers")),
		validation.OneOf(path.Child("restartPolicy"), s.RestartPolicy,
			corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever),
		validation.IfSet(path.Child("activeDeadlineSeconds"), s.ActiveDeadlineSeconds, func(p *field.Path, v int64) field.ErrorList {
			return validation.InRange(p, v, 1, 1<<31-1)
		}),
		s.dnsPolicy(path),
		validation.Labels(path.Child("nodeSelector"), s.NodeSelector),
		ifSet(path.Child("serviceAccountName"), s.ServiceAccountName, validation.DNSSubdomain),
		ifSet(path.Child("nodeName"), s.NodeName, validation.DNSSubdomain),
		validation.When(s.ShareProcessNamespace != nil && *s.ShareProcessNamespace && s.HostPID,
			field.Invalid(path.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled")),
		s.podSecurityContext(path.Child("securityContext")),
		ifSet(path.Child("hostname"), s.Hostname, validation.DNSLabel),
		ifSet(path.Child("subdomain"), s.Subdomain, validation.DNSLabel),
		s.affinity(path.Child("affinity")),
		ifSet(path.Child("schedulerName"), s.SchedulerName, validation.DNSSubdomain),
		validation.Each(path.Child("tolerations"), s.Tolerations, toleration),
		validation.Each(path.Child("hostAliases"), s.HostAliases, hostAlias),
		ifSet(path.Child("priorityClassName"), s.PriorityClassName, validation.DNSSubdomain),
		s.dnsConfig(path.Child("dnsConfig")),
		validation.Each(path.Child("readinessGates"), s.ReadinessGates, func(p *field.Path, g *corev1.PodReadinessGate) field.ErrorList {
			return validation.QualifiedName(p.Child("conditionType"), string(g.ConditionType))
		}),
		validation.IfSet(path.Child("runtimeClassName"), s.RuntimeClassName, validation.DNSSubdomain),
		validation.IfSet(path.Child("preemptionPolicy"), s.PreemptionPolicy, func(p *field.Path, v corev1.PreemptionPolicy) field.ErrorList {
			return validation.OneOf(p, v, corev1.PreemptLowerPriority, corev1.PreemptNever)
		}),
		resourceList(path.Child("overhead"), s.Overhead, ContainerResourceName),
		s.topologySpread(path.Child("topologySpreadConstraints")),
		s.osRules(path),
		s.userNamespace(path),
		s.schedulingGates(path.Child("schedulingGates")),
		s.resourceClaims(path.Child("resourceClaims")),
		s.podResources(path.Child("resources")),
		s.hostnameOverride(path.Child("hostnameOverride")),
	)
}

// dnsPolicy: one of the four, and None means the pod brings its own dnsConfig.
func (s *podSpec) dnsPolicy(path *field.Path) field.ErrorList {
	return validation.Join(
		validation.OneOf(path.Child("dnsPolicy"), s.DNSPolicy,
			corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone),
		validation.When(s.DNSPolicy == corev1.DNSNone && s.DNSConfig == nil,
			field.Required(path.Child("dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None")),
	)
}

// The resolver's limits (glibc's): nameservers, search domains and their total length.
const (
	maxNameservers    = 3
	maxSearches       = 32
	maxSearchListSize = 2048
)

// dnsConfig: nameservers are IPs, searches are domains, options have names.
func (s *podSpec) dnsConfig(path *field.Path) field.ErrorList {
	c := s.DNSConfig
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxNameservers {
		errs = append(errs, field.Invalid(path.Child("nameservers"), c.Nameservers, fmt.Sprintf("must not have more than %d nameservers", maxNameservers)))
	}
	for i, ns := range c.Nameservers {
		errs = append(errs, utilvalidation.IsValidIPForLegacyField(path.Child("nameservers").Index(i), ns, true, nil)...)
	}
	if s.DNSPolicy == corev1.DNSNone && len(c.Nameservers) == 0 {
		errs = append(errs, field.Required(path.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"))
	}
	if len(c.Searches) > maxSearches {
		errs = append(errs, field.Invalid(path.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %d search paths", maxSearches)))
	}
	if size := len(strings.Join(c.Searches, " ")); size > maxSearchListSize {
		errs = append(errs, field.Invalid(path.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %d characters (including spaces) in the search list", maxSearchListSize)))
	}
	for i, search := range c.Searches {
		// A trailing dot (fully qualified) is fine; underscores appear in real domains.
		errs = append(errs, invalid(path.Child("searches").Index(i), search, utilvalidation.IsDNS1123SubdomainWithUnderscore(strings.TrimSuffix(search, ".")))...)
	}
	for i, o := range c.Options {
		errs = append(errs, validation.When(o.Name == "", field.Required(path.Child("options").Index(i), "must not be empty"))...)
	}
	return errs
}

// hostAlias: an /etc/hosts line, an IP and its names.
func hostAlias(path *field.Path, a *corev1.HostAlias) field.ErrorList {
	errs := utilvalidation.IsValidIPForLegacyField(path.Child("ip"), a.IP, true, nil)
	for i, h := range a.Hostnames {
		errs = append(errs, validation.DNSSubdomain(path.Child("hostnames").Index(i), h)...)
	}
	return errs
}

// schedulingGates: qualified names, each once; they hold the pod back from the scheduler.
func (s *podSpec) schedulingGates(path *field.Path) field.ErrorList {
	names := make([]string, len(s.SchedulingGates))
	var errs field.ErrorList
	for i, g := range s.SchedulingGates {
		names[i] = g.Name
		errs = append(errs, validation.QualifiedName(path.Index(i).Child("name"), g.Name)...)
	}
	return append(errs, validation.Duplicates(path, names)...)
}

// resourceClaims: the DRA claims the pod's containers may use, each named once and pointing at
// either a claim or a claim template.
func (s *podSpec) resourceClaims(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range s.ResourceClaims {
		p := path.Index(i)
		errs = append(errs, validation.DNSLabel(p.Child("name"), c.Name)...)
		if seen[c.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		}
		seen[c.Name] = true
		switch {
		case c.ResourceClaimName == nil && c.ResourceClaimTemplateName == nil:
			errs = append(errs, field.Invalid(p, validation.Internal(c), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		case c.ResourceClaimName != nil && c.ResourceClaimTemplateName != nil:
			errs = append(errs, field.Invalid(p, validation.Internal(c), "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		errs = append(errs, validation.IfSet(p.Child("resourceClaimName"), c.ResourceClaimName, validation.DNSSubdomain)...)
		errs = append(errs, validation.IfSet(p.Child("resourceClaimTemplateName"), c.ResourceClaimTemplateName, validation.DNSSubdomain)...)
	}
	return errs
}

// hostnameOverride replaces the pod's hostname; it cannot combine with the other ways to set it.
func (s *podSpec) hostnameOverride(path *field.Path) field.ErrorList {
	if s.HostnameOverride == nil {
		return nil
	}
	h := *s.HostnameOverride
	return validation.Join(
		validation.When(s.SetHostnameAsFQDN != nil && *s.SetHostnameAsFQDN, field.Forbidden(path, "may not be specified when setHostnameAsFQDN is true")),
		validation.When(s.HostNetwork, field.Forbidden(path, "may not be specified when hostNetwork is true")),
		validation.When(len(h) > 64, field.TooLong(path, "", 64)),
		validation.DNSSubdomain(path, h),
	)
}
