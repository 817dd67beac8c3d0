package validation

// Table tests for Pod create validation. Expectations follow kubernetes v1.37.2
// pkg/apis/core/validation/validation.go and validation_test.go
// (TestValidatePodCreate, TestValidateContainers, TestValidatePorts,
// TestValidateEnv, TestValidateVolumes, TestValidateVolumeMounts,
// TestValidateRestartPolicy, TestValidateDNSPolicy, TestValidateResourceRequirements, ...).

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func podWith(mutate func(*v1.Pod)) *v1.Pod {
	p := validPod()
	mutate(p)
	testScheme.Default(p)
	return p
}

func TestValidatePodCreate(t *testing.T) {
	ctr := func(p *v1.Pod) *v1.Container { return &p.Spec.Containers[0] }
	cases := []struct {
		name string
		pod  *v1.Pod
		want []string // prefixes, in order
	}{
		{"valid", validPod(), nil},
		{"valid with init and sidecar containers, volumes and probes", podWith(func(p *v1.Pod) {
			p.Spec.InitContainers = []v1.Container{{Name: "init", Image: "busybox"}, {Name: "side", Image: "busybox", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways),
				ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}}}
			p.Spec.Volumes = []v1.Volume{{Name: "data"}, {Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cm"}}}}}
			ctr(p).VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "cfg", MountPath: "/cfg", SubPath: "x"}}
			ctr(p).LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intOrName("http")}}}
			ctr(p).Env = []v1.EnvVar{{Name: "A", Value: "b"}, {Name: "POD", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}), nil},
		{"container name required", podWith(func(p *v1.Pod) { ctr(p).Name = "" }), []string{`spec.containers[0].name: Required value`}},
		{"container name must be a DNS label", podWith(func(p *v1.Pod) { ctr(p).Name = "Bad_Name" }), []string{
			`spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`,
		}},
		{"container names unique", podWith(func(p *v1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, v1.Container{Name: "c", Image: "x"})
			p.Spec.InitContainers = []v1.Container{{Name: "c", Image: "x"}}
		}), []string{`spec.containers[1].name: Duplicate value: "c"`, `spec.initContainers[0].name: Duplicate value: "c"`}},
		{"image required", podWith(func(p *v1.Pod) { ctr(p).Image = "" }), []string{`spec.containers[0].image: Required value`}},
		{"image whitespace", podWith(func(p *v1.Pod) { ctr(p).Image = " nginx" }), []string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"ports", podWith(func(p *v1.Pod) {
			ctr(p).Ports = []v1.ContainerPort{
				{Name: "http", ContainerPort: 80},
				{Name: "http", ContainerPort: 70000, HostPort: -1},
				{Name: "Bad_Name", ContainerPort: 81, Protocol: "HTTP"},
			}
		}), []string{
			`spec.containers[0].ports[1].name: Duplicate value: "http"`,
			`spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
			`spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`,
			`spec.containers[0].ports[2].name: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			`spec.containers[0].ports[2].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
		}},
		{"host port conflicts", podWith(func(p *v1.Pod) {
			ctr(p).Ports = []v1.ContainerPort{{ContainerPort: 80, HostPort: 8080}, {ContainerPort: 81, HostPort: 8080}}
		}), []string{`spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//8080"`}},
		{"env", podWith(func(p *v1.Pod) {
			ctr(p).Env = []v1.EnvVar{
				{Name: ""},
				{Name: "a=b"},
				{Name: "C", Value: "x", ValueFrom: &v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{LocalObjectReference: v1.LocalObjectReference{Name: "s"}, Key: "k"}}},
				{Name: "D", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "status.phase"}}},
				{Name: "E", ValueFrom: &v1.EnvVarSource{}},
			}
		}), []string{
			`spec.containers[0].env[0].name: Required value`,
			`spec.containers[0].env[1].name: Invalid value: "a=b": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			"spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
			`spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
			"spec.containers[0].env[4].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
		}},
		{"volumes", podWith(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{
				{Name: "a"},
				{Name: "a"},
				{Name: "Bad_Name"},
				{Name: "two", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}, HostPath: &v1.HostPathVolumeSource{Path: "/x"}}},
				{Name: "secret", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{Items: []v1.KeyToPath{{Key: "k", Path: "../x"}}}}},
				{Name: "neg", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("-1"))}}},
			}
		}), []string{
			`spec.volumes[1].name: Duplicate value: "a"`,
			`spec.volumes[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`,
			`spec.volumes[3].hostPath: Forbidden: may not specify more than 1 volume type`,
			`spec.volumes[4].secret.secretName: Required value`,
			`spec.volumes[4].secret.items[0].path: Invalid value: "../x": must not contain '..'`,
			`spec.volumes[5].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`,
		}},
		{"volume mounts", podWith(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "data"}}
			ctr(p).VolumeMounts = []v1.VolumeMount{
				{Name: "missing", MountPath: "/a"},
				{Name: "data", MountPath: ""},
				{Name: "data", MountPath: "/a", SubPath: "/abs"},
			}
		}), []string{
			`spec.containers[0].volumeMounts[0].name: Not found: "missing"`,
			`spec.containers[0].volumeMounts[1].mountPath: Required value`,
			`spec.containers[0].volumeMounts[2].mountPath: Invalid value: "/a": must be unique`,
			`spec.containers[0].volumeMounts.subPath: Invalid value: "/abs": must be a relative path`,
		}},
		{"restart policy", podWith(func(p *v1.Pod) { p.Spec.RestartPolicy = "Sometimes" }), []string{
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
		}},
		{"dns policy", podWith(func(p *v1.Pod) { p.Spec.DNSPolicy = "Nope" }), []string{
			`spec.dnsPolicy: Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
		}},
		{"dns policy None needs dnsConfig", podWith(func(p *v1.Pod) { p.Spec.DNSPolicy = v1.DNSNone }), []string{
			"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
		}},
		{"requests must not exceed limits", podWith(func(p *v1.Pod) {
			ctr(p).Resources = v1.ResourceRequirements{
				Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")},
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")},
			}
		}), []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"resource names", podWith(func(p *v1.Pod) {
			ctr(p).Resources = v1.ResourceRequirements{Limits: v1.ResourceList{"foo": resource.MustParse("1")}}
		}), []string{
			`spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
			`spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource for containers`,
			`spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
			`spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers`,
		}},
		{"extended resources need equal requests and limits", podWith(func(p *v1.Pod) {
			ctr(p).Resources = v1.ResourceRequirements{
				Limits:   v1.ResourceList{"example.com/gpu": resource.MustParse("2")},
				Requests: v1.ResourceList{"example.com/gpu": resource.MustParse("1")},
			}
		}), []string{`spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`}},
		{"probes", podWith(func(p *v1.Pod) {
			ctr(p).LivenessProbe = &v1.Probe{SuccessThreshold: 2}
			ctr(p).ReadinessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intOrName("too-long-port-name")}}, TerminationGracePeriodSeconds: ptr.To[int64](5)}
		}), []string{
			`spec.containers[0].livenessProbe: Required value: must specify a handler type`,
			`spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`,
			`spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "too-long-port-name": must be no more than 15 characters`,
			`spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
		}},
		{"init container probes need restartPolicy Always", podWith(func(p *v1.Pod) {
			p.Spec.InitContainers = []v1.Container{{Name: "init", Image: "x", LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"x"}}}}}}
		}), []string{`spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`}},
		{"ephemeral containers on create", podWith(func(p *v1.Pod) {
			p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
		}), []string{`spec.ephemeralContainers: Forbidden: cannot be set on create`}},
		{"tolerations", podWith(func(p *v1.Pod) {
			p.Spec.Tolerations = []v1.Toleration{
				{Key: "k", Operator: "Lt", Value: "1"},
				{Operator: v1.TolerationOpEqual, Value: "v"},
				{Key: "k", Operator: v1.TolerationOpExists, Value: "v", TolerationSeconds: ptr.To[int64](1), Effect: v1.TaintEffectNoSchedule},
			}
		}), []string{
			`spec.tolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`,
			"spec.tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
			"spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			"spec.tolerations[2].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
		}},
		{"host network ports", podWith(func(p *v1.Pod) { p.Spec.HostNetwork = true; ctr(p).Ports[0].HostPort = 8080 }), []string{
			"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true",
		}},
		{"active deadline", podWith(func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) }), []string{
			`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`,
		}},
		{"node name with scheduling gates", podWith(func(p *v1.Pod) {
			p.Spec.NodeName = "n1"
			p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/gate"}}
		}), []string{`spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared`}},
		{"privileged containers are allowed (--allow-privileged=true, as kubeadm and envtest run)", podWith(func(p *v1.Pod) {
			ctr(p).SecurityContext = &v1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To[int64](-1)}
		}), []string{
			`spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
		}},
		{"projected token needs service account", podWith(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "tok", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
		}), []string{`spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set`}},
		{"deletion cost annotation", podWith(func(p *v1.Pod) { p.Annotations = map[string]string{v1.PodDeletionCost: "010"} }), []string{
			`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "010": must be a 32bit integer`,
		}},
		{"affinity and topology spread", podWith(func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}}
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 0, WhenUnsatisfiable: v1.DoNotSchedule}}
		}), []string{
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`,
			`spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero`,
			`spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty`,
		}},
		{"ephemeral volume", podWith(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{}}}}}
		}), []string{
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required`,
			`spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value`,
		}},
		{"hugepages need cpu or memory", podWith(func(p *v1.Pod) {
			ctr(p).Resources = v1.ResourceRequirements{Limits: v1.ResourceList{"hugepages-2Mi": resource.MustParse("3Mi")}}
		}), []string{
			`spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			`spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			`spec.containers[0].resources: Forbidden: HugePages require cpu or memory`,
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidatePod(tc.pod), tc.want)
	}
}

func TestValidateVolumeSourceRequired(t *testing.T) {
	// Defaulting turns an empty volume source into emptyDir; without defaulting
	// the source is required.
	_, errs := validateVolumes([]v1.Volume{{Name: "v"}}, nil, field.NewPath("spec", "volumes"), podValidationOptions{})
	expectErrors(t, "no source", errs, []string{`spec.volumes[0]: Required value: must specify a volume type`})
}

func TestValidatePodBinding(t *testing.T) {
	binding := func(kind, name string) *v1.Binding {
		return &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Target: v1.ObjectReference{Kind: kind, Name: name}}
	}
	expectErrors(t, "valid", ValidatePodBinding(binding("", "n1")), nil)
	expectErrors(t, "valid kind", ValidatePodBinding(binding("Node", "n1")), nil)
	expectErrors(t, "bad kind", ValidatePodBinding(binding("Pod", "n1")), []string{`target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`})
	expectErrors(t, "missing name", ValidatePodBinding(binding("", "")), []string{`target.name: Required value`})
	expectErrorPrefixes(t, "bad name", ValidatePodBinding(binding("", "Bad_Name")), []string{`target.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`})
}
