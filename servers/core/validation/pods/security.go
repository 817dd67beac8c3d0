package pods

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// podSecurityContext: user and group IDs, sysctls and the security profiles of the pod, in the
// order of the PodSecurityContext's fields.
func (s *podSpec) podSecurityContext(path *field.Path) field.ErrorList {
	sc := s.SecurityContext
	if sc == nil {
		return nil
	}
	errs := validation.Join(
		windowsOptions(path.Child("windowsOptions"), sc.WindowsOptions),
		validation.IfSet(path.Child("runAsUser"), sc.RunAsUser, userID),
		validation.IfSet(path.Child("runAsGroup"), sc.RunAsGroup, groupID),
	)
	for i, g := range sc.SupplementalGroups {
		errs = append(errs, groupID(path.Child("supplementalGroups").Index(i), g)...)
	}
	return validation.Join(errs,
		validation.IfSet(path.Child("supplementalGroupsPolicy"), sc.SupplementalGroupsPolicy, func(p *field.Path, v corev1.SupplementalGroupsPolicy) field.ErrorList {
			return validation.OneOf(p, v, corev1.SupplementalGroupsPolicyMerge, corev1.SupplementalGroupsPolicyStrict)
		}),
		validation.IfSet(path.Child("fsGroup"), sc.FSGroup, groupID),
		s.sysctls(path.Child("sysctls"), sc.Sysctls),
		validation.IfSet(path.Child("fsGroupChangePolicy"), sc.FSGroupChangePolicy, func(p *field.Path, v corev1.PodFSGroupChangePolicy) field.ErrorList {
			return validation.OneOf(p, v, corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch)
		}),
		seccompProfile(path.Child("seccompProfile"), sc.SeccompProfile),
		appArmorProfile(path.Child("appArmorProfile"), sc.AppArmorProfile),
		validation.IfSet(path.Child("seLinuxChangePolicy"), sc.SELinuxChangePolicy, func(p *field.Path, v corev1.PodSELinuxChangePolicy) field.ErrorList {
			return validation.OneOf(p, v, corev1.SELinuxChangePolicyMountOption, corev1.SELinuxChangePolicyRecursive)
		}),
	)
}

// securityContext: a container's, in the order of the SecurityContext's fields.
func (s *podSpec) securityContext(path *field.Path, sc *corev1.SecurityContext) field.ErrorList {
	if sc == nil {
		return nil
	}
	noEscalation := sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
	privileged := sc.Privileged != nil && *sc.Privileged
	sysAdmin := sc.Capabilities != nil && contains(sc.Capabilities.Add, "CAP_SYS_ADMIN")
	return validation.Join(
		windowsOptions(path.Child("windowsOptions"), sc.WindowsOptions),
		validation.IfSet(path.Child("runAsUser"), sc.RunAsUser, userID),
		validation.IfSet(path.Child("runAsGroup"), sc.RunAsGroup, groupID),
		// A privileged process, or one with CAP_SYS_ADMIN, can escalate whatever the flag says.
		validation.When(noEscalation && privileged, field.Invalid(path, validation.Internal(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")),
		validation.When(noEscalation && sysAdmin, field.Invalid(path, validation.Internal(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN")),
		validation.IfSet(path.Child("procMount"), sc.ProcMount, s.procMount),
		seccompProfile(path.Child("seccompProfile"), sc.SeccompProfile),
		appArmorProfile(path.Child("appArmorProfile"), sc.AppArmorProfile),
	)
}

func userID(path *field.Path, id int64) field.ErrorList {
	return invalid(path, id, utilvalidation.IsValidUserID(id))
}

func groupID(path *field.Path, id int64) field.ErrorList {
	return invalid(path, id, utilvalidation.IsValidGroupID(id))
}

// procMount: an unmasked /proc is safe only inside a user namespace.
func (s *podSpec) procMount(path *field.Path, pm corev1.ProcMountType) field.ErrorList {
	return validation.Join(
		validation.OneOf(path, pm, corev1.DefaultProcMount, corev1.UnmaskedProcMount),
		validation.When(pm == corev1.UnmaskedProcMount && (s.HostUsers == nil || *s.HostUsers),
			field.Forbidden(path, "`hostUsers` must be false to use `Unmasked`")),
	)
}

// seccompProfile: a type, and a profile file on the node exactly when the type is Localhost.
func seccompProfile(path *field.Path, p *corev1.SeccompProfile) field.ErrorList {
	if p == nil {
		return nil
	}
	errs := validation.OneOf(path.Child("type"), p.Type,
		corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined)
	switch {
	case p.Type == corev1.SeccompProfileTypeLocalhost && (p.LocalhostProfile == nil || *p.LocalhostProfile == ""):
		errs = append(errs, field.Required(path.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case p.Type != corev1.SeccompProfileTypeLocalhost && p.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(path.Child("localhostProfile"), validation.Internal(p), "can only be set when seccomp type is Localhost"))
	}
	return errs
}

// appArmorProfile: like seccomp, a type and a profile name (loaded on the node) for Localhost.
func appArmorProfile(path *field.Path, p *corev1.AppArmorProfile) field.ErrorList {
	if p == nil {
		return nil
	}
	errs := validation.OneOf(path.Child("type"), p.Type,
		corev1.AppArmorProfileTypeLocalhost, corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined)
	profile := path.Child("localhostProfile")
	switch {
	case p.Type == corev1.AppArmorProfileTypeLocalhost && (p.LocalhostProfile == nil || *p.LocalhostProfile == ""):
		errs = append(errs, field.Required(profile, "must be set when AppArmor type is Localhost"))
	case p.Type == corev1.AppArmorProfileTypeLocalhost && strings.TrimSpace(*p.LocalhostProfile) != *p.LocalhostProfile:
		errs = append(errs, field.Invalid(profile, *p.LocalhostProfile, "must not be padded with whitespace"))
	case p.Type != corev1.AppArmorProfileTypeLocalhost && p.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(profile, *p.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
	}
	return errs
}

// windowsOptions: the names given must not be empty strings.
func windowsOptions(path *field.Path, w *corev1.WindowsSecurityContextOptions) field.ErrorList {
	if w == nil {
		return nil
	}
	return validation.Join(
		validation.IfSet(path.Child("gmsaCredentialSpecName"), w.GMSACredentialSpecName, validation.DNSSubdomain),
		validation.When(w.GMSACredentialSpec != nil && *w.GMSACredentialSpec == "",
			field.Invalid(path.Child("gmsaCredentialSpec"), "", "gmsaCredentialSpec cannot be an empty string")),
		validation.When(w.RunAsUserName != nil && *w.RunAsUserName == "",
			field.Invalid(path.Child("runAsUserName"), "", "runAsUserName cannot be an empty string")),
	)
}

// sysctlName is a kernel parameter name, with '.' or '/' between its parts.
var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// sysctls: valid names, each once; a pod sharing the host's network or IPC namespace may not
// set that namespace's parameters, they would change the host's.
func (s *podSpec) sysctls(path *field.Path, sysctls []corev1.Sysctl) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, sc := range sysctls {
		p := path.Index(i).Child("name")
		name := strings.ReplaceAll(sc.Name, "/", ".")
		switch {
		case sc.Name == "":
			errs = append(errs, field.Required(p, ""))
		case len(sc.Name) > 253 || !sysctlName.MatchString(sc.Name):
			errs = append(errs, field.Invalid(p, sc.Name, "must have at most 253 characters and match regex "+sysctlName.String()))
		case seen[name]:
			errs = append(errs, field.Duplicate(p, sc.Name))
		case s.HostNetwork && strings.HasPrefix(name, "net."):
			errs = append(errs, field.Invalid(p, sc.Name, "may not be specified when 'hostNetwork' is true"))
		case s.HostIPC && ipcSysctl(name):
			errs = append(errs, field.Invalid(p, sc.Name, "may not be specified when 'hostIPC' is true"))
		}
		seen[name] = true
	}
	return errs
}

// ipcSysctl: the parameters of the IPC namespace (System V IPC and POSIX message queues).
func ipcSysctl(name string) bool {
	return name == "kernel.sem" || strings.HasPrefix(name, "kernel.shm") || strings.HasPrefix(name, "kernel.msg") ||
		strings.HasPrefix(name, "fs.mqueue.")
}

// osRules: spec.os names the OS the pod is for; the other OS's settings are then refused.
func (s *podSpec) osRules(path *field.Path) field.ErrorList {
	switch {
	case s.OS == nil:
		return nil
	case s.OS.Name == "":
		return field.ErrorList{field.Required(path.Child("os", "name"), "")}
	case s.OS.Name == corev1.Linux:
		return s.linuxOnly(path)
	case s.OS.Name == corev1.Windows:
		return s.windowsOnly(path)
	}
	return field.ErrorList{field.NotSupported(path.Child("os"), s.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows})}
}

// linuxOnly: a Linux pod sets no Windows options.
func (s *podSpec) linuxOnly(path *field.Path) field.ErrorList {
	const msg = "windows options cannot be set for a linux pod"
	errs := validation.When(s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil,
		field.Forbidden(path.Child("securityContext", "windowsOptions"), msg))
	s.eachContainer(path, func(p *field.Path, c *corev1.Container) {
		errs = append(errs, validation.When(c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil,
			field.Forbidden(p.Child("securityContext", "windowsOptions"), msg))...)
	})
	return errs
}

// windowsOnly: a Windows pod sets none of the Linux namespaces, IDs and profiles.
func (s *podSpec) windowsOnly(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbid := func(p *field.Path, set bool) {
		errs = append(errs, validation.When(set, field.Forbidden(p, "cannot be set for a windows pod"))...)
	}
	if sc := s.SecurityContext; sc != nil {
		p := path.Child("securityContext")
		forbid(p.Child("seLinuxOptions"), sc.SELinuxOptions != nil)
		forbid(p.Child("runAsUser"), sc.RunAsUser != nil)
		forbid(p.Child("runAsGroup"), sc.RunAsGroup != nil)
		forbid(p.Child("supplementalGroups"), len(sc.SupplementalGroups) > 0)
		forbid(p.Child("supplementalGroupsPolicy"), sc.SupplementalGroupsPolicy != nil)
		forbid(p.Child("fsGroup"), sc.FSGroup != nil)
		forbid(p.Child("sysctls"), len(sc.Sysctls) > 0)
		forbid(p.Child("fsGroupChangePolicy"), sc.FSGroupChangePolicy != nil)
		forbid(p.Child("seccompProfile"), sc.SeccompProfile != nil)
		forbid(p.Child("appArmorProfile"), sc.AppArmorProfile != nil)
		forbid(p.Child("seLinuxChangePolicy"), sc.SELinuxChangePolicy != nil)
	}
	forbid(path.Child("hostUsers"), s.HostUsers != nil)
	forbid(path.Child("hostPID"), s.HostPID)
	forbid(path.Child("hostIPC"), s.HostIPC)
	forbid(path.Child("shareProcessNamespace"), s.ShareProcessNamespace != nil && *s.ShareProcessNamespace)
	s.eachContainer(path, func(p *field.Path, c *corev1.Container) {
		sc := c.SecurityContext
		if sc == nil {
			return
		}
		p = p.Child("securityContext")
		forbid(p.Child("capabilities"), sc.Capabilities != nil)
		forbid(p.Child("privileged"), sc.Privileged != nil)
		forbid(p.Child("seLinuxOptions"), sc.SELinuxOptions != nil)
		forbid(p.Child("runAsUser"), sc.RunAsUser != nil)
		forbid(p.Child("runAsGroup"), sc.RunAsGroup != nil)
		forbid(p.Child("readOnlyRootFilesystem"), sc.ReadOnlyRootFilesystem != nil)
		forbid(p.Child("allowPrivilegeEscalation"), sc.AllowPrivilegeEscalation != nil)
		forbid(p.Child("procMount"), sc.ProcMount != nil)
		forbid(p.Child("seccompProfile"), sc.SeccompProfile != nil)
		forbid(p.Child("appArmorProfile"), sc.AppArmorProfile != nil)
	})
	return errs
}

// userNamespace: a pod in its own user namespace (hostUsers: false) cannot share the host's
// network, PID or IPC namespace. kube-apiserver spells two of these paths with capitals.
func (s *podSpec) userNamespace(path *field.Path) field.ErrorList {
	if s.HostUsers == nil || *s.HostUsers {
		return nil
	}
	const msg = "when `hostUsers` is false"
	return validation.Join(
		validation.When(s.HostNetwork, field.Forbidden(path.Child("hostNetwork"), msg)),
		validation.When(s.HostPID, field.Forbidden(path.Child("HostPID"), msg)),
		validation.When(s.HostIPC, field.Forbidden(path.Child("HostIPC"), msg)),
	)
}

// eachContainer calls f with every init and regular container and its path.
func (s *podSpec) eachContainer(path *field.Path, f func(*field.Path, *corev1.Container)) {
	for i := range s.InitContainers {
		f(path.Child("initContainers").Index(i), &s.InitContainers[i])
	}
	for i := range s.Containers {
		f(path.Child("containers").Index(i), &s.Containers[i])
	}
}
