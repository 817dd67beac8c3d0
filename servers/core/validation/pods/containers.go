package pods

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// containerList checks the init or the regular containers. Names are unique across both lists.
func (s *podSpec) containerList(path *field.Path, list []corev1.Container, init bool) field.ErrorList {
	seen := map[string]bool{}
	if init {
		for _, c := range s.Containers {
			seen[c.Name] = true
		}
	}
	var errs field.ErrorList
	for i := range list {
		c, p := &list[i], path.Index(i)
		errs = append(errs, uniqueLabel(p.Child("name"), c.Name, seen)...)
		errs = append(errs, s.container(p, c, init)...)
	}
	return errs
}

// container is the rule list of one container, in the order of its fields.
func (s *podSpec) container(path *field.Path, c *corev1.Container, init bool) field.ErrorList {
	// An init container that restarts always is a sidecar: it runs beside the others, so it may
	// have probes and lifecycle hooks; a plain init container runs to completion first.
	sidecar := init && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
	return validation.Join(
		validation.Required(path.Child("image"), c.Image),
		validation.When(s.isPod && strings.TrimSpace(c.Image) != c.Image,
			field.Invalid(path.Child("image"), c.Image, "must not have leading or trailing whitespace")),
		s.ports(path.Child("ports"), c.Ports),
		envFrom(path.Child("envFrom"), c.EnvFrom),
		validation.Each(path.Child("env"), c.Env, s.envVar),
		s.containerResources(path.Child("resources"), &c.Resources),
		s.resizePolicy(path.Child("resizePolicy"), c.ResizePolicy, init && !sidecar),
		restartRules(path, c.RestartPolicy, c.RestartPolicyRules),
		s.volumeMounts(path.Child("volumeMounts"), c),
		s.volumeDevices(path.Child("volumeDevices"), c),
		s.probes(path, c, init && !sidecar),
		s.lifecycle(path.Child("lifecycle"), c.Lifecycle, init && !sidecar),
		validation.OneOf(path.Child("terminationMessagePolicy"), c.TerminationMessagePolicy,
			corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError),
		validation.OneOf(path.Child("imagePullPolicy"), c.ImagePullPolicy, corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever),
		s.securityContext(path.Child("securityContext"), c.SecurityContext),
	)
}

// ports: valid and unique names, port numbers, protocols; with the host's network, a host port
// is the container port.
func (s *podSpec) ports(path *field.Path, ports []corev1.ContainerPort) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := path.Index(i)
		if port.Name != "" {
			errs = append(errs, validation.PortName(p.Child("name"), port.Name)...)
			if names[port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			errs = append(errs, validation.Port(p.Child("containerPort"), port.ContainerPort)...)
		}
		if port.HostPort != 0 {
			errs = append(errs, validation.Port(p.Child("hostPort"), port.HostPort)...)
			if s.HostNetwork && port.HostPort != port.ContainerPort {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
		errs = append(errs, validation.OneOf(p.Child("protocol"), port.Protocol, corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP)...)
	}
	return errs
}

// hostPortConflicts: two regular containers cannot listen on one host port, IP and protocol.
func (s *podSpec) hostPortConflicts(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	taken := map[string]bool{}
	for i, c := range s.Containers {
		for j, port := range c.Ports {
			if port.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", port.Protocol, port.HostIP, port.HostPort)
			if taken[key] {
				errs = append(errs, field.Duplicate(path.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			taken[key] = true
		}
	}
	return errs
}

// resizePolicy says per resource whether an in-place resize restarts the container.
// kube-apiserver reports these at resizePolicy, without the index.
func (s *podSpec) resizePolicy(path *field.Path, policies []corev1.ContainerResizePolicy, plainInit bool) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.ResourceName]bool{}
	for i, rp := range policies {
		if seen[rp.ResourceName] {
			errs = append(errs, field.Duplicate(path.Index(i), rp.ResourceName))
		}
		seen[rp.ResourceName] = true
		errs = append(errs, validation.OneOf(path, rp.ResourceName, corev1.ResourceCPU, corev1.ResourceMemory)...)
		errs = append(errs, validation.OneOf(path, rp.RestartPolicy, corev1.NotRequired, corev1.RestartContainer)...)
		if s.RestartPolicy == corev1.RestartPolicyNever && rp.RestartPolicy != corev1.NotRequired {
			errs = append(errs, field.Invalid(path, rp.RestartPolicy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
		if plainInit && rp.RestartPolicy == corev1.RestartContainer {
			errs = append(errs, field.Invalid(path.Index(i).Child("restartPolicy"), rp.RestartPolicy, "must not be set to 'RestartContainer' for non-sidecar initContainers"))
		}
	}
	return errs
}

// restartRules: a container's own restart policy, and the exit codes that make it restart
// anyway (ContainerRestartRules is beta and on in v1.37).
func restartRules(path *field.Path, policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule) field.ErrorList {
	var errs field.ErrorList
	switch {
	case policy == nil && len(rules) > 0:
		errs = append(errs, field.Required(path.Child("restartPolicy"), "must specify restartPolicy when restart rules are used"))
	case policy != nil:
		errs = append(errs, validation.OneOf(path.Child("restartPolicy"), *policy,
			corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure)...)
	}
	rulesPath := path.Child("restartPolicyRules")
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(rulesPath, len(rules), 20))
	}
	for i, r := range rules {
		p := rulesPath.Index(i)
		errs = append(errs, validation.OneOf(p.Child("action"), r.Action,
			corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleActionRestartAllContainers)...)
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(p.Child("exitCodes"), "must be specified"))
			continue
		}
		errs = append(errs, validation.OneOf(p.Child("exitCodes", "operator"), r.ExitCodes.Operator,
			corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleOnExitCodesOpNotIn)...)
		if len(r.ExitCodes.Values) > 255 {
			errs = append(errs, field.TooMany(p.Child("exitCodes", "values"), len(r.ExitCodes.Values), 255))
		}
	}
	return errs
}

// volumeMounts: each names a volume of the pod and a unique path; a subPath stays inside the
// volume. kube-apiserver reports subPath errors at volumeMounts.subPath, without the index.
func (s *podSpec) volumeMounts(path *field.Path, c *corev1.Container) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	devices := map[string]bool{}
	for _, d := range c.VolumeDevices {
		devices[d.DevicePath] = true
	}
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	for i, m := range c.VolumeMounts {
		p := path.Index(i)
		switch {
		case m.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case s.volumes[m.Name] == nil:
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		errs = append(errs, uniquePath(p.Child("mountPath"), m.MountPath, paths, devices, "must not already exist as a path in volumeDevices")...)
		if m.SubPath != "" {
			errs = append(errs, relativePath(path.Child("subPath"), m.SubPath)...)
		}
		if m.SubPathExpr != "" {
			errs = append(errs, validation.When(m.SubPath != "", field.Invalid(p.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))...)
			errs = append(errs, relativePath(path.Child("subPathExpr"), m.SubPathExpr)...)
		}
		if m.MountPropagation != nil {
			errs = append(errs, validation.OneOf(p.Child("mountPropagation"), *m.MountPropagation,
				corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone)...)
			errs = append(errs, validation.When(*m.MountPropagation == corev1.MountPropagationBidirectional && !privileged,
				field.Forbidden(p.Child("mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"))...)
		}
		errs = append(errs, recursiveReadOnly(p.Child("recursiveReadOnly"), &m)...)
	}
	return errs
}

// recursiveReadOnly makes every mount below a read-only mount read-only too.
func recursiveReadOnly(path *field.Path, m *corev1.VolumeMount) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	rro := *m.RecursiveReadOnly
	errs := validation.OneOf(path, rro, corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyIfPossible, corev1.RecursiveReadOnlyEnabled)
	if rro == corev1.RecursiveReadOnlyDisabled {
		return errs
	}
	propagated := m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone
	return validation.Join(errs,
		validation.When(!m.ReadOnly, field.Forbidden(path, "may only be specified when readOnly is true")),
		validation.When(propagated, field.Forbidden(path, "may only be specified when mountPropagation is None or not specified")))
}

// volumeDevices: raw block devices from claims, at unique paths that are not mount paths.
func (s *podSpec) volumeDevices(path *field.Path, c *corev1.Container) field.ErrorList {
	var errs field.ErrorList
	mountedVolumes, mountPaths := map[string]bool{}, map[string]bool{}
	for _, m := range c.VolumeMounts {
		mountedVolumes[m.Name], mountPaths[m.MountPath] = true, true
	}
	devicePaths := map[string]bool{}
	for i, d := range c.VolumeDevices {
		p := path.Index(i)
		source := s.volumes[d.Name]
		switch {
		case d.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case source == nil:
			errs = append(errs, field.NotFound(p.Child("name"), d.Name))
		case source.PersistentVolumeClaim == nil && source.Ephemeral == nil:
			errs = append(errs, field.Invalid(p.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		case mountedVolumes[d.Name]:
			errs = append(errs, field.Invalid(p.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		errs = append(errs, uniquePath(p.Child("devicePath"), d.DevicePath, devicePaths, mountPaths, "must not already exist as a path in volumeMounts")...)
		errs = append(errs, noBacksteps(p.Child("devicePath"), d.DevicePath)...)
	}
	return errs
}
