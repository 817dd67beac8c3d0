package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

const labelMsg = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`

func ctr(p *corev1.Pod) *corev1.Container { return &p.Spec.Containers[0] }

func TestPodCreate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*corev1.Pod)
		want []string
	}{
		{"valid", nil, nil},
		{"valid: init and sidecar containers, volumes, mounts, probes, env", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}, {Name: "side", Image: "busybox",
				RestartPolicy:  ptr.To(corev1.ContainerRestartPolicyAlways),
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}}}
			p.Spec.Volumes = []corev1.Volume{{Name: "data"}, {Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}
			ctr(p).VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "cfg", MountPath: "/cfg", SubPath: "x"}}
			ctr(p).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("http")}}}
			ctr(p).Env = []corev1.EnvVar{{Name: "A", Value: "b"}, {Name: "POD", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}, {Name: "APP", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}}}
		}, nil},

		// metadata
		{"name", func(p *corev1.Pod) { p.Name = "Bad_Name" }, []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`}},
		{"label key", func(p *corev1.Pod) { p.Labels = map[string]string{"bad key!": "v"} }, []string{`metadata.labels: Invalid value: "bad key!": name part must consist of`}},
		{"deletion cost", func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.PodDeletionCost: "010"} },
			[]string{`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "010": must be a 32bit integer`}},
		{"mirror pod without node", func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"} },
			[]string{`metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set`}},

		// containers
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{`spec.containers: Required value`}},
		{"container name required", func(p *corev1.Pod) { ctr(p).Name = "" }, []string{`spec.containers[0].name: Required value`}},
		{"container name a DNS label", func(p *corev1.Pod) { ctr(p).Name = "Bad_Name" }, []string{`spec.containers[0].name: Invalid value: "Bad_Name": ` + labelMsg}},
		{"container names unique across init and regular", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c", Image: "x"})
			p.Spec.InitContainers = []corev1.Container{{Name: "c", Image: "x"}}
		}, []string{`spec.initContainers[0].name: Duplicate value: "c"`, `spec.containers[1].name: Duplicate value: "c"`}},
		{"image required", func(p *corev1.Pod) { ctr(p).Image = "" }, []string{`spec.containers[0].image: Required value`}},
		{"image whitespace", func(p *corev1.Pod) { ctr(p).Image = " nginx" },
			[]string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"ports", func(p *corev1.Pod) {
			ctr(p).Ports = []corev1.ContainerPort{
				{Name: "http", ContainerPort: 80},
				{Name: "http", ContainerPort: 70000, HostPort: -1},
				{Name: "Bad_Name", ContainerPort: 81, Protocol: "HTTP"},
				{Name: "a-very-long-port-name"},
			}
		}, []string{
			`spec.containers[0].ports[1].name: Duplicate value: "http"`,
			`spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
			`spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`,
			`spec.containers[0].ports[2].name: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			`spec.containers[0].ports[2].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			`spec.containers[0].ports[3].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters`,
			`spec.containers[0].ports[3].containerPort: Required value`,
		}},
		{"host port taken twice", func(p *corev1.Pod) {
			ctr(p).Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}, {ContainerPort: 81, HostPort: 8080}}
		}, []string{`spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//8080"`}},
		{"host network: host port is the container port", func(p *corev1.Pod) { p.Spec.HostNetwork = true; ctr(p).Ports[0].HostPort = 8080 },
			[]string{"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"}},
		{"env", func(p *corev1.Pod) {
			ctr(p).Env = []corev1.EnvVar{
				{Name: ""},
				{Name: "a=b"},
				{Name: "C", Value: "x", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}},
				{Name: "D", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.phase"}}},
				{Name: "E", ValueFrom: &corev1.EnvVarSource{}},
				{Name: "F", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nothing"}}},
				{Name: "G", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
				{Name: "H", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu", Divisor: resource.MustParse("1Mi")}}},
			}
		}, []string{
			`spec.containers[0].env[0].name: Required value`,
			`spec.containers[0].env[1].name: Invalid value: "a=b": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			"spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
			`spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
			"spec.containers[0].env[4].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
			`spec.containers[0].env[5].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nothing": error converting fieldPath: field label not supported: spec.nothing`,
			`spec.containers[0].env[6].valueFrom.configMapKeyRef.key: Required value`,
			`spec.containers[0].env[7].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
		}},
		{"envFrom", func(p *corev1.Pod) {
			ctr(p).EnvFrom = []corev1.EnvFromSource{{Prefix: "A="}, {ConfigMapRef: &corev1.ConfigMapEnvSource{}}}
		}, []string{
			`spec.containers[0].envFrom[0].prefix: Invalid value: "A=": a valid environment variable name`,
			"spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`",
			`spec.containers[0].envFrom[1].configMapRef.name: Required value`,
		}},
		{"requests within limits", func(p *corev1.Pod) {
			ctr(p).Resources = corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			}
		}, []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"resource names", func(p *corev1.Pod) {
			ctr(p).Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"foo": resource.MustParse("1"), "foo/bar/baz": resource.MustParse("1")}}
		}, []string{
			`spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
			`spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource for containers`,
			`spec.containers[0].resources.limits[foo/bar/baz]: Invalid value: "foo/bar/baz": a valid label key must consist of`,
			`spec.containers[0].resources.limits[foo/bar/baz]: Invalid value: "foo/bar/baz": doesn't follow extended resource name standard`,
			`spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
			`spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers`,
			`spec.containers[0].resources.requests[foo/bar/baz]: Invalid value: "foo/bar/baz": a valid label key must consist of`,
			`spec.containers[0].resources.requests[foo/bar/baz]: Invalid value: "foo/bar/baz": doesn't follow extended resource name standard`,
		}},
		{"negative memory", func(p *corev1.Pod) {
			ctr(p).Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1Gi")}}
		}, []string{
			`spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
			`spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
		}},
		{"extended resources: whole units, request equals limit", func(p *corev1.Pod) {
			ctr(p).Resources = corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{"example.com/gpu": resource.MustParse("2")},
				Requests: corev1.ResourceList{"example.com/gpu": resource.MustParse("1"), "example.com/fpga": resource.MustParse("500m")},
			}
		}, []string{
			`spec.containers[0].resources.requests[example.com/fpga]: Invalid value: "500m": must be an integer`,
			`spec.containers[0].resources.limits[example.com/fpga]: Required value: Limit must be set for non overcommitable resources`,
			`spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`,
		}},
		{"huge pages", func(p *corev1.Pod) {
			ctr(p).Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"hugepages-2Mi": resource.MustParse("3Mi")}}
		}, []string{
			`spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			`spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			`spec.containers[0].resources: Forbidden: HugePages require cpu or memory`,
		}},
		{"resize policy", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			ctr(p).ResizePolicy = []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.RestartContainer}, {ResourceName: "gpu", RestartPolicy: corev1.NotRequired}}
		}, []string{
			"spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'",
			`spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"`,
		}},
		{"container restart rules", func(p *corev1.Pod) {
			ctr(p).RestartPolicyRules = []corev1.ContainerRestartRule{{Action: "Explode"}}
		}, []string{
			`spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used`,
			`spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Explode": supported values: "Restart", "RestartAllContainers"`,
			`spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified`,
		}},
		{"volume mounts", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data"}}
			ctr(p).VolumeMounts = []corev1.VolumeMount{
				{Name: "missing", MountPath: "/a"},
				{Name: "data", MountPath: ""},
				{Name: "data", MountPath: "/a", SubPath: "/abs"},
				{Name: "data", MountPath: "/b", MountPropagation: ptr.To(corev1.MountPropagationBidirectional)},
			}
		}, []string{
			`spec.containers[0].volumeMounts[0].name: Not found: "missing"`,
			`spec.containers[0].volumeMounts[1].mountPath: Required value`,
			`spec.containers[0].volumeMounts[2].mountPath: Invalid value: "/a": must be unique`,
			`spec.containers[0].volumeMounts.subPath: Invalid value: "/abs": must be a relative path`,
			`spec.containers[0].volumeMounts[3].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers`,
		}},
		{"volume devices", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data"}}
			ctr(p).VolumeDevices = []corev1.VolumeDevice{{Name: "data", DevicePath: "/dev/x"}, {Name: "nope"}}
		}, []string{
			`spec.containers[0].volumeDevices[0].name: Invalid value: "data": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode`,
			`spec.containers[0].volumeDevices[1].name: Not found: "nope"`,
			`spec.containers[0].volumeDevices[1].devicePath: Required value`,
		}},
		{"probes", func(p *corev1.Pod) {
			ctr(p).LivenessProbe = &corev1.Probe{SuccessThreshold: 2}
			ctr(p).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("too-long-port-name")}},
				TerminationGracePeriodSeconds: ptr.To[int64](5), PeriodSeconds: -1}
			ctr(p).StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}, HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}}
		}, []string{
			`spec.containers[0].livenessProbe: Required value: must specify a handler type`,
			`spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`,
			`spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "too-long-port-name": must be no more than 15 characters`,
			`spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
			`spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
			`spec.containers[0].startupProbe.httpGet: Forbidden: may not specify more than 1 handler type`,
		}},
		{"init container probes need restartPolicy Always", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x",
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}},
				Lifecycle:     &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}}}}}
		}, []string{
			`spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`,
			`spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always`,
		}},
		{"lifecycle", func(p *corev1.Pod) {
			ctr(p).Lifecycle = &corev1.Lifecycle{
				PostStart:  &corev1.LifecycleHandler{Exec: &corev1.ExecAction{}, HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http"), Scheme: "FTP"}},
				PreStop:    &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 60}},
				StopSignal: ptr.To(corev1.SIGTERM),
			}
		}, []string{
			`spec.containers[0].lifecycle.postStart.httpGet: Forbidden: may not specify more than 1 handler type`,
			`spec.containers[0].lifecycle.postStart.exec.command: Required value`,
			`spec.containers[0].lifecycle.postStart.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
			`spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)`,
			"spec.containers[0].lifecycle.stopSignal: Forbidden: may not be set for containers with empty `spec.os.name`",
		}},
		{"empty lifecycle handler", func(p *corev1.Pod) { ctr(p).Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{}} },
			[]string{`spec.containers[0].lifecycle.preStop: Required value: must specify a handler type`}},
		{"pull and termination message policies", func(p *corev1.Pod) {
			ctr(p).ImagePullPolicy = "Sometimes"
			ctr(p).TerminationMessagePolicy = "Maybe"
		}, []string{
			`spec.containers[0].terminationMessagePolicy: Unsupported value: "Maybe": supported values: "File", "FallbackToLogsOnError"`,
			`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
		}},

		// pod-level fields
		{"restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"active deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) },
			[]string{`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`}},
		{"dns policy", func(p *corev1.Pod) { p.Spec.DNSPolicy = "Nope" },
			[]string{`spec.dnsPolicy: Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"dns policy None needs a dnsConfig", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone },
			[]string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"dns config", func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "bad"}, Searches: []string{"a_b.example.com.", "-bad"}, Options: []corev1.PodDNSConfigOption{{}}}
		}, []string{
			`spec.dnsConfig.nameservers[1]: Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`spec.dnsConfig.searches[1]: Invalid value: "-bad": a lowercase RFC 1123 subdomain must consist of`,
			`spec.dnsConfig.options[0]: Required value: must not be empty`,
		}},
		{"node selector", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"bad key": "v"} },
			[]string{`spec.nodeSelector: Invalid value: "bad key": name part must consist of`}},
		{"service account name", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "Bad_Name" },
			[]string{`spec.serviceAccountName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`}},
		{"node name with scheduling gates", func(p *corev1.Pod) {
			p.Spec.NodeName = "n1"
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
		}, []string{`spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared`}},
		{"hostname and subdomain", func(p *corev1.Pod) { p.Spec.Hostname = "Not_A_Label"; p.Spec.Subdomain = "a.b" }, []string{
			`spec.hostname: Invalid value: "Not_A_Label": ` + labelMsg,
			`spec.subdomain: Invalid value: "a.b": must not contain dots`,
		}},
		{"host aliases", func(p *corev1.Pod) { p.Spec.HostAliases = []corev1.HostAlias{{IP: "nope", Hostnames: []string{"-x"}}} }, []string{
			`spec.hostAliases[0].ip: Invalid value: "nope": must be a valid IP address`,
			`spec.hostAliases[0].hostnames[0]: Invalid value: "-x": a lowercase RFC 1123 subdomain`,
		}},
		{"readiness and scheduling gates", func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "bad gate"}}
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}, {Name: "g"}}
		}, []string{
			`spec.readinessGates[0].conditionType: Invalid value: "bad gate": name part must consist of`,
			`spec.schedulingGates[1]: Duplicate value: "g"`,
		}},
		{"ephemeral containers on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
		}, []string{`spec.ephemeralContainers: Forbidden: cannot be set on create`}},
		{"resource claims", func(p *corev1.Pod) {
			p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu-claim")}, {Name: "gpu"}}
			ctr(p).Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}, {Name: "missing"}}
		}, []string{
			`spec.containers[0].resources.claims[1]: Not found: "missing": must be one of the names in pod.spec.resourceClaims: gpu`,
			`spec.resourceClaims[1].name: Duplicate value: "gpu"`,
			"spec.resourceClaims[1]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
		}},
		{"pod-level resources", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")},
			}
		}, []string{`spec.resources.requests[cpu]: Invalid value: "50m": must be greater than or equal to aggregate container requests of 100m`}},
		{"pod-level storage is not supported", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}
		}, []string{`spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"`}},
		{"hostname override", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.HostnameOverride = ptr.To("ok")
			ctr(p).Ports = nil
		},
			[]string{`spec.hostnameOverride: Forbidden: may not be specified when hostNetwork is true`}},
	}
	for _, tc := range cases {
		validationtest.Expect(t, tc.name, ValidatePod(pod(t, tc.edit)), tc.want...)
	}
}

func TestBinding(t *testing.T) {
	binding := func(kind, name string) *corev1.Binding {
		return &corev1.Binding{Target: corev1.ObjectReference{Kind: kind, Name: name}}
	}
	validationtest.Expect(t, "valid", ValidateBinding(binding("", "n1")))
	validationtest.Expect(t, "valid kind", ValidateBinding(binding("Node", "n1")))
	validationtest.Expect(t, "kind", ValidateBinding(binding("Pod", "n1")), `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`)
	validationtest.Expect(t, "no node", ValidateBinding(binding("", "")), `target.name: Required value`)
	validationtest.Expect(t, "node name", ValidateBinding(binding("", "Bad_Name")), `target.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`)
}
