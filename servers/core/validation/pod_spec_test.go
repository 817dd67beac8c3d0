package validation

// More Pod spec rules: volume sources, security contexts, scheduling, resource
// claims, pod-level resources and lifecycle handlers. Expectations follow
// kubernetes v1.37.2 pkg/apis/core/validation/validation.go and validation_test.go.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestValidateVolumeSources(t *testing.T) {
	cases := []struct {
		name   string
		source v1.VolumeSource
		want   []string
	}{
		{"hostPath", v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/a/../b", Type: ptr.To(v1.HostPathType("Pipe"))}}, []string{
			`vol.hostPath.path: Invalid value: "/a/../b": must not contain '..'`,
			`vol.hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
		}},
		{"nfs", v1.VolumeSource{NFS: &v1.NFSVolumeSource{Path: "rel"}}, []string{
			`vol.nfs.server: Required value`,
			`vol.nfs.path: Invalid value: "rel": must be an absolute path`,
		}},
		{"gce pd uses upstream's persistentDisk path", v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{Partition: 300}}, []string{
			`vol.persistentDisk.pdName: Required value`,
			`vol.persistentDisk.partition: Invalid value: 300: must be between 1 and 255, inclusive`,
		}},
		{"iscsi", v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{TargetPortal: "t", IQN: "bad", Lun: 300}}, []string{
			`vol.iscsi.iqn: Invalid value: "bad": must be valid format starting with iqn, eui, or naa`,
			`vol.iscsi.lun: Invalid value: 300: must be between 0 and 255, inclusive`,
		}},
		{"configMap", v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](01000), Items: []v1.KeyToPath{{Path: "/abs"}}}}, []string{
			`vol.configMap.name: Required value`,
			`vol.configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
			`vol.configMap.items[0].key: Required value`,
			`vol.configMap.items[0].path: Invalid value: "/abs": must be a relative path`,
		}},
		{"downwardAPI", v1.VolumeSource{DownwardAPI: &v1.DownwardAPIVolumeSource{Items: []v1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}},
			{Path: "node", FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}},
			{Path: "none"},
		}}}, []string{
			`vol.downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`,
			`vol.downwardAPI: Required value: one of fieldRef and resourceFieldRef is required`,
		}},
		{"projected", v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
			{Secret: &v1.SecretProjection{LocalObjectReference: v1.LocalObjectReference{Name: "s"}, Items: []v1.KeyToPath{{Key: "k", Path: "p"}}}},
			{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "c"}, Items: []v1.KeyToPath{{Key: "k", Path: "p"}}}},
			{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: ptr.To[int64](60)}},
		}}}, []string{
			`vol.projected: Invalid value: "c": conflicting duplicate paths`,
			`vol.projected.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`,
		}},
		{"csi", v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "Bad Driver!"}}, []string{
			`vol.csi.driver: Invalid value: "Bad Driver!": a lowercase RFC 1123 subdomain must consist of`,
		}},
		{"image", v1.VolumeSource{Image: &v1.ImageVolumeSource{PullPolicy: "Sometimes"}}, []string{
			`vol.image.reference: Required value`,
			`vol.image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
		}},
	}
	for _, tc := range cases {
		errs := validateVolumeSource(&tc.source, field.NewPath("vol"), "v", nil, podValidationOptions{})
		expectErrorPrefixes(t, tc.name, errs, tc.want)
	}
}

func TestValidatePodSecurity(t *testing.T) {
	ctr := func(p *v1.Pod) *v1.Container { return &p.Spec.Containers[0] }
	cases := []struct {
		name string
		pod  *v1.Pod
		want []string
	}{
		{"seccomp", podWith(func(p *v1.Pod) {
			p.Spec.SecurityContext.SeccompProfile = &v1.SeccompProfile{Type: v1.SeccompProfileTypeLocalhost}
			ctr(p).SecurityContext = &v1.SecurityContext{SeccompProfile: &v1.SeccompProfile{Type: "Custom", LocalhostProfile: ptr.To("x")}}
		}), []string{
			// containers are validated before the pod security context
			`spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
			`spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: {"Type":"Custom","LocalhostProfile":"x"}: can only be set when seccomp type is Localhost`,
			`spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
		}},
		{"seccomp annotation must match field", podWith(func(p *v1.Pod) {
			p.Annotations = map[string]string{v1.SeccompPodAnnotationKey: v1.SeccompProfileRuntimeDefault}
			p.Spec.SecurityContext.SeccompProfile = &v1.SeccompProfile{Type: v1.SeccompProfileTypeUnconfined}
		}), []string{`spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match`}},
		{"apparmor", podWith(func(p *v1.Pod) {
			p.Annotations = map[string]string{v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix + "nope": "bad"}
			ctr(p).SecurityContext = &v1.SecurityContext{AppArmorProfile: &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr.To(" x")}}
		}), []string{
			`metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "nope": container not found`,
			`metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "bad": invalid AppArmor profile name: "bad"`,
			`spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: " x": must not be padded with whitespace`,
		}},
		{"sysctls", podWith(func(p *v1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Ports = nil
			p.Spec.SecurityContext.Sysctls = []v1.Sysctl{{Name: "net.core.somaxconn"}, {Name: "kernel.shm_rmid_forced"}, {Name: "kernel.shm_rmid_forced"}, {Name: "Bad"}}
		}), []string{
			`spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when 'hostNetwork' is true`,
			`spec.securityContext.sysctls[2].name: Duplicate value: "kernel.shm_rmid_forced"`,
			`spec.securityContext.sysctls[3].name: Invalid value: "Bad": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
		}},
		{"allowPrivilegeEscalation false with CAP_SYS_ADMIN", podWith(func(p *v1.Pod) {
			ctr(p).SecurityContext = &v1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &v1.Capabilities{Add: []v1.Capability{"CAP_SYS_ADMIN"}}}
		}), []string{"spec.containers[0].securityContext: Invalid value: {\"Capabilities\":{\"Add\":[\"CAP_SYS_ADMIN\"],\"Drop\":null}"}},
		{"windows pod", podWith(func(p *v1.Pod) {
			p.Spec.OS = &v1.PodOS{Name: v1.Windows}
			p.Spec.HostPID = true
			ctr(p).SecurityContext = &v1.SecurityContext{RunAsUser: ptr.To[int64](1)}
		}), []string{
			`spec.hostPID: Forbidden: cannot be set for a windows pod`,
			`spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod`,
		}},
		{"linux pod with windows options", podWith(func(p *v1.Pod) {
			p.Spec.OS = &v1.PodOS{Name: v1.Linux}
			p.Spec.SecurityContext.WindowsOptions = &v1.WindowsSecurityContextOptions{RunAsUserName: ptr.To("")}
		}), []string{
			`spec.securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
			`spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod`,
		}},
		{"user namespaces", podWith(func(p *v1.Pod) { p.Spec.HostUsers = ptr.To(false); p.Spec.HostPID = true }), []string{
			"spec.HostPID: Forbidden: when `hostUsers` is false",
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidatePod(tc.pod), tc.want)
	}
}

func TestValidatePodScheduling(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	cases := []struct {
		name string
		pod  *v1.Pod
		want []string
	}{
		{"pod affinity", podWith(func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{
				Weight:          101,
				PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: sel, MatchLabelKeys: []string{"app"}, MismatchLabelKeys: []string{"app"}},
			}}}}
		}), []string{
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and mismatchLabelKeys`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must consist of`,
		}},
		{"node affinity", podWith(func(p *v1.Pod) {
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn}},
				MatchFields:      []v1.NodeSelectorRequirement{{Key: "metadata.uid", Operator: v1.NodeSelectorOpIn, Values: []string{"x"}}},
			}}}}}
		}), []string{
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key`,
		}},
		{"topology spread", podWith(func(p *v1.Pod) {
			c := v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel, MinDomains: ptr.To[int32](2)}
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{c, c}
		}), []string{
			`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, ScheduleAnyway}"`,
			`spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
			`spec.topologySpreadConstraints[1].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
		}},
		{"dns config", podWith(func(p *v1.Pod) {
			p.Spec.DNSConfig = &v1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "bad"}, Searches: []string{"a_b.example.com.", "-bad"}, Options: []v1.PodDNSConfigOption{{}}}
		}), []string{
			`spec.dnsConfig.nameservers[1]: Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`spec.dnsConfig.searches[1]: Invalid value: "-bad": a lowercase RFC 1123 subdomain must consist of`,
			`spec.dnsConfig.options[0]: Required value: must not be empty`,
		}},
		{"readiness and scheduling gates", podWith(func(p *v1.Pod) {
			p.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: "bad gate"}}
			p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "g"}, {Name: "g"}}
		}), []string{
			`spec.readinessGates[0].conditionType: Invalid value: "bad gate": name part must consist of`,
			`spec.schedulingGates[1]: Duplicate value: "g"`,
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidatePod(tc.pod), tc.want)
	}
}

func TestValidatePodResourcesAndHandlers(t *testing.T) {
	ctr := func(p *v1.Pod) *v1.Container { return &p.Spec.Containers[0] }
	cases := []struct {
		name string
		pod  *v1.Pod
		want []string
	}{
		{"resource claims", podWith(func(p *v1.Pod) {
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu-claim")}, {Name: "gpu"}}
			ctr(p).Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}, {Name: "missing"}}
		}), []string{
			`spec.resourceClaims[1].name: Duplicate value: "gpu"`,
			"spec.resourceClaims[1]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
			`spec.containers[0].resources.claims[1]: Not found: "missing": must be one of the names in pod.spec.resourceClaims: gpu`,
		}},
		{"pod-level resources", podWith(func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{
				Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m"), v1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m")},
			}
		}), []string{`spec.resources.requests[cpu]: Invalid value: "50m": must be greater than or equal to aggregate container requests of 100m`}},
		{"pod-level storage is not supported", podWith(func(p *v1.Pod) {
			p.Spec.Resources = &v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}
		}), []string{`spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"`}},
		{"lifecycle handlers", podWith(func(p *v1.Pod) {
			ctr(p).Lifecycle = &v1.Lifecycle{
				PostStart:  &v1.LifecycleHandler{HTTPGet: &v1.HTTPGetAction{Path: "/", Port: intOrName("http"), Scheme: "FTP"}, Exec: &v1.ExecAction{}},
				PreStop:    &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 60}},
				StopSignal: ptr.To(v1.SIGTERM),
			}
		}), []string{
			`spec.containers[0].lifecycle.postStart.exec.command: Required value`,
			`spec.containers[0].lifecycle.postStart.httpGet: Forbidden: may not specify more than 1 handler type`,
			`spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)`,
			"spec.containers[0].lifecycle.stopSignal: Forbidden: may not be set for containers with empty `spec.os.name`",
		}},
		{"container restart rules", podWith(func(p *v1.Pod) {
			ctr(p).RestartPolicy = ptr.To(v1.ContainerRestartPolicyNever)
			ctr(p).RestartPolicyRules = []v1.ContainerRestartRule{{Action: "Explode"}}
		}), []string{
			`spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Explode": supported values: "Restart", "RestartAllContainers"`,
			`spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified`,
		}},
		{"resize policy", podWith(func(p *v1.Pod) {
			p.Spec.RestartPolicy = v1.RestartPolicyNever
			ctr(p).ResizePolicy = []v1.ContainerResizePolicy{{ResourceName: v1.ResourceCPU, RestartPolicy: v1.RestartContainer}}
		}), []string{`spec.containers[0].resizePolicy: Invalid value: "RestartContainer": must be 'NotRequired' when pod ` + "`restartPolicy`" + ` is 'Never'`}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidatePod(tc.pod), tc.want)
	}
}
