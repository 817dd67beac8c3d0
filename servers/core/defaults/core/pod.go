package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_PodSpec is what every pod spec gets, in a Pod and in every pod template.
func SetDefaults_PodSpec(spec *corev1.PodSpec) {
	// serviceAccount is the old spelling of serviceAccountName: the new one wins when both are
	// set, and the old one always ends up equal to it.
	fill.Zero(&spec.ServiceAccountName, spec.DeprecatedServiceAccount)
	spec.DeprecatedServiceAccount = spec.ServiceAccountName

	fill.Zero(&spec.DNSPolicy, corev1.DNSClusterFirst)
	fill.Zero(&spec.RestartPolicy, corev1.RestartPolicyAlways)
	fill.Zero(&spec.SchedulerName, corev1.DefaultSchedulerName)
	fill.Nil(&spec.TerminationGracePeriodSeconds, int64(corev1.DefaultTerminationGracePeriodSeconds))
	fill.Nil(&spec.SecurityContext, corev1.PodSecurityContext{})
}

// SetDefaults_Pod is what a Pod gets on top of its spec's defaults. Templates never get these:
// a template stored with them would change every workload's pods on an upgrade.
func SetDefaults_Pod(pod *corev1.Pod) {
	spec := &pod.Spec
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	}
	fill.Nil(&spec.EnableServiceLinks, corev1.DefaultEnableServiceLinks)

	for _, containers := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range containers {
			c := &containers[i]
			requestsFromLimits(&c.Resources)
			if spec.HostNetwork {
				// On the host's network a container port is a host port.
				for j := range c.Ports {
					fill.Zero(&c.Ports[j].HostPort, c.Ports[j].ContainerPort)
				}
			}
			httpActionsSpeakHTTP1(c)
		}
	}
	for i := range spec.EphemeralContainers {
		httpActionsSpeakHTTP1((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// requestsFromLimits makes a container that only sets a limit request as much as it limits.
func requestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for name, limit := range r.Limits {
		if _, requested := r.Requests[name]; !requested {
			r.Requests[name] = limit.DeepCopy()
		}
	}
}

// httpActionsSpeakHTTP1 gives every HTTP probe and lifecycle hook of a container protocol HTTP1
// unless it names one (H2CContainerProbe, GA in v1.37).
func httpActionsSpeakHTTP1(c *corev1.Container) {
	var actions []*corev1.HTTPGetAction
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			actions = append(actions, p.HTTPGet)
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil {
				actions = append(actions, h.HTTPGet)
			}
		}
	}
	for _, a := range actions {
		if a != nil {
			fill.Nil(&a.Protocol, corev1.HTTPProtocolHTTP1)
		}
	}
}

// SetDefaults_PodStatus keeps status.podIP and the first of status.podIPs the same address.
// podIP wins when they disagree: older kubelets write only podIP.
func SetDefaults_PodStatus(status *corev1.PodStatus) {
	switch {
	case status.PodIP != "" && (len(status.PodIPs) == 0 || status.PodIPs[0].IP != status.PodIP):
		status.PodIPs = []corev1.PodIP{{IP: status.PodIP}}
	case status.PodIP == "" && len(status.PodIPs) > 0:
		status.PodIP = status.PodIPs[0].IP
	}
}

// SetDefaults_Container: the image is pulled always when its tag is latest (or it has neither
// tag nor digest), else only when missing; the termination message is read from the usual file.
func SetDefaults_Container(c *corev1.Container) {
	fill.Zero(&c.ImagePullPolicy, pullPolicyFor(c.Image))
	fill.Zero(&c.TerminationMessagePath, corev1.TerminationMessagePathDefault)
	fill.Zero(&c.TerminationMessagePolicy, corev1.TerminationMessageReadFile)
}

// SetDefaults_EphemeralContainer gives an ephemeral container the defaults of any container.
func SetDefaults_EphemeralContainer(e *corev1.EphemeralContainer) {
	SetDefaults_Container((*corev1.Container)(&e.EphemeralContainerCommon))
}

// SetDefaults_Probe: a probe waits one second for an answer, runs every ten, and counts one
// success or three failures.
func SetDefaults_Probe(p *corev1.Probe) {
	fill.Zero(&p.TimeoutSeconds, 1)
	fill.Zero(&p.PeriodSeconds, 10)
	fill.Zero(&p.SuccessThreshold, 1)
	fill.Zero(&p.FailureThreshold, 3)
}

// SetDefaults_HTTPGetAction: a probe or hook asks for / over plain HTTP.
func SetDefaults_HTTPGetAction(a *corev1.HTTPGetAction) {
	fill.Zero(&a.Path, "/")
	fill.Zero(&a.Scheme, corev1.URISchemeHTTP)
}

// SetDefaults_PodLogOptions: `kubectl logs` reads both streams, stdout and stderr
// (PodLogsQuerySplitStreams, GA since v1.35).
func SetDefaults_PodLogOptions(o *corev1.PodLogOptions) {
	fill.Nil(&o.Stream, corev1.LogStreamAll)
}
