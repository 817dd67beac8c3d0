package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestPodSecurity(t *testing.T) {
	podSC := func(p *corev1.Pod) *corev1.PodSecurityContext { return p.Spec.SecurityContext }
	cases := []struct {
		name string
		edit func(*corev1.Pod)
		want []string
	}{
		{"privileged containers are allowed (--allow-privileged=true, as kubeadm and envtest run)", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}, nil},
		{"user and group IDs", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](-1)}
			podSC(p).FSGroup = ptr.To[int64](-2)
			podSC(p).SupplementalGroups = []int64{1, -3}
		}, []string{
			`spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
			`spec.securityContext.supplementalGroups[1]: Invalid value: -3: must be between 0 and 2147483647, inclusive`,
			`spec.securityContext.fsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive`,
		}},
		{"no escalation for a privileged container", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false)}
		}, []string{`spec.containers[0].securityContext: Invalid value: {"Capabilities":null,"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set ` + "`allowPrivilegeEscalation` to false and `privileged` to true"}},
		{"no escalation with CAP_SYS_ADMIN", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"CAP_SYS_ADMIN"}}}
		}, []string{`spec.containers[0].securityContext: Invalid value: {"Capabilities":{"Add":["CAP_SYS_ADMIN"],"Drop":null}`}},
		{"seccomp", func(p *corev1.Pod) {
			podSC(p).SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}
			ctr(p).SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: "Custom", LocalhostProfile: ptr.To("x")}}
		}, []string{
			`spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
			`spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: {"Type":"Custom","LocalhostProfile":"x"}: can only be set when seccomp type is Localhost`,
			`spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
		}},
		{"apparmor", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(" x")}}
		}, []string{`spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: " x": must not be padded with whitespace`}},
		{"unmasked /proc needs a user namespace", func(p *corev1.Pod) {
			ctr(p).SecurityContext = &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}
		}, []string{"spec.containers[0].securityContext.procMount: Forbidden: `hostUsers` must be false to use `Unmasked`"}},
		{"sysctls", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			ctr(p).Ports = nil
			podSC(p).Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn"}, {Name: "kernel.shm_rmid_forced"}, {Name: "kernel.shm_rmid_forced"}, {Name: "Bad"}}
		}, []string{
			`spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when 'hostNetwork' is true`,
			`spec.securityContext.sysctls[2].name: Duplicate value: "kernel.shm_rmid_forced"`,
			`spec.securityContext.sysctls[3].name: Invalid value: "Bad": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
		}},
		{"share process namespace with host PID", func(p *corev1.Pod) { p.Spec.HostPID = true; p.Spec.ShareProcessNamespace = ptr.To(true) },
			[]string{`spec.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled`}},
		{"windows pod", func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			p.Spec.HostPID = true
			ctr(p).SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](1)}
		}, []string{
			`spec.hostPID: Forbidden: cannot be set for a windows pod`,
			`spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod`,
		}},
		{"linux pod with windows options", func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
			podSC(p).WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("")}
		}, []string{
			`spec.securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
			`spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod`,
		}},
		{"unknown os", func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: "plan9"} },
			[]string{`spec.os: Unsupported value: "plan9": supported values: "linux", "windows"`}},
		{"stop signal of the pod's os", func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			ctr(p).Lifecycle = &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGUSR1)}
		}, []string{`spec.containers[0].lifecycle.stopSignal: Unsupported value: "SIGUSR1": supported values: "SIGKILL", "SIGTERM"`}},
		{"user namespaces", func(p *corev1.Pod) { p.Spec.HostUsers = ptr.To(false); p.Spec.HostPID = true },
			[]string{"spec.HostPID: Forbidden: when `hostUsers` is false"}},
	}
	for _, tc := range cases {
		validationtest.Expect(t, tc.name, ValidatePod(pod(t, tc.edit)), tc.want...)
	}
	if n := len(linuxSignals()); n != 65 {
		t.Errorf("%d Linux signals, want the 65 that k8s.io/api names", n)
	}
}

func TestPodScheduling(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	required := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	const nodeTerms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	cases := []struct {
		name string
		edit func(*corev1.Pod)
		want []string
	}{
		{"valid", func(p *corev1.Pod) {
			p.Spec.Affinity = required(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}})
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: "kubernetes.io/hostname"}}}
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}, {Key: "k", Value: "v", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)}}
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel, MatchLabelKeys: []string{"pod-template-hash"}}}
		}, nil},
		{"node affinity without terms", func(p *corev1.Pod) { p.Spec.Affinity = required() },
			[]string{nodeTerms + `: Required value: must have at least one node selector term`}},
		{"node selector requirements", func(p *corev1.Pod) {
			p.Spec.Affinity = required(corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn}, {Key: "zone", Operator: "Near"}},
				MatchFields:      []corev1.NodeSelectorRequirement{{Key: "metadata.uid", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}}},
			})
		}, []string{
			nodeTerms + "[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			nodeTerms + `[0].matchExpressions[1].operator: Invalid value: "Near": not a valid selector operator`,
			nodeTerms + `[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key`,
		}},
		{"pod affinity", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight:          101,
				PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: sel, MatchLabelKeys: []string{"app"}, MismatchLabelKeys: []string{"app"}},
			}}}}
		}, []string{
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and mismatchLabelKeys`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must consist of`,
		}},
		{"pod affinity selector", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "no good"}}, TopologyKey: "zone"}}}}
		}, []string{`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels: Invalid value: "no good"`}},
		{"tolerations", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{
				{Key: "k", Operator: "Near", Value: "1"},
				{Operator: corev1.TolerationOpEqual, Value: "v"},
				{Key: "k", Operator: corev1.TolerationOpExists, Value: "v", TolerationSeconds: ptr.To[int64](1), Effect: corev1.TaintEffectNoSchedule},
				{Key: "k", Effect: "Sometimes"},
			}
		}, []string{
			`spec.tolerations[0].operator: Unsupported value: "Near": supported values: "Equal", "Exists"`,
			"spec.tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
			"spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			"spec.tolerations[2].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
			`spec.tolerations[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"topology spread", func(p *corev1.Pod) {
			c := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel, MinDomains: ptr.To[int32](2)}
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{c, c, {WhenUnsatisfiable: corev1.DoNotSchedule, MatchLabelKeys: []string{"app"}}}
		}, []string{
			`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, ScheduleAnyway}"`,
			`spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
			`spec.topologySpreadConstraints[1].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
			`spec.topologySpreadConstraints[2].maxSkew: Invalid value: 0: must be greater than zero`,
			`spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty`,
			`spec.topologySpreadConstraints[2].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
		}},
	}
	for _, tc := range cases {
		validationtest.Expect(t, tc.name, ValidatePod(pod(t, tc.edit)), tc.want...)
	}
}
