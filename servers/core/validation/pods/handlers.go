package pods

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// probes: liveness, readiness and startup probes. A plain init container runs to completion
// before the others start, so it has none.
func (s *podSpec) probes(path *field.Path, c *corev1.Container, plainInit bool) field.ErrorList {
	var errs field.ErrorList
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
		if pr.probe == nil {
			continue
		}
		p := path.Child(pr.name)
		if plainInit {
			errs = append(errs, field.Forbidden(p, "may not be set for init containers without restartPolicy=Always"))
			continue
		}
		errs = append(errs, probe(p, pr.probe)...)
		switch {
		case pr.name != "readinessProbe" && pr.probe.SuccessThreshold != 1:
			// A liveness or startup probe succeeds once: the container lives, or has started.
			errs = append(errs, field.Invalid(p.Child("successThreshold"), pr.probe.SuccessThreshold, "must be 1"))
		case pr.name == "readinessProbe" && pr.probe.TerminationGracePeriodSeconds != nil:
			// A failing readiness probe does not kill the container.
			errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *pr.probe.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	return errs
}

// probe: exactly one way to probe, and counts and periods that are not negative.
func probe(path *field.Path, pr *corev1.Probe) field.ErrorList {
	errs := exactlyOne(path, setMembers(&pr.ProbeHandler), "must specify a handler type", "may not specify more than 1 handler type")
	return validation.Join(errs,
		handlerActions(path, pr.Exec, pr.HTTPGet, pr.TCPSocket),
		validation.IfSet(path.Child("grpc"), pr.GRPC, func(p *field.Path, g corev1.GRPCAction) field.ErrorList {
			return validation.Port(p.Child("port"), g.Port)
		}),
		validation.NonNegative(path.Child("initialDelaySeconds"), int64(pr.InitialDelaySeconds)),
		validation.NonNegative(path.Child("timeoutSeconds"), int64(pr.TimeoutSeconds)),
		validation.NonNegative(path.Child("periodSeconds"), int64(pr.PeriodSeconds)),
		validation.NonNegative(path.Child("successThreshold"), int64(pr.SuccessThreshold)),
		validation.NonNegative(path.Child("failureThreshold"), int64(pr.FailureThreshold)),
		validation.When(pr.TerminationGracePeriodSeconds != nil && *pr.TerminationGracePeriodSeconds <= 0,
			field.Invalid(path.Child("terminationGracePeriodSeconds"), pr.TerminationGracePeriodSeconds, "must be greater than 0")),
	)
}

// handlerActions checks the actions that probes and lifecycle hooks share.
func handlerActions(path *field.Path, exec *corev1.ExecAction, httpGet *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) field.ErrorList {
	var errs field.ErrorList
	if exec != nil && len(exec.Command) == 0 {
		errs = append(errs, field.Required(path.Child("exec", "command"), ""))
	}
	if httpGet != nil {
		p := path.Child("httpGet")
		errs = append(errs, validation.Required(p.Child("path"), httpGet.Path)...)
		errs = append(errs, portNumOrName(p.Child("port"), httpGet.Port)...)
		errs = append(errs, validation.OneOf(p.Child("scheme"), httpGet.Scheme, corev1.URISchemeHTTP, corev1.URISchemeHTTPS)...)
		for _, h := range httpGet.HTTPHeaders {
			errs = append(errs, invalid(p.Child("httpHeaders"), h.Name, utilvalidation.IsHTTPHeaderName(h.Name))...)
		}
	}
	if tcp != nil {
		errs = append(errs, portNumOrName(path.Child("tcpSocket", "port"), tcp.Port)...)
	}
	return errs
}

// portNumOrName: a port by number, or by the name of one of the container's ports.
func portNumOrName(path *field.Path, port intstr.IntOrString) field.ErrorList {
	if port.Type == intstr.String {
		return validation.PortName(path, port.StrVal)
	}
	return validation.Port(path, port.IntVal)
}

// lifecycle: the hooks after start and before stop, and the signal that stops the container.
func (s *podSpec) lifecycle(path *field.Path, l *corev1.Lifecycle, plainInit bool) field.ErrorList {
	if l == nil {
		return nil
	}
	if plainInit {
		return field.ErrorList{field.Forbidden(path, "may not be set for init containers without restartPolicy=Always")}
	}
	return validation.Join(
		validation.IfSet(path.Child("postStart"), l.PostStart, s.lifecycleHandler),
		validation.IfSet(path.Child("preStop"), l.PreStop, s.lifecycleHandler),
		validation.IfSet(path.Child("stopSignal"), l.StopSignal, s.stopSignal),
	)
}

func (s *podSpec) lifecycleHandler(path *field.Path, h corev1.LifecycleHandler) field.ErrorList {
	errs := exactlyOne(path, setMembers(&h), "must specify a handler type", "may not specify more than 1 handler type")
	errs = append(errs, handlerActions(path, h.Exec, h.HTTPGet, h.TCPSocket)...)
	// A sleeping preStop hook must end before the kubelet kills the container anyway.
	if grace := s.TerminationGracePeriodSeconds; h.Sleep != nil && grace != nil && (h.Sleep.Seconds < 0 || h.Sleep.Seconds > *grace) {
		errs = append(errs, field.Invalid(path.Child("sleep"), h.Sleep.Seconds,
			fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *grace)))
	}
	return errs
}

// stopSignal: which signals exist depends on the OS, which the pod must then name.
func (s *podSpec) stopSignal(path *field.Path, signal corev1.Signal) field.ErrorList {
	switch {
	case s.OS == nil:
		return field.ErrorList{field.Forbidden(path, "may not be set for containers with empty `spec.os.name`")}
	case s.OS.Name == corev1.Windows:
		return validation.OneOf(path, signal, corev1.SIGKILL, corev1.SIGTERM)
	case s.OS.Name == corev1.Linux:
		return validation.OneOf(path, signal, linuxSignals()...)
	}
	return nil
}

// linuxSignals lists the signals a Linux container may be stopped with, sorted.
func linuxSignals() []corev1.Signal {
	names := strings.Fields(`SIGABRT SIGALRM SIGBUS SIGCHLD SIGCLD SIGCONT SIGFPE SIGHUP SIGILL SIGINT SIGIO
		SIGIOT SIGKILL SIGPIPE SIGPOLL SIGPROF SIGPWR SIGQUIT SIGSEGV SIGSTKFLT SIGSTOP SIGSYS SIGTERM
		SIGTRAP SIGTSTP SIGTTIN SIGTTOU SIGURG SIGUSR1 SIGUSR2 SIGVTALRM SIGWINCH SIGXCPU SIGXFSZ
		SIGRTMIN SIGRTMAX`)
	for i := 1; i <= 15; i++ {
		names = append(names, fmt.Sprintf("SIGRTMIN+%d", i))
	}
	for i := 1; i <= 14; i++ {
		names = append(names, fmt.Sprintf("SIGRTMAX-%d", i))
	}
	sort.Strings(names)
	signals := make([]corev1.Signal, len(names))
	for i, n := range names {
		signals[i] = corev1.Signal(n)
	}
	return signals
}
